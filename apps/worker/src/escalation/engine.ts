/**
 * The ladder engine: what a step job does, and what happens when an incident opens. The timing rules are the pure
 * `ladderState` of @statusvane/shared; this module reads and writes the rows and the queue around it.
 *
 * Invariants:
 * - Exactly-once paging per (incident, step, cycle, target): the delivery row is inserted first, under the unique
 *   key, and only the transaction that inserted it sends that page. A job run twice, or two workers racing, find
 *   the rows taken and send nothing. (A worker that dies between the insert and the send leaves the row `pending`:
 *   at most once, never twice.)
 * - No page after an acknowledgement or a resolution: the rows are inserted while holding a share lock on the
 *   incident row after re-reading its status under it, and acknowledging or resolving updates that row, so it
 *   waits for a firing step to commit and every later step sees the new status.
 * - A step fires only if the incident exists and is `open`, the step's time has come in its cycle, its
 *   `minImpact` is at most the incident's impact, and the monitor is not in maintenance. A step that comes due
 *   during maintenance waits for the window's end (then fires if the incident is still open).
 * - After the last step of a cycle (fired, or passed over for its minImpact), the next cycle's jobs are added,
 *   their delays counted from that fire time. Job ids are fixed per (incident, cycle, position): adding twice adds
 *   once.
 */
import {
  impactAtLeast,
  ladderState,
  maintenanceUntilByComponent,
  policyInEffect,
  type EscalationJob,
  type EscalationScheduler,
  type Impact,
  type LadderIncident,
  type Logger,
  type PolicyInEffect,
  type PrismaClient,
} from '@statusvane/shared';
import type { Deliverer } from './deliver/deliverer.js';
import type { Page } from './deliver/page.js';

export interface EscalationDeps {
  prisma: PrismaClient;
  scheduler: EscalationScheduler;
  deliverer: Deliverer;
  logger: Logger;
  /** The clock (tests inject one). */
  now?: () => Date;
}

export type StepOutcome =
  | { outcome: 'stopped'; reason: 'incident deleted' | 'incident acknowledged' | 'incident resolved' }
  | { outcome: 'skipped'; reason: 'no policy' | 'no such step' | 'cycle not reached' | 'below minImpact'; nextCycleScheduled?: boolean }
  | { outcome: 'deferred'; reason: 'not due yet' | 'maintenance'; until: Date }
  | { outcome: 'fired'; sent: number; failed: number; skipped: number; duplicates: number; nextCycleScheduled: boolean };

