/**
 * The ladder engine: what a step job does, what happens when an incident opens, and the sweeper. The timing rules
 * are the pure `ladderState` of @statusvane/shared; this module reads and writes the rows and the queue around it.
 *
 * Invariants:
 * - The policy is the one pinned to the incident when it opened (`incidents.escalationPolicyId`): a policy
 *   assigned mid-incident never changes a running ladder, so steps always match by id within one policy.
 * - Exactly-once paging per (incident, step, cycle, target): the delivery rows are inserted first, under the unique
 *   key, `pending` and unclaimed. A row is sent only by the worker whose conditional update claims it
 *   (`claimedAt` NULL -> now), so a job run twice, two workers racing, or a retried job never send one page twice;
 *   and a retried job sends the rows of its own step and cycle that an earlier run stored but never claimed.
 *   A worker that dies after claiming leaves the row `pending`: the sweeper marks it `failed` (`worker_lost`)
 *   after `staleDeliveryMs`. At most once, never twice.
 * - Sending never depends on the queue: the pages of a fired step go out even when adding the next cycle's jobs
 *   fails (that is logged, and the sweeper adds the current cycle of every open incident).
 * - No page after an acknowledgement or a resolution: the rows are inserted (or, on a retry, found) while holding
 *   a share lock on the incident row after re-reading its status under it, and acknowledging or resolving updates
 *   that row, so it waits for a firing step to commit and every later run sees the new status.
 * - A step fires only if the incident exists and is `open`, the step's time has come in its cycle, its
 *   `minImpact` is at most the incident's impact, and the monitor is not in maintenance. A step that comes due
 *   during maintenance is deferred until the window's end, but never for longer than `maintenanceRecheckMs`, so
 *   a window completed early or cancelled resumes paging within that time.
 * - After the last step of a cycle (fired, or passed over for its minImpact), the next cycle's jobs are added,
 *   their delays counted from that fire time. Job ids are fixed per (incident, cycle, position): adding twice adds
 *   once.
 * - Every target with a page `sent` is told when the incident is acknowledged and when it is resolved, once per
 *   kind: the status change writes the notices (trigger), a page in flight at that moment adds its own when its
 *   outcome is recorded, and notice rows are claimed and sent like deliveries (`sendIncidentNotices`).
 */
