import type { Job } from 'bullmq';

/** BullMQ 6 names a scheduler's job `repeat:<schedulerId>:<millis>`, the millis being the run's own slot. */
const SCHEDULER_JOB_ID = /^repeat:.+:(\d+)$/;

/**
 * One-off check jobs armed for a moment of their own carry it in their id, `<kind>-<monitorId>-<region>-<millis>`,
 * so that arming one twice (a retried or re-run job arms it again) adds one job, and the moment can be read back from
 * the id alone. BullMQ refuses ':' in custom ids.
 */
type TimedJob = 'hb' | 'confirm';
const timedJobId = (kind: TimedJob, monitorId: string, region: string, at: Date) =>
  `${kind}-${monitorId}-${region}-${at.getTime()}`;
const TIMED_JOB_ID = /^(hb|confirm)-[0-9a-f-]{36}-[a-z0-9-]+-(\d+)$/;
function timedJobAt(kind: TimedJob, jobId: string | undefined): Date | null {
  const m = TIMED_JOB_ID.exec(jobId ?? '');
  return m && m[1] === kind ? new Date(Number(m[2])) : null;
}

/**
 * The re-check of a region asked for by fast confirmation (confirmAfterSeconds): its id names the slot it runs for,
 * so its result has a slot key of its own.
 */
export function confirmationJobId(monitorId: string, region: string, slot: Date): string {
  return timedJobId('confirm', monitorId, region, slot);
}

/** The job that evaluates a heartbeat at one deadline. */
export function heartbeatDeadlineJobId(monitorId: string, region: string, at: Date): string {
  return timedJobId('hb', monitorId, region, at);
}

/** The deadline a heartbeat deadline job was armed for, from its id; null for any other job. */
export function heartbeatDeadlineOf(jobId: string | undefined): Date | null {
  return timedJobAt('hb', jobId);
}

/**
 * The scheduled slot of a job, part of the result's unique key (so a job that runs twice stores one result):
 * - a scheduler's job: the millis in its id. Not `opts.prevMillis` (BullMQ 6.7 leaves it unset for `every`
 *   schedulers) and not `timestamp` (when the job was created: as the previous run started, one interval early);
 * - a re-check (confirmationJobId): the slot in its id, the previous counted result's time plus confirmAfterSeconds;
 * - a one-off job (first check, resume, fail ping): its creation time.
 */
export function slotOf(job: Pick<Job, 'id' | 'opts' | 'timestamp' | 'repeatJobKey'>): Date {
  const scheduled = job.repeatJobKey ? SCHEDULER_JOB_ID.exec(job.id ?? '') : null;
  if (scheduled) return new Date(Number(scheduled[1]));
  const recheck = timedJobAt('confirm', job.id);
  if (recheck) return recheck;
  const prev = (job.opts as { prevMillis?: number }).prevMillis;
  return new Date(typeof prev === 'number' && prev > 0 ? prev : job.timestamp);
}
