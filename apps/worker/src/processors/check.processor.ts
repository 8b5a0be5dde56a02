import type { Job } from 'bullmq';
import { checkJobSchema, heartbeatDeadlineOf, slotOf, type TraceSpan } from '@statusvane/shared';
import { recordSkippedSlots } from '../checks/missed-slots.js';
import { runCheck, type CheckOutcome, type CheckRunnerDeps } from '../checks/run-check.js';
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
 * Thin processor: validates the payload at the boundary, then runs the check (measured when given metrics). A
 * scheduled check that starts more than an interval late still runs (BullMQ's FIFO queue then checks every monitor
 * once per round, so the lateness is shared evenly), and the slots BullMQ skipped meanwhile are recorded as missed
 * (missed-slots.ts): no slot is run late to catch up. `lag` hears how late each scheduled check started.
 */
export function checkProcessor(deps: CheckRunnerDeps, metrics?: WorkerMetrics, lag?: LagWatch) {
  return async (job: Job): Promise<CheckOutcome> => {
    const payload = checkJobSchema.parse(job.data);
    const slot = slotOf(job);
    const startedAt = deps.now?.() ?? new Date();
    const everyMs = scheduledEveryMs(job);
    if (everyMs !== null) lag?.started(Math.max(0, startedAt.getTime() - slot.getTime()));
    const notBefore = heartbeatDeadlineOf(job.id);
    const run = (d: CheckRunnerDeps): Promise<CheckOutcome> =>
      traceCheck(d.tracing, { ...payload, slot }, (span) => check(d, span));
    // A span per check when tracing (telemetry/check-spans.ts), its context the http check's traceparent.
    const check = async (d: CheckRunnerDeps, span: TraceSpan | null): Promise<CheckOutcome> => {
      const [outcome, missedSlots] = await Promise.all([
        runCheck(d, { monitorId: payload.monitorId, region: payload.region, slot, notBefore, span }),
        // First attempts only: BullMQ moves the scheduler on as a job first starts, so then its next slot is still
        // ahead; by a retry's time that next job may be running, and its slot must not be recorded missed under it.
        // A failure loses only those rows (no data either way), never the check: logged, not thrown.
        everyMs === null || job.attemptsMade > 0
          ? 0
          : recordSkippedSlots(d, { ...payload, slot, everyMs, startedAt }).catch((err: Error) => {
              d.logger.warn('missed slots not recorded', { monitorId: payload.monitorId, error: err.message });
              return 0;
            }),
      ]);
      return missedSlots > 0 && 'result' in outcome ? { ...outcome, missedSlots } : outcome;
    };
    const outcome = metrics
      ? await measureCheck(metrics, deps, { region: payload.region, slot, firstAttempt: job.attemptsMade === 0 }, run)
      : await run(deps);
    lag?.finished({ checked: 'result' in outcome, missedSlots: 'result' in outcome ? outcome.missedSlots : 0 });
    return withSummaryForRedis(outcome);
  };
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