import {
  impactAtLeast,
  ladderState,
  maintenanceUntilByComponent,
  openTarget,
  policyInEffect,
  encryptLegacyTargets,
  createActionLinks,
  isPersonChannel,
  loadScheduleSpec,
  onCallAt,
  type EscalationJob,
  type EscalationNoticeJob,
  type EscalationScheduler,
  type Impact,
  type Keyring,
  type LadderIncident,
  type Logger,
  type PolicyInEffect,
  Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { openParentIncidentOf } from '../open-parent-incident.js';
import { personDeliveries } from './recipients.js';
import type {
  DeliveryChannel as Channel,
  DeliveryOutcome,
  Deliverer,
  IncidentSnapshot,
  Notice,
  Page,
} from '@statusvane/shared';

export interface EscalationDeps {
  prisma: PrismaClient;
  scheduler: EscalationScheduler;
  deliverer: Deliverer;
  logger: Logger;
  /** Targets are stored encrypted: the current key and the old ones still accepted. */
  keyring: Keyring;
  /** The clock (tests inject one). */
  now?: () => Date;
  /** The longest a step deferred by maintenance waits before looking at the window again. Default 60 s. */
  maintenanceRecheckMs?: number;
  /** A delivery claimed this long ago and still `pending` is failed `worker_lost` by the sweeper. Default 5 min. */
  staleDeliveryMs?: number;
  /** An unclaimed notice this old gets its job asked for by the sweeper. Default 10 s. */
  noticeMinAgeMs?: number;
  /**
   * PUBLIC_BASE_URL: every page carries one-use acknowledge and resolve links under it (`/a/<token>/...`). Unset (some
   * tests): pages carry none.
   */
  publicBaseUrl?: string;
}

export const MAINTENANCE_RECHECK_MS = 60_000;
export const STALE_DELIVERY_MS = 5 * 60_000;
export const NOTICE_MIN_AGE_MS = 10_000;

export type StepOutcome =
  | { outcome: 'stopped'; reason: 'incident deleted' | 'incident acknowledged' | 'incident resolved' }
  | {
      outcome: 'skipped';
      reason: 'no policy' | 'no such step' | 'cycle not reached' | 'below minImpact';
      nextCycleScheduled?: boolean;
    }
  | { outcome: 'deferred'; reason: 'not due yet' | 'maintenance'; until: Date }
  | {
      outcome: 'fired';
      sent: number;
      failed: number;
      skipped: number;
      duplicates: number;
      nextCycleScheduled: boolean;
    };

const incidentSelect = {
  id: true,
  workspaceId: true,
  monitorId: true,
  escalationPolicyId: true,
  title: true,
  status: true,
  impact: true,
  source: true,
  metadata: true,
  startedAt: true,
  acknowledgedAt: true,
  resolvedAt: true,
  monitor: { select: { componentId: true } },
} as const;

const MINUTE = 60_000;
const dueTimes = (policy: PolicyInEffect, anchor: Date) =>
  policy.steps.map((s) => ({ position: s.position, dueAt: new Date(anchor.getTime() + s.delayMinutes * MINUTE) }));
const clockOf = (deps: EscalationDeps) => deps.now?.() ?? new Date();
/** Rows claimed before this and still pending belong to a worker that is gone (the sweeper's cut-off). */
const staleBefore = (deps: EscalationDeps) =>
  new Date(clockOf(deps).getTime() - (deps.staleDeliveryMs ?? STALE_DELIVERY_MS));

function stopped(status: 'acknowledged' | 'resolved'): StepOutcome {
  return { outcome: 'stopped', reason: status === 'acknowledged' ? 'incident acknowledged' : 'incident resolved' };
}

async function deliveriesOf(prisma: PrismaClient, incidentId: string) {
  return prisma.escalationDelivery.findMany({
    where: { incidentId },
    select: { stepId: true, cycle: true, createdAt: true },
  });
}

/**
 * When an incident opens: add the jobs of cycle 0, each delayed until startedAt + its step's delay. No policy
 * pinned: nothing. Safe to call twice.
 */
export async function scheduleIncidentLadder(deps: EscalationDeps, incidentId: string): Promise<{ scheduled: number }> {
  const now = clockOf(deps);
  const incident = await deps.prisma.incident.findUnique({ where: { id: incidentId }, select: incidentSelect });
  if (!incident || incident.status !== 'open') return { scheduled: 0 };
  const policy = await policyInEffect(deps.prisma, incident);
  if (!policy || policy.steps.length === 0) return { scheduled: 0 };
  await deps.scheduler.scheduleCycle(incident.id, 0, dueTimes(policy, incident.startedAt), now.getTime());
  return { scheduled: policy.steps.length };
}

/**
 * The sweeper's half of "every open incident has its ladder": re-adds the current cycle's step jobs of every open
 * incident, and retries those of them that ended `failed`. It covers an incident whose first jobs could not be
 * added when it opened (Redis away at that moment), a next cycle whose jobs could not be added, delayed jobs lost
 * with Redis data, and step jobs whose retries ran out during a long database outage. Job ids are fixed, so jobs
 * still in Redis are not added twice, and a step job that runs again pages nobody twice (delivery rows).
 * Incidents younger than `minAgeMs` are left to the opening hook. Every open incident is visited, `batch` at a
 * time in (startedAt, id) order.
 */
export async function ensureOpenLadders(
  deps: EscalationDeps,
  { minAgeMs = 60_000, batch = 500 }: { minAgeMs?: number; batch?: number } = {},
): Promise<{ incidents: number; scheduled: number; recovered: number }> {
  const now = clockOf(deps);
  const cutoff = new Date(now.getTime() - minAgeMs);
  let after: { startedAt: Date; id: string } | null = null;
  let incidents = 0;
  let scheduled = 0;
  let recovered = 0;
  for (;;) {
    const open: Array<{
      id: string;
      workspaceId: string;
      escalationPolicyId: string | null;
      status: 'open' | 'acknowledged' | 'resolved';
      impact: string;
      startedAt: Date;
      acknowledgedAt: Date | null;
      resolvedAt: Date | null;
    }> = await deps.prisma.incident.findMany({
      where: {
        status: 'open',
        startedAt: { lte: cutoff },
        ...(after
          ? { OR: [{ startedAt: { gt: after.startedAt } }, { startedAt: after.startedAt, id: { gt: after.id } }] }
          : {}),
      },
      select: {
        id: true,
        workspaceId: true,
        escalationPolicyId: true,
        status: true,
        impact: true,
        startedAt: true,
        acknowledgedAt: true,
        resolvedAt: true,
      },
      orderBy: [{ startedAt: 'asc' }, { id: 'asc' }],
      take: batch,
    });
    for (const row of open) {
      const incident = { ...row, impact: row.impact as Impact };
      const policy = await policyInEffect(deps.prisma, incident);
      if (!policy || policy.steps.length === 0) continue;
      const state = ladderState(policy, incident, await deliveriesOf(deps.prisma, incident.id), now);
      const anchor = state.anchors[state.cycle];
      if (!anchor || state.exhausted) continue;
      const report = await deps.scheduler.scheduleCycle(
        incident.id,
        state.cycle,
        dueTimes(policy, anchor),
        now.getTime(),
        { recoverFailed: true },
      );
      scheduled += policy.steps.length;
      recovered += report.recovered;
    }
    incidents += open.length;
    const last = open.at(-1);
    if (!last || open.length < batch) break;
    after = { startedAt: last.startedAt, id: last.id };
  }
  if (recovered) deps.logger.warn('escalation: failed step jobs retried by the sweeper', { recovered });
  return { incidents, scheduled, recovered };
}

/**
 * The sweeper's half of "every stored page is sent or accounted for". Pending rows older than `staleDeliveryMs`:
 * - claimed (a worker began sending and never recorded the outcome: it died, or its update failed): `failed` with
 *   reason `worker_lost`. Not resent: the page may have gone out, and paging is at most once.
 * - never claimed, incident still open: their step job is made to run again (retried if failed, added if gone),
 *   and it claims and sends them.
 * - never claimed, incident no longer open: nobody will send them; `failed` with reason `stopped_before_send`.
 */
export async function reconcileStaleDeliveries(
  deps: EscalationDeps,
): Promise<{ lost: number; rerun: number; stopped: number }> {
  const { prisma } = deps;
  const before = staleBefore(deps);
  const lost = await prisma.escalationDelivery.updateMany({
    where: { status: 'pending', claimedAt: { lte: before } },
    data: { status: 'failed', reason: 'worker_lost' },
  });
  const unclaimed = await prisma.escalationDelivery.findMany({
    where: { status: 'pending', claimedAt: null, createdAt: { lte: before } },
    select: {
      id: true,
      incidentId: true,
      cycle: true,
      step: { select: { position: true } },
      incident: { select: { status: true } },
    },
    orderBy: { createdAt: 'asc' },
    take: 1000,
  });
  const closed = unclaimed.filter((d) => d.incident.status !== 'open').map((d) => d.id);
  const stoppedRows = closed.length
    ? await prisma.escalationDelivery.updateMany({
        where: { id: { in: closed }, status: 'pending', claimedAt: null },
        data: { status: 'failed', reason: 'stopped_before_send' },
      })
    : { count: 0 };
  const jobs = new Map<string, EscalationJob>();
  for (const d of unclaimed) {
    if (d.incident.status === 'open')
      jobs.set(`${d.incidentId}#${d.cycle}#${d.step.position}`, {
        incidentId: d.incidentId,
        cycle: d.cycle,
        position: d.step.position,
      });
  }
  let rerun = 0;
  for (const job of jobs.values()) if (await deps.scheduler.rerunStep(job)) rerun++;
  if (lost.count || rerun || stoppedRows.count) {
    deps.logger.warn('escalation: stale pending deliveries reconciled', {
      workerLost: lost.count,
      stepsRerun: rerun,
      stoppedBeforeSend: stoppedRows.count,
    });
  }
  return { lost: lost.count, rerun, stopped: stoppedRows.count };
}

/**
 * The sweeper's half of "every notice is sent or accounted for". Pending notices claimed more than
 * `staleDeliveryMs` ago: `failed` with reason `worker_lost` (not resent, as deliveries). Pending notices nobody has
 * claimed `noticeMinAgeMs` (10 s) after they were written: their job is asked for (added, retried or run again).
 * That is how the notices of an incident resolved by a monitor recovering in the worker go out (the trigger writes
 * them, nothing else asks), and it covers a job that could not be added (Redis away) or ran before a late notice
 * was written. The minimum age leaves a notice whose job the API has just asked for to that job.
 */
export async function reconcileNotices(deps: EscalationDeps): Promise<{ noticesLost: number; noticeJobs: number }> {
  const { prisma } = deps;
  const before = staleBefore(deps);
  const lost = await prisma.escalationNotice.updateMany({
    where: { status: 'pending', claimedAt: { lte: before } },
    data: { status: 'failed', reason: 'worker_lost' },
  });
  const writtenBefore = new Date(clockOf(deps).getTime() - (deps.noticeMinAgeMs ?? NOTICE_MIN_AGE_MS));
  const unclaimed = await prisma.escalationNotice.findMany({
    where: { status: 'pending', claimedAt: null, createdAt: { lte: writtenBefore } },
    select: { incidentId: true, kind: true },
    distinct: ['incidentId', 'kind'],
    orderBy: [{ incidentId: 'asc' }, { kind: 'asc' }],
    take: 1000,
  });
  let noticeJobs = 0;
  for (const job of unclaimed) if (await deps.scheduler.sendNotices(job)) noticeJobs++;
  if (lost.count) deps.logger.warn('escalation: notices claimed long ago failed as worker_lost', { lost: lost.count });
  return { noticesLost: lost.count, noticeJobs };
}

/**
 * Handoff notices (beyond-the-seed section 10): for every incident not yet resolved whose ladder paged a schedule,
 * the user on call in that schedule now, if nobody has paged or told them about it yet, gets a `handoff` notice on
 * each contact method (one per incident, schedule, user and method: the notice key). They are sent as the other
 * notices are (claimed rows, the `handoff` notice job). The next step of a ladder that pages the schedule pages them
 * anyway: whoever is on call when a step fires is who it pages.
 */
export async function noticeHandoffs(deps: EscalationDeps): Promise<{ handoffs: number }> {
  const { prisma } = deps;
  const now = clockOf(deps);
  const paged = await prisma.escalationDelivery.findMany({
    where: { scheduleId: { not: null }, incident: { status: { in: ['open', 'acknowledged'] } } },
    select: {
      incidentId: true,
      scheduleId: true,
      targetId: true,
      userId: true,
      incident: { select: { workspaceId: true } },
    },
  });
  const pairs = new Map<
    string,
    { incidentId: string; workspaceId: string; scheduleId: string; targetId: string; reached: Set<string> }
  >();
  for (const d of paged) {
    const key = `${d.incidentId}#${d.scheduleId}`;
    const pair = pairs.get(key) ?? {
      incidentId: d.incidentId,
      workspaceId: d.incident.workspaceId,
      scheduleId: d.scheduleId!,
      targetId: d.targetId,
      reached: new Set<string>(),
    };
    if (d.userId) pair.reached.add(d.userId);
    pairs.set(key, pair);
  }
  let handoffs = 0;
  for (const pair of pairs.values()) {
    const told = await prisma.escalationNotice.findMany({
      where: { incidentId: pair.incidentId, kind: 'handoff', scheduleId: pair.scheduleId },
      select: { userId: true },
    });
    for (const t of told) if (t.userId) pair.reached.add(t.userId);
    const schedule = await loadScheduleSpec(prisma, pair.workspaceId, pair.scheduleId, now);
    const userId = schedule ? onCallAt(schedule.spec, now).userId : null;
    if (!userId || pair.reached.has(userId)) continue;
    const member = await prisma.membership.findUnique({
      where: { workspaceId_userId: { workspaceId: pair.workspaceId, userId } },
      select: { id: true },
    });
    if (!member) continue;
    const methods = await prisma.contactMethod.findMany({
      where: { userId },
      orderBy: { position: 'asc' },
      select: { id: true, channel: true, display: true },
    });
    const { count } = await prisma.escalationNotice.createMany({
      data: methods.map((m) => ({
        incidentId: pair.incidentId,
        targetId: pair.targetId,
        kind: 'handoff' as const,
        channel: m.channel,
        target: m.display,
        fanout: `handoff:${pair.scheduleId}:${userId}:${m.id}`,
        scheduleId: pair.scheduleId,
        userId,
        contactMethodId: m.id,
        createdAt: now,
      })),
      skipDuplicates: true,
    });
    if (count > 0) {
      handoffs++;
      await requestNoticesQuietly(deps, { incidentId: pair.incidentId, kind: 'handoff' });
    }
  }
  return { handoffs };
}

/**
 * One sweeper round (worker housekeeping): encrypt targets still stored as plaintext (rows from before encryption
 * at rest), reconcile stale pending deliveries and notices, make sure every open incident's ladder has its jobs, and
 * tell incoming on-call users about the open incidents their schedule was paged for.
 */
export async function sweepEscalations(
  deps: EscalationDeps,
  opts?: { minAgeMs?: number; batch?: number },
): Promise<{
  incidents: number;
  scheduled: number;
  recovered: number;
  encrypted: number;
  lost: number;
  rerun: number;
  stopped: number;
  noticesLost: number;
  noticeJobs: number;
  handoffs: number;
}> {
  const encrypted = await encryptLegacyTargets(deps.prisma, deps.keyring.current);
  if (encrypted) deps.logger.info('escalation: plaintext targets encrypted', { encrypted });
  const stale = await reconcileStaleDeliveries(deps);
  const notices = await reconcileNotices(deps);
  const ladders = await ensureOpenLadders(deps, opts);
  const { handoffs } = await noticeHandoffs(deps);
  return { ...ladders, encrypted, ...stale, ...notices, handoffs };
}

/**
 * After the last step of `cycle` was handled: add the next cycle's jobs, anchored where the ladder says. A failure
 * is logged, not thrown: the pages of this step do not depend on it, and the sweeper adds the current cycle of
 * every open incident.
 */
async function scheduleNextCycle(
  deps: EscalationDeps,
  incident: LadderIncident & { id: string },
  policy: PolicyInEffect,
  job: EscalationJob,
): Promise<boolean> {
  const last = policy.steps.at(-1);
  if (!last || job.position !== last.position || job.cycle >= policy.repeatCount) return false;
  try {
    const now = clockOf(deps);
    const state = ladderState(policy, incident, await deliveriesOf(deps.prisma, incident.id), now);
    const anchor = state.anchors[job.cycle + 1];
    if (!anchor) return false;
    await deps.scheduler.scheduleCycle(incident.id, job.cycle + 1, dueTimes(policy, anchor), now.getTime());
    return true;
  } catch (err) {
    deps.logger.warn('escalation: next cycle not scheduled; the sweeper will add it', {
      incidentId: incident.id,
      cycle: job.cycle + 1,
      error: (err as Error).message,
    });
    return false;
  }
}

/**
 * `dependsOn`: whether a monitor the incident's monitor depends on is down, as a step fires: the incident that
 * suppressed it when it opened (`suppressedById`) is still unresolved, or (none was open then, say both monitors
 * failed within the same seconds) one of them has an open incident now, which the caller then records as
 * `suppressedBy` (after this transaction: it holds a share lock on the incident row that another step may share).
 * Once the parent recovers while this monitor stays down, its later steps page: it is down on its own.
 */
async function dependencyDown(
  tx: Prisma.TransactionClient,
  incidentId: string,
): Promise<{ down: boolean; record: string | null }> {
  const [row] = await tx.$queryRaw<Array<{ suppressedById: string | null; current: string | null }>>`
    SELECT i."suppressedById",
      coalesce(
        (SELECT s.id FROM incidents s WHERE s.id = i."suppressedById" AND s.status <> 'resolved'),
        ${openParentIncidentOf(Prisma.raw('i."monitorId"'))}
      ) AS current
    FROM incidents i WHERE i.id = ${incidentId}::uuid`;
  if (!row?.current) return { down: false, record: null };
  return { down: true, record: row.suppressedById ? null : row.current };
}

/** Runs one step job (see the module invariants). Never throws for a business reason; a database error does. */
export async function runEscalationStep(deps: EscalationDeps, job: EscalationJob): Promise<StepOutcome> {
  const { prisma } = deps;
  const now = clockOf(deps);
  const row = await prisma.incident.findUnique({ where: { id: job.incidentId }, select: incidentSelect });
  if (!row) return { outcome: 'stopped', reason: 'incident deleted' };
  if (row.status !== 'open') return stopped(row.status);
  const incident = { ...row, impact: row.impact as Impact };

  const policy = await policyInEffect(prisma, incident);
  if (!policy) return { outcome: 'skipped', reason: 'no policy' };
  const step = policy.steps.find((s) => s.position === job.position);
  if (!step) return { outcome: 'skipped', reason: 'no such step' };

  const state = ladderState(policy, incident, await deliveriesOf(prisma, incident.id), now);
  const anchor = state.anchors[job.cycle];
  if (!anchor) return { outcome: 'skipped', reason: 'cycle not reached' };
  const dueAt = new Date(anchor.getTime() + step.delayMinutes * MINUTE);
  if (dueAt > now) return { outcome: 'deferred', reason: 'not due yet', until: dueAt };

  if (!impactAtLeast(incident.impact, step.minImpact)) {
    return {
      outcome: 'skipped',
      reason: 'below minImpact',
      nextCycleScheduled: await scheduleNextCycle(deps, incident, policy, job),
    };
  }
  if (row.monitor) {
    const until = (await maintenanceUntilByComponent(prisma, incident.workspaceId, [row.monitor.componentId], now)).get(
      row.monitor.componentId,
    );
    if (until) {
      // Re-check at least every maintenanceRecheckMs: the window may be completed early or cancelled.
      const recheck = new Date(now.getTime() + (deps.maintenanceRecheckMs ?? MAINTENANCE_RECHECK_MS));
      return { outcome: 'deferred', reason: 'maintenance', until: until < recheck ? until : recheck };
    }
  }

  const inserted = await prisma.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<Array<{ status: 'open' | 'acknowledged' | 'resolved' }>>`
      SELECT status FROM incidents WHERE id = ${incident.id}::uuid FOR SHARE`;
    if (!locked) return 'incident deleted' as const;
    if (locked.status !== 'open') return locked.status;
    const suppressed = await dependencyDown(tx, incident.id);
    const skip = policy.silent ? 'silent policy' : suppressed.down ? 'dependency_down' : null;
    const rows = await stepRows(deps, tx, incident, step, job.cycle, skip, now);
    const { count } = await tx.escalationDelivery.createMany({ data: rows, skipDuplicates: true });
    return { count, rows: rows.length, skipped: skip !== null, record: suppressed.record };
  });
  if (inserted === 'incident deleted') return { outcome: 'stopped', reason: 'incident deleted' };
  if (typeof inserted === 'string') return stopped(inserted);
  if (inserted.record) {
    await prisma.incident.updateMany({
      where: { id: incident.id, suppressedById: null },
      data: { suppressedById: inserted.record },
    });
  }

  // Every row of this step and cycle still pending and never claimed: the rows just inserted, or rows an earlier
  // run of this job stored and did not get to send. The next cycle is anchored on stored rows, so it is scheduled
  // beside the sends, and its failure cannot stop them.
  const [outcomes, nextCycleScheduled] = await Promise.all([
    sendUnclaimed(deps, incident, policy, step, job.cycle),
    scheduleNextCycle(deps, incident, policy, job),
  ]);
  return {
    outcome: 'fired',
    sent: outcomes.filter((s) => s === 'sent').length,
    failed: outcomes.filter((s) => s === 'failed').length,
    skipped: outcomes.filter((s) => s === 'skipped').length + (inserted.skipped ? inserted.count : 0),
    duplicates: inserted.rows - inserted.count,
    nextCycleScheduled,
  };
}

