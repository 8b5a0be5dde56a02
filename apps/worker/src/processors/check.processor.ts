import type { Job } from 'bullmq';
import {
  checkJobSchema,
  heartbeatDeadlineOf,
  PARTITION_JOB_NAME,
  partitionJobSchema,
  slotOf,
  type Partition,
  type TraceSpan,
} from '@statusvane/shared';
import { recordSkippedSlots, startedLate } from '../checks/missed-slots.js';
import {
  readPartitionMembers,
  runCheck,
  type CheckOutcome,
  type CheckRunnerDeps,
  type PartitionMember,
} from '../checks/run-check.js';
import type { LagWatch } from '../metrics/lag-watch.js';
import { measureCheck } from '../metrics/measure-check.js';
import type { WorkerMetrics } from '../metrics/worker-metrics.js';
import { traceCheck } from '../telemetry/check-spans.js';

/** A scheduler's job: its interval (ms). Null for one-off jobs (first check, re-check, heartbeat deadline). */
export function scheduledEveryMs(job: Pick<Job, 'repeatJobKey' | 'opts'>): number | null {
  // A scheduler's jobs carry its repeat options (BullMQ types them internal only).
  const every = job.repeatJobKey ? (job.opts as { repeat?: { every?: unknown } }).repeat?.every : undefined;
  return typeof every === 'number' && every > 0 ? every : null;
}

/**
 * A scheduled check whose job started an interval or more after its slot (startedLate), on a first attempt: BullMQ
 * may have skipped slots after it, to be recorded missed. `startedAt`: when its job started (a partition's member may
 * start later, waiting for the process's limit, while the partition's next jobs run on time and check those slots
 * themselves); `nextSlot`: its scheduler's next slot.
 */
interface LateStart {
  everyMs: number;
  startedAt: Date;
  nextSlot: () => Promise<Date | null>;
}

/** What one check runs with: the processor's deps, and its metrics and lag watch when the runtime gives them. */
interface CheckContext {
  deps: CheckRunnerDeps;
  metrics?: WorkerMetrics | undefined;
  lag?: LagWatch | undefined;
}

/**
 * One check of one monitor for one slot, as a `check` job or a partition's member runs it: traced, measured, and, when
 * its caller found its job late (`scheduled.late`), with the slots BullMQ skipped meanwhile recorded as missed
 * (missed-slots.ts): no slot is run late to catch up. `lag` hears how late each scheduled check started.
 */
async function runOneCheck(
  { deps, metrics, lag }: CheckContext,
  check: {
    monitorId: string;
    region: string;
    slot: Date;
    firstAttempt: boolean;
    notBefore?: Date | null;
    monitor?: PartitionMember;
    /** A scheduled check; `late` when its job started late (LateStart), decided by the caller from the job's start. */
    scheduled?: { late: LateStart | null };
    /** When the check starts, if its caller read the clock for it already (a `check` job: its job's start). */
    startedAt?: Date;
  },
): Promise<CheckOutcome> {
  const { monitorId, region, slot, scheduled } = check;
  const startedAt = check.startedAt ?? deps.now?.() ?? new Date();
  if (scheduled) lag?.started(Math.max(0, startedAt.getTime() - slot.getTime()));
  const run = (d: CheckRunnerDeps): Promise<CheckOutcome> =>
    traceCheck(d.tracing, { monitorId, region, slot }, (span) => probe(d, span));
  // Only a check whose job started late has anything missed to record, and only then waits on that beside its own run.
  const late = scheduled?.late ?? null;
  // A span per check when tracing (telemetry/check-spans.ts), its context the http check's traceparent.
  const probe = async (d: CheckRunnerDeps, span: TraceSpan | null): Promise<CheckOutcome> => {
    const checked = runCheck(d, {
      monitorId,
      region,
      slot,
      notBefore: check.notBefore ?? null,
      span,
      ...(check.monitor ? { monitor: check.monitor } : {}),
    });
    if (!late) return checked;
    const [outcome, missedSlots] = await Promise.all([
      checked,
      // A failure loses only those rows (no data either way), never the check: logged, not thrown.
      recordSkippedSlots(
        d,
        {
          monitorId,
          region,
          slot,
          everyMs: late.everyMs,
          startedAt: late.startedAt,
          since: check.monitor?.scheduledSince ?? null,
        },
        late.nextSlot,
      ).catch((err: Error) => {
        d.logger.warn('missed slots not recorded', { monitorId, error: err.message });
        return 0;
      }),
    ]);
    return missedSlots > 0 && 'result' in outcome ? { ...outcome, missedSlots } : outcome;
  };
  const outcome = metrics
    ? await measureCheck(metrics, deps, { region, slot, firstAttempt: check.firstAttempt }, run)
    : await run(deps);
  lag?.finished({ checked: 'result' in outcome, missedSlots: 'result' in outcome ? outcome.missedSlots : 0 });
  return outcome;
}

