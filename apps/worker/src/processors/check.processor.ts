import type { Job } from 'bullmq';
import { checkJobSchema, heartbeatDeadlineOf, slotOf } from '@statusvane/shared';
import { runCheck, type CheckOutcome, type CheckRunnerDeps } from '../checks/run-check.js';
import { measureCheck } from '../metrics/measure-check.js';
import type { WorkerMetrics } from '../metrics/worker-metrics.js';

/** Thin processor: validates the payload at the boundary, then runs the check (measured when given metrics). */
export function checkProcessor(deps: CheckRunnerDeps, metrics?: WorkerMetrics) {
  return async (job: Job): Promise<CheckOutcome> => {
    const payload = checkJobSchema.parse(job.data);
    const slot = slotOf(job);
    const notBefore = heartbeatDeadlineOf(job.id);
    const run = (d: CheckRunnerDeps) =>
      runCheck(d, { monitorId: payload.monitorId, region: payload.region, slot, notBefore });
    if (!metrics) return run(deps);
    return measureCheck(metrics, deps, { region: payload.region, slot, firstAttempt: job.attemptsMade === 0 }, run);
  };
}