type Step = PolicyInEffect['steps'][number];

/**
 * The delivery rows of a fired step: one per channel target, and for a schedule or user target one per contact
 * method of whoever it reaches at `now` (recipients.ts), all stamped with the step's fire time. A person target that
 * already has rows in this cycle (an earlier run of this job) adds none: the people it paged stay the ones paged,
 * even if a handoff came in between.
 */
async function stepRows(
  deps: EscalationDeps,
  tx: Prisma.TransactionClient,
  incident: IncidentRow,
  step: Step,
  cycle: number,
  skip: string | null,
  now: Date,
): Promise<Prisma.EscalationDeliveryCreateManyInput[]> {
  const base = (t: Step['targets'][number]) => ({
    incidentId: incident.id,
    stepId: step.id,
    targetId: t.id,
    cycle,
    // The step's fire time: the ladder's next cycle is anchored on it.
    createdAt: now,
  });
  const rows: Prisma.EscalationDeliveryCreateManyInput[] = [];
  for (const t of step.targets) {
    const channel = t.channel;
    if (!isPersonChannel(channel) || skip) {
      // The shown form only: the page is sent to the target row's (encrypted) target.
      rows.push({ ...base(t), channel, target: t.display, status: skip ? 'skipped' : 'pending', reason: skip });
      continue;
    }
    const earlier = await tx.escalationDelivery.count({
      where: { incidentId: incident.id, stepId: step.id, cycle, targetId: t.id },
    });
    if (earlier > 0) continue;
    let id: string;
    try {
      id = openTarget(t, deps.keyring);
    } catch {
      rows.push({ ...base(t), channel, target: t.display, status: 'failed', reason: 'target_unreadable' });
      continue;
    }
    for (const d of await personDeliveries(tx, incident.workspaceId, { channel, id }, now))
      rows.push({ ...base(t), ...d });
  }
  return rows;
}
type IncidentRow = {
  id: string;
  workspaceId: string;
  monitorId: string | null;
  title: string;
  status: string;
  impact: Impact;
  source: string;
  metadata: unknown;
  startedAt: Date;
};