/**
 * Thin processor of one `check` job (a one-off check, or a scheduler of one monitor from before partitions):
 * validates the payload at the boundary, then runs the check (measured when given metrics). A scheduled check that
 * starts more than an interval late still runs (BullMQ's FIFO queue then checks every monitor once per round, so the
 * lateness is shared evenly), and the slots BullMQ skipped meanwhile are recorded as missed.
 */
export function checkProcessor(deps: CheckRunnerDeps, metrics?: WorkerMetrics, lag?: LagWatch) {
  return async (job: Job): Promise<CheckOutcome> => {
    const payload = checkJobSchema.parse(job.data);
    const everyMs = scheduledEveryMs(job);
    const slot = slotOf(job);
    const startedAt = deps.now?.() ?? new Date();
    const outcome = await runOneCheck(
      { deps, metrics, lag },
      {
        ...payload,
        slot,
        startedAt,
        firstAttempt: job.attemptsMade === 0,
        notBefore: heartbeatDeadlineOf(job.id),
        ...(everyMs === null
          ? {}
          : {
              scheduled: {
                // First attempts only: BullMQ moves the scheduler on as a job first starts, so then its next slot is
                // still ahead; by a retry's time that next job may be running, and its slot must not be recorded
                // missed under it.
                late:
                  job.attemptsMade === 0 && deps.schedules !== undefined && startedLate({ slot, everyMs, startedAt })
                    ? {
                        everyMs,
                        startedAt,
                        nextSlot: async () =>
                          (await deps.schedules?.nextScheduledSlot(payload.monitorId, payload.region)) ?? null,
                      }
                    : null,
              },
            }),
      },
    );
    return withSummaryForRedis(outcome);
  };
}

/** Runs at most `n` of the functions given at once, the others in the order they came. */
export function createLimit(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    running--;
    waiting.shift()?.();
  };
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn();
    } finally {
      next();
    }
  };
}

/**
 * A partition job some of whose members could not be stored: BullMQ tries it again, for those members only; one that
 * gives up counts them in statusvane_check_results_lost_total (countLostResults).
 */
export class PartitionIncompleteError extends Error {
  constructor(
    /** Members left without a result for the slot. */
    readonly unstored: number,
    cause: Error,
  ) {
    super(`${unstored} check(s) of the partition not stored: ${cause.message}`);
  }
}

/** What a partition job returns (and, as JSON, what BullMQ keeps of it in Redis). */
export interface PartitionOutcome {
  partition: Partition;
  slot: Date;
  /** Members run by this attempt (a retry leaves out those already stored for the slot). */
  members: number;
  /** Their outcomes, by monitor id (the worker's own `completed` listeners; not sent to Redis). */
  outcomes: Map<string, CheckOutcome>;
}

/**
 * The job of a partition's scheduler (docs/adr/0020-partitioned-scheduling.md): the checks due at one slot of every
 * monitor of one interval and offset in one region, read in one statement at run time, each run as a `check` job runs
 * it (runOneCheck) under the process's limit of checks at once (`limit`). A re-run of the job (a retry, or a job moved
 * back after its worker stalled or died) first reads which members already have a result for the slot and runs only
 * the others: each slot is stored once by the result's unique key anyway, so this spares a second probe. A member whose
 * result cannot be stored fails the job once the others are stored, and BullMQ tries it again with backoff.
 */
