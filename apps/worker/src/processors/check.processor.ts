import type { Job } from 'bullmq';
import { checkJobSchema } from '@statusvane/shared';
import { runCheck, type CheckOutcome, type CheckRunnerDeps } from '../checks/run-check.js';

/**
 * The scheduled slot of a job: BullMQ's job schedulers record it as `prevMillis`; one-off jobs (first check,
 * resume, fail ping) use their creation time. It is part of the result's unique key, so a job that runs twice
 * stores one result.
 */
export function slotOf(job: Pick<Job, 'opts' | 'timestamp'>): Date {
  const prev = (job.opts as { prevMillis?: number }).prevMillis;
  return new Date(typeof prev === 'number' && prev > 0 ? prev : job.timestamp);
}

/** Thin processor: validates the payload at the boundary, then runs the check. */
export function checkProcessor(deps: CheckRunnerDeps) {
  return async (job: Job): Promise<CheckOutcome> => {
    const payload = checkJobSchema.parse(job.data);
    return runCheck(deps, { monitorId: payload.monitorId, region: payload.region, slot: slotOf(job) });
  };
}