/** Claims and sends this step's unclaimed pending rows of `cycle`; returns the status each claimed row ended in. */
async function sendUnclaimed(
  deps: EscalationDeps,
  incident: IncidentRow,
  policy: PolicyInEffect,
  step: Step,
  cycle: number,
) {
  const { prisma } = deps;
  const rows = await prisma.escalationDelivery.findMany({
    where: { incidentId: incident.id, stepId: step.id, cycle, status: 'pending', claimedAt: null },
    select: {
      id: true,
      channel: true,
      targetId: true,
      createdAt: true,
      userId: true,
      contactMethodId: true,
      contactMethod: { select: { targetEnc: true, encKeyId: true } },
    },
  });
  // firedAt: the row's creation, the step's fire time (a retried job sends with the time the step fired).
  const page = (deliveryId: string, firedAt: Date): Page => ({
    deliveryId,
    workspaceId: incident.workspaceId,
    incident: snapshot(incident),
    policy: { id: policy.id, name: policy.name, runbook: policy.runbook },
    step: { id: step.id, position: step.position, delayMinutes: step.delayMinutes, minImpact: step.minImpact, cycle },
    firedAt: firedAt.toISOString(),
  });
  const statuses = await Promise.all(
    rows.map(async (d) => {
      // The claim: exactly one worker moves claimedAt from NULL, and only that one sends.
      const { count } = await prisma.escalationDelivery.updateMany({
        where: { id: d.id, status: 'pending', claimedAt: null },
        data: { claimedAt: clockOf(deps) },
      });
      if (count === 0) return null;
      const target = step.targets.find((t) => t.id === d.targetId);
      let result: DeliveryOutcome;
      let to: string | null = null;
      try {
        // A person target's row is sent to the contact method it names (gone: the user replaced their methods since).
        const stored = d.contactMethodId ? d.contactMethod && { ...d.contactMethod, legacyTarget: null } : target;
        to = stored ? openTarget(stored, deps.keyring) : null;
      } catch {
        // Its key is not in the keyring (an old key dropped too early): recorded, not thrown, so the row is final.
      }
      const channel = d.channel;
      if (to === null || isPersonChannel(channel))
        result = { status: 'failed', attempts: 0, reason: 'target_unreadable', sentAt: null };
      else {
        const links = deps.publicBaseUrl
          ? await createActionLinks(prisma, deps.publicBaseUrl, {
              deliveryId: d.id,
              incidentId: incident.id,
              userId: d.userId,
              now: clockOf(deps),
            })
          : undefined;
        result = await deps.deliverer.deliver(channel, to, { ...page(d.id, d.createdAt), ...(links ? { links } : {}) });
      }
      const lateNotice = await recordDelivery(deps, incident.id, d, result);
      // Never the target: webhook and Slack URLs are credentials.
      deps.logger.info('escalation delivery', {
        incidentId: incident.id,
        deliveryId: d.id,
        channel: d.channel,
        cycle,
        position: step.position,
        status: result.status,
        attempts: result.attempts,
        reason: result.reason,
      });
      if (lateNotice) await requestNoticesQuietly(deps, { incidentId: incident.id, kind: lateNotice });
      return result.status;
    }),
  );
  return statuses.filter((s): s is DeliveryOutcome['status'] => s !== null);
}