export function partitionProcessor(
  deps: CheckRunnerDeps,
  limit: <T>(fn: () => Promise<T>) => Promise<T>,
  metrics?: WorkerMetrics,
  lag?: LagWatch,
) {
  return async (job: Job): Promise<PartitionOutcome> => {
    const partition = partitionJobSchema.parse(job.data);
    const slot = slotOf(job);
    const rerun = job.attemptsMade > 0 || (job.stalledCounter ?? 0) > 0;
    let members = await readPartitionMembers(deps, partition, slot);
    if (rerun && members.length > 0) {
      const stored = await storedAt(deps, partition.region, slot, members);
      members = members.filter((m) => !stored.has(m.id));
    }
    // Whether BullMQ skipped slots of this partition is judged by when its job started, not by when each member's
    // check does: members waiting for the process's limit start later, while the partition's next jobs run on time
    // and check those slots themselves. A job that starts late reads its scheduler's next slot at once (one read
    // shared by its members), before a later job of the partition can move it further.
    const startedAt = deps.now?.() ?? new Date();
    const schedules = rerun ? undefined : deps.schedules;
    const late = schedules !== undefined && startedLate({ slot, everyMs: partition.everyMs, startedAt });
    let lateStart: LateStart | null = null;
    if (late) {
      const next = schedules.nextPartitionSlot(partition);
      // Its failure is each late member's to log (runOneCheck): not an unhandled rejection meanwhile.
      next.catch(() => undefined);
      lateStart = { everyMs: partition.everyMs, startedAt, nextSlot: () => next };
    }
    const outcomes = new Map<string, CheckOutcome>();
    const settled = await Promise.allSettled(
      members.map((monitor) =>
        limit(async () => {
          const outcome = await runOneCheck(
            { deps, metrics, lag },
            {
              monitorId: monitor.id,
              region: partition.region,
              slot,
              firstAttempt: job.attemptsMade === 0,
              monitor,
              scheduled: { late: lateStart },
            },
          );
          outcomes.set(monitor.id, outcome);
        }),
      ),
    );
    const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed.length > 0) throw new PartitionIncompleteError(failed.length, failed[0]!.reason as Error);
    const result: PartitionOutcome = { partition, slot, members: members.length, outcomes };
    return Object.defineProperty(result, 'toJSON', { value: () => ({ members: members.length }) });
  };
}

/** The members that already have a result for the slot in the region (a re-run of their partition's job). */
async function storedAt(
  deps: Pick<CheckRunnerDeps, 'prisma'>,
  region: string,
  slot: Date,
  members: ReadonlyArray<{ id: string }>,
): Promise<Set<string>> {
  const rows = await deps.prisma.checkResult.findMany({
    where: { monitorId: { in: members.map((m) => m.id) }, region, slot },
    select: { monitorId: true },
  });
  return new Set(rows.map((r) => r.monitorId));
}

/**
 * The processor of a check queue: partition jobs and `check` jobs (one-off checks, and the per-monitor schedulers of
 * the previous release until the reconciler removes them), told apart by the job's name.
 */
export function checksProcessor(
  deps: CheckRunnerDeps,
  limit: <T>(fn: () => Promise<T>) => Promise<T>,
  metrics?: WorkerMetrics,
  lag?: LagWatch,
) {
  const partition = partitionProcessor(deps, limit, metrics, lag);
  const check = checkProcessor(deps, metrics, lag);
  return (job: Job): Promise<CheckOutcome | PartitionOutcome> =>
    job.name === PARTITION_JOB_NAME ? partition(job) : check(job);
}

/**
 * The outcome, whose JSON (what BullMQ sends to Redis as the job's return value, and Redis copies into the queue's
 * event stream) is a summary: BullMQ serialises a return value twice a job, and the whole outcome (timings,
 * certificate, counters) is in PostgreSQL already. The worker's own `completed` listeners still get the object itself.
 */
export function withSummaryForRedis(outcome: CheckOutcome): CheckOutcome {
  const summary =
    'skipped' in outcome ? { skipped: outcome.skipped } : { outcome: outcome.result.outcome, stored: outcome.stored };
  return Object.defineProperty(outcome, 'toJSON', { value: () => summary });
}
