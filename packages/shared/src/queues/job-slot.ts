import type { Job } from 'bullmq';

/** BullMQ 6 names a scheduler's job `repeat:<schedulerId>:<millis>`, the millis being the run's own slot. */
const SCHEDULER_JOB_ID = /^repeat:.+:(\d+)$/;

/**
 * The re-check of a region asked for by fast confirmation (confirmAfterSeconds): its id names the slot it runs for,
 * so adding it twice (a retried or re-run job arms it again) adds one job, and its result has a slot key of its own.
 * BullMQ refuses ':' in custom ids.
 */
export function confirmationJobId(monitorId: string, region: string, slot: Date): string {
  return `confirm-${monitorId}-${region}-${slot.getTime()}`;
}
const CONFIRMATION_JOB_ID = /^confirm-[0-9a-f-]{36}-[a-z0-9-]+-(\d+)$/;

/**
 * The scheduled slot of a job, part of the result's unique key (so a job that runs twice stores one result):
 * - a scheduler's job: the millis in its id. Not `opts.prevMillis` (BullMQ 6.7 leaves it unset for `every`
 *   schedulers) and not `timestamp` (when the job was created: as the previous run started, one interval early);
 * - a re-check (confirmationJobId): the slot in its id, the previous counted result's time plus confirmAfterSeconds;
 * - a one-off job (first check, resume, fail ping): its creation time.
 */
export function slotOf(job: Pick<Job, 'id' | 'opts' | 'timestamp' | 'repeatJobKey'>): Date {
  const scheduled = job.repeatJobKey ? SCHEDULER_JOB_ID.exec(job.id ?? '') : CONFIRMATION_JOB_ID.exec(job.id ?? '');
  if (scheduled) return new Date(Number(scheduled[1]));
  const prev = (job.opts as { prevMillis?: number }).prevMillis;
  return new Date(typeof prev === 'number' && prev > 0 ? prev : job.timestamp);
}