/** The columns a delivery or notice row keeps of an outcome (the provider's HTTP status is not one). */
const stored = ({ status, attempts, reason, sentAt }: DeliveryOutcome) => ({ status, attempts, reason, sentAt });

/**
 * Records a delivery's outcome under a share lock on the incident row. Acknowledging or resolving updates that row,
 * and its trigger adds a notice for every target with a delivery `sent` (migration
 * 20261125195500_escalation_channels_and_notices), so the two are ordered: either the status change comes after
 * this commit and its trigger sees the row `sent`, or it came before and this sees the incident no longer open,
 * and adds the notice of the page that went out in the meantime itself. Returns that notice's kind, if any.
 */
async function recordDelivery(
  deps: EscalationDeps,
  incidentId: string,
  d: { id: string },
  result: DeliveryOutcome,
): Promise<'acknowledged' | 'resolved' | null> {
  return deps.prisma.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<Array<{ status: 'open' | 'acknowledged' | 'resolved' }>>`
      SELECT status FROM incidents WHERE id = ${incidentId}::uuid FOR SHARE`;
    const row = await tx.escalationDelivery.update({
      where: { id: d.id },
      data: stored(result),
      select: { targetId: true, channel: true, target: true, fanout: true, userId: true, contactMethodId: true },
    });
    if (result.status !== 'sent' || !locked || locked.status === 'open') return null;
    // As the trigger does: the notice goes where this delivery went (its target, or its contact method).
    await tx.escalationNotice.createMany({ data: [{ incidentId, kind: locked.status, ...row }], skipDuplicates: true });
    return locked.status;
  });
}

