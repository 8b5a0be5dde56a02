import { Queue, type ConnectionOptions } from 'bullmq';
import { bullPrefix } from '../db/redis.js';
import {
  ESCALATION_JOB_NAME,
  ESCALATION_NOTICE_JOB_NAME,
  ESCALATION_QUEUE,
  escalationJobId,
  escalationNoticeJobId,
  type EscalationJob,
  type EscalationNoticeJob,
} from '../queues/escalation.js';

const DAY_SECONDS = 86_400;

/**
 * Job options for ladder steps. Finished jobs are kept for a week so that scheduling the same step again (a hook
 * retried, a job that ran twice) finds the id taken and adds nothing; even when a job is added again after that,
 * the delivery rows' unique key keeps paging exactly-once.
 *
 * A job that throws (database away) is retried 10 times, waiting 1 s, 2 s, 4 s ... 256 s (about 8.5 minutes in
 * all). An outage longer than that leaves the job `failed` under its fixed id, where adding it again is a no-op:
 * the sweeper (`scheduleCycle(..., { recoverFailed: true })`) moves such a job back to waiting, with its attempts
 * reset, every housekeeping round until it succeeds. So the retries stay short (a page is late by at most about
 * the last backoff after the database returns) and no step is ever given up on while its incident is open.
 */
export const ESCALATION_JOB_OPTS = {
  removeOnComplete: { age: 7 * DAY_SECONDS, count: 50_000 },
  removeOnFail: { age: 7 * DAY_SECONDS, count: 50_000 },
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
};

/** One step job to add: which step of which cycle, due when. */
export interface ScheduledStep {
  position: number;
  dueAt: Date;
}

/** The worker's and the API's view of the escalation queue: add a cycle's step jobs, or remove an incident's. */
export class EscalationScheduler {
  readonly queue: Queue<EscalationJob | EscalationNoticeJob>;

  constructor(connection: ConnectionOptions, prefix?: string) {
    const keyPrefix = bullPrefix(connection, prefix, ESCALATION_QUEUE);
    this.queue = new Queue<EscalationJob | EscalationNoticeJob>(ESCALATION_QUEUE, {
      connection,
      ...(keyPrefix ? { prefix: keyPrefix } : {}),
    });
    // As in CheckScheduler: connection errors reject the calls that hit them; unhandled, the event only prints.
    this.queue.on('error', () => undefined);
  }

  /**
   * Adds one delayed job per step of `cycle` (deterministic ids: adding the same cycle twice adds nothing). With
   * `recoverFailed` (the sweeper), a job of the cycle found `failed` (its retries ran out) is moved back to waiting
   * with its attempts reset: adding it could not, since its id is taken. Returns how many were recovered.
   */
  async scheduleCycle(
    incidentId: string,
    cycle: number,
    steps: readonly ScheduledStep[],
    now = Date.now(),
    opts: { recoverFailed?: boolean } = {},
  ): Promise<{ recovered: number }> {
    const recovered = await Promise.all(
      steps.map(async (s) => {
        const data: EscalationJob = { incidentId, cycle, position: s.position };
        const jobId = escalationJobId(data);
        await this.queue.add(ESCALATION_JOB_NAME, data, {
          ...ESCALATION_JOB_OPTS,
          jobId,
          delay: Math.max(0, s.dueAt.getTime() - now),
        });
        return opts.recoverFailed && (await this.retryIfFailed(jobId)) ? 1 : 0;
      }),
    );
    return { recovered: recovered.reduce<number>((a, b) => a + b, 0) };
  }

  /**
   * Makes sure one step job will run (again) soon: a failed one is retried, a completed one is removed and added
   * anew, a missing one is added; one that is waiting, delayed or running is left alone. The sweeper uses it for
   * a step whose stored deliveries were never sent. Returns whether it changed anything.
   */
  rerunStep(job: EscalationJob): Promise<boolean> {
    return this.rerun(ESCALATION_JOB_NAME, job, escalationJobId(job));
  }

  /**
   * Makes sure the job that sends an incident's pending notices of one kind (acknowledged / resolved) will run
   * soon, as `rerunStep` does for a step: the API asks once it has acknowledged or resolved, the sweeper for
   * notices still unclaimed (a monitor that recovered in the worker, Redis away when the API asked, a notice added
   * after the job ran). Notices are claimed row by row, so a job that runs again sends nothing twice.
   */
  sendNotices(job: EscalationNoticeJob): Promise<boolean> {
    return this.rerun(ESCALATION_NOTICE_JOB_NAME, job, escalationNoticeJobId(job));
  }

  private async rerun(name: string, data: EscalationJob | EscalationNoticeJob, jobId: string): Promise<boolean> {
    const state = await this.queue.getJobState(jobId);
    if (state === 'failed') return this.retryIfFailed(jobId);
    if (state === 'completed') await this.queue.remove(jobId);
    else if (state !== 'unknown') return false;
    await this.queue.add(name, data, { ...ESCALATION_JOB_OPTS, jobId });
    return true;
  }

  private async retryIfFailed(jobId: string): Promise<boolean> {
    if ((await this.queue.getJobState(jobId)) !== 'failed') return false;
    const job = await this.queue.getJob(jobId);
    if (!job) return false;
    try {
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    } catch {
      // Retried by someone else in the meantime (no longer failed): nothing to do.
      return false;
    }
  }

  /**
   * Best effort: removes the waiting and delayed step jobs of these cycles. Not needed for correctness (a step job
   * re-reads the incident and does nothing once it is not open); it only keeps Redis tidy. Running jobs stay.
   */
  async cancel(incidentId: string, cycles: readonly number[], positions: readonly number[]): Promise<number> {
    const ids = cycles.flatMap((cycle) =>
      positions.map((position) => escalationJobId({ incidentId, cycle, position })),
    );
    const removed = await Promise.all(
      ids.map(async (id) => {
        const job = await this.queue.getJob(id);
        if (!job || !((await job.isDelayed()) || (await job.isWaiting()))) return 0;
        return this.queue.remove(id);
      }),
    );
    return removed.reduce<number>((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