const incidentSelect = {
  id: true,
  workspaceId: true,
  monitorId: true,
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

function stopped(status: 'acknowledged' | 'resolved'): StepOutcome {
  return { outcome: 'stopped', reason: status === 'acknowledged' ? 'incident acknowledged' : 'incident resolved' };
}

async function deliveriesOf(prisma: PrismaClient, incidentId: string) {
  return prisma.escalationDelivery.findMany({ where: { incidentId }, select: { stepId: true, cycle: true, createdAt: true } });
}

/**
 * When an incident opens: add the jobs of cycle 0, each delayed until startedAt + its step's delay. No policy in
 * effect: nothing. Safe to call twice.
 */
export async function scheduleIncidentLadder(deps: EscalationDeps, incidentId: string): Promise<{ scheduled: number }> {
  const now = deps.now?.() ?? new Date();
  const incident = await deps.prisma.incident.findUnique({ where: { id: incidentId }, select: incidentSelect });
  if (!incident || incident.status !== 'open') return { scheduled: 0 };
  const policy = await policyInEffect(deps.prisma, incident);
  if (!policy || policy.steps.length === 0) return { scheduled: 0 };
  await deps.scheduler.scheduleCycle(incident.id, 0, dueTimes(policy, incident.startedAt), now.getTime());
  return { scheduled: policy.steps.length };
}

/**
 * The sweeper's half of "every open incident has its ladder": re-adds the current cycle's step jobs of every open
 * incident. It covers an incident whose first jobs could not be added when it opened (Redis away at that moment)
 * and delayed jobs lost with Redis data. Job ids are fixed, so jobs still in Redis are not added twice, and a step
 * job that runs again pages nobody twice (delivery rows). Incidents younger than `minAgeMs` are left to the
 * opening hook.
 */
export async function ensureOpenLadders(deps: EscalationDeps, minAgeMs = 60_000): Promise<{ incidents: number; scheduled: number }> {
  const now = deps.now?.() ?? new Date();
  const open = await deps.prisma.incident.findMany({
    where: { status: 'open', startedAt: { lte: new Date(now.getTime() - minAgeMs) } },
    select: incidentSelect,
    orderBy: { startedAt: 'asc' },
    take: 5000,
  });
  let scheduled = 0;
  for (const incident of open) {
    const policy = await policyInEffect(deps.prisma, incident);
    if (!policy || policy.steps.length === 0) continue;
    const state = ladderState(policy, incident, await deliveriesOf(deps.prisma, incident.id), now);
    const anchor = state.anchors[state.cycle];
    if (!anchor || state.exhausted) continue;
    await deps.scheduler.scheduleCycle(incident.id, state.cycle, dueTimes(policy, anchor), now.getTime());
    scheduled += policy.steps.length;
  }
  return { incidents: open.length, scheduled };
}

/** After the last step of `cycle` was handled: add the next cycle's jobs, anchored where the ladder says. */
async function scheduleNextCycle(
  deps: EscalationDeps,
  incident: LadderIncident & { id: string },
  policy: PolicyInEffect,
  job: EscalationJob,
  now: Date,
): Promise<boolean> {
  const last = policy.steps.at(-1);
  if (!last || job.position !== last.position || job.cycle >= policy.repeatCount) return false;
  const state = ladderState(policy, incident, await deliveriesOf(deps.prisma, incident.id), now);
  const anchor = state.anchors[job.cycle + 1];
  if (!anchor) return false;
  await deps.scheduler.scheduleCycle(incident.id, job.cycle + 1, dueTimes(policy, anchor), now.getTime());
  return true;
}

/** Runs one step job (see the module invariants). Never throws for a business reason; a database error does. */
export async function runEscalationStep(deps: EscalationDeps, job: EscalationJob): Promise<StepOutcome> {
  const { prisma } = deps;
  const now = deps.now?.() ?? new Date();
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
    return { outcome: 'skipped', reason: 'below minImpact', nextCycleScheduled: await scheduleNextCycle(deps, incident, policy, job, now) };
  }
  if (row.monitor) {
    const until = (await maintenanceUntilByComponent(prisma, incident.workspaceId, [row.monitor.componentId], now)).get(row.monitor.componentId);
    if (until) return { outcome: 'deferred', reason: 'maintenance', until };
  }

  const inserted = await prisma.$transaction(async (tx) => {
    const [locked] = await tx.$queryRaw<Array<{ status: 'open' | 'acknowledged' | 'resolved' }>>`
      SELECT status FROM incidents WHERE id = ${incident.id}::uuid FOR SHARE`;
    if (!locked) return 'incident deleted' as const;
    if (locked.status !== 'open') return locked.status;
    return tx.escalationDelivery.createManyAndReturn({
      data: step.targets.map((t) => ({
        incidentId: incident.id,
        stepId: step.id,
        targetId: t.id,
        cycle: job.cycle,
        channel: t.channel,
        target: t.target,
        status: policy.silent ? ('skipped' as const) : ('pending' as const),
        reason: policy.silent ? 'silent policy' : null,
        // The step's fire time: the ladder's next cycle is anchored on it.
        createdAt: now,
      })),
      skipDuplicates: true,
      select: { id: true, channel: true, target: true, status: true },
    });
  });
  if (inserted === 'incident deleted') return { outcome: 'stopped', reason: 'incident deleted' };
  if (typeof inserted === 'string') return stopped(inserted);

  // The next cycle is anchored on the rows just written, so it can be scheduled before the (slow) sends.
  const nextCycleScheduled = await scheduleNextCycle(deps, incident, policy, job, now);
  const ours = inserted.filter((d) => d.status === 'pending');
  const page = (deliveryId: string): Page => ({
    deliveryId,
    workspaceId: incident.workspaceId,
    incident: {
      id: incident.id,
      title: incident.title,
      status: incident.status,
      impact: incident.impact,
      source: incident.source,
      startedAt: incident.startedAt.toISOString(),
      monitorId: incident.monitorId,
      metadata: incident.metadata as Record<string, string>,
    },
    policy: { id: policy.id, name: policy.name, runbook: policy.runbook },
    step: { id: step.id, position: step.position, delayMinutes: step.delayMinutes, minImpact: step.minImpact, cycle: job.cycle },
    firedAt: now.toISOString(),
  });
  const outcomes = await Promise.all(
    ours.map(async (d) => {
      const result = await deps.deliverer.deliver(d.channel, d.target, page(d.id));
      await prisma.escalationDelivery.update({ where: { id: d.id }, data: result });
      // Never the target: webhook and Slack URLs are credentials.
      deps.logger.info('escalation delivery', { incidentId: incident.id, deliveryId: d.id, channel: d.channel, cycle: job.cycle, position: step.position, status: result.status, attempts: result.attempts, reason: result.reason });
      return result.status;
    }),
  );
  return {
    outcome: 'fired',
    sent: outcomes.filter((s) => s === 'sent').length,
    failed: outcomes.filter((s) => s === 'failed').length,
    skipped: outcomes.filter((s) => s === 'skipped').length + inserted.length - ours.length,
    duplicates: step.targets.length - inserted.length,
    nextCycleScheduled,
  };
}