/** Asks for a notice job; a Redis failure is logged, not thrown: the sweeper asks again for unclaimed notices. */
async function requestNoticesQuietly(deps: EscalationDeps, job: EscalationNoticeJob): Promise<void> {
  try {
    await deps.scheduler.sendNotices(job);
  } catch (err) {
    deps.logger.warn('escalation: notice job not added; the sweeper will add it', {
      incidentId: job.incidentId,
      kind: job.kind,
      error: (err as Error).message,
    });
  }
}

const noticeIncidentSelect = { ...incidentSelect, acknowledgedAt: true, resolvedAt: true } as const;

export type NoticeOutcome =
  | { outcome: 'stopped'; reason: 'incident deleted' }
  | { outcome: 'notified'; sent: number; failed: number; skipped: number; duplicates: number };

/**
 * Runs one notice job: claims the incident's pending, unclaimed notices of `kind` (one per target that was paged;
 * see the trigger) and sends each once. Targets that are the same destination (one PagerDuty key in two steps, one
 * Slack URL twice) get one message, and every row of the group records its outcome. An acknowledgement whose
 * incident is resolved by the time it goes out is `skipped` (`superseded`): the resolution says more, and
 * PagerDuty and Opsgenie would ignore an acknowledgement of a closed alert anyway. Claims are per row, as for
 * deliveries: a job run twice, or retried, sends nothing twice.
 */
export async function sendIncidentNotices(deps: EscalationDeps, job: EscalationNoticeJob): Promise<NoticeOutcome> {
  const { prisma } = deps;
  const incident = await prisma.incident.findUnique({ where: { id: job.incidentId }, select: noticeIncidentSelect });
  if (!incident) return { outcome: 'stopped', reason: 'incident deleted' };
  const rows = await prisma.escalationNotice.findMany({
    where: { incidentId: incident.id, kind: job.kind, status: 'pending', claimedAt: null },
    select: {
      id: true,
      channel: true,
      scheduleId: true,
      createdAt: true,
      targetRef: { select: { targetEnc: true, encKeyId: true, legacyTarget: true } },
      contactMethodId: true,
      contactMethod: { select: { targetEnc: true, encKeyId: true } },
    },
    orderBy: { createdAt: 'asc' },
  });
  const claimed = [];
  for (const row of rows) {
    const { count } = await prisma.escalationNotice.updateMany({
      where: { id: row.id, status: 'pending', claimedAt: null },
      data: { claimedAt: clockOf(deps) },
    });
    if (count === 1) claimed.push(row);
  }
  const record = (ids: string[], result: DeliveryOutcome) =>
    prisma.escalationNotice.updateMany({ where: { id: { in: ids } }, data: stored(result) });

  if (job.kind !== 'resolved' && incident.status === 'resolved') {
    await record(
      claimed.map((r) => r.id),
      { status: 'skipped', attempts: 0, reason: 'superseded', sentAt: null },
    );
    return { outcome: 'notified', sent: 0, failed: 0, skipped: claimed.length, duplicates: 0 };
  }

  // One message per destination: rows whose channel and stored secret are the same.
  const groups = new Map<
    string,
    { channel: Channel; secret: string | null; ids: string[]; scheduleId: string | null; at: Date }
  >();
  for (const row of claimed) {
    let secret: string | null = null;
    const channel = row.channel;
    try {
      // A notice of a person target goes to the contact method its delivery used (null: since removed).
      const stored = row.contactMethodId
        ? row.contactMethod && { ...row.contactMethod, legacyTarget: null }
        : row.targetRef;
      if (stored && !isPersonChannel(channel)) secret = openTarget(stored, deps.keyring);
    } catch {
      // Its key is no longer configured: recorded `target_unreadable` below.
    }
    const key =
      secret === null || isPersonChannel(channel)
        ? `unreadable#${row.id}`
        : `${channel}#${secret}#${row.scheduleId ?? ''}`;
    const group = groups.get(key) ?? {
      channel: isPersonChannel(channel) ? 'webhook' : channel,
      secret: isPersonChannel(channel) ? null : secret,
      ids: [],
      scheduleId: row.scheduleId,
      at: row.createdAt,
    };
    group.ids.push(row.id);
    groups.set(key, group);
  }
  const statusAt = (job.kind === 'acknowledged' ? incident.acknowledgedAt : incident.resolvedAt) ?? clockOf(deps);
  const outcomes = await Promise.all(
    [...groups.values()].map(async (g) => {
      // A handoff names its schedule and happened when its notice was written (the sweep that saw the shift start).
      const schedule =
        job.kind === 'handoff' && g.scheduleId
          ? await prisma.schedule.findUnique({ where: { id: g.scheduleId }, select: { id: true, name: true } })
          : null;
      const notice: Notice = {
        noticeId: g.ids[0]!,
        workspaceId: incident.workspaceId,
        kind: job.kind,
        ...(schedule ? { schedule } : {}),
        incident: {
          ...snapshot(incident),
          acknowledgedAt: incident.acknowledgedAt?.toISOString() ?? null,
          resolvedAt: incident.resolvedAt?.toISOString() ?? null,
        },
        at: (job.kind === 'handoff' ? g.at : statusAt).toISOString(),
      };
      const result: DeliveryOutcome =
        g.secret === null
          ? { status: 'failed', attempts: 0, reason: 'target_unreadable', sentAt: null }
          : await deps.deliverer.notify(g.channel, g.secret, notice);
      await record(g.ids, result);
      // Never the target: URLs and keys are credentials.
      deps.logger.info('escalation notice', {
        incidentId: incident.id,
        noticeIds: g.ids,
        kind: job.kind,
        channel: g.channel,
        status: result.status,
        attempts: result.attempts,
        reason: result.reason,
      });
      return { status: result.status, rows: g.ids.length };
    }),
  );
  const count = (status: DeliveryOutcome['status']) =>
    outcomes.filter((o) => o.status === status).reduce((n, o) => n + o.rows, 0);
  return {
    outcome: 'notified',
    sent: count('sent'),
    failed: count('failed'),
    skipped: count('skipped'),
    duplicates: claimed.length - groups.size,
  };
}

/** The incident as pages and notices show it. */
function snapshot(incident: IncidentRow): IncidentSnapshot {
  return {
    id: incident.id,
    title: incident.title,
    status: incident.status,
    impact: incident.impact,
    source: incident.source,
    startedAt: incident.startedAt.toISOString(),
    monitorId: incident.monitorId,
    metadata: incident.metadata as Record<string, string>,
  };
}
