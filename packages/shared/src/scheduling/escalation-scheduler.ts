import { Queue, type ConnectionOptions } from 'bullmq';
import { ESCALATION_JOB_NAME, ESCALATION_QUEUE, escalationJobId, type EscalationJob } from '../queues/escalation.js';

const DAY_SECONDS = 86_400;

/**
 * Job options for ladder steps. Finished jobs are kept for a week so that scheduling the same step again (a hook
 * retried, a job that ran twice) finds the id taken and adds nothing; even when a job is added again after that,
 * the delivery rows' unique key keeps paging exactly-once. A job that fails (database away) is retried.
 */
const JOB_OPTS = {
  removeOnComplete: { age: 7 * DAY_SECONDS, count: 50_000 },
  removeOnFail: { age: 7 * DAY_SECONDS, count: 50_000 },
  attempts: 5,
  backoff: { type: 'exponential', delay: 2000 },
};

/** One step job to add: which step of which cycle, due when. */
export interface ScheduledStep {
  position: number;
  dueAt: Date;
}

/** The worker's and the API's view of the escalation queue: add a cycle's step jobs, or remove an incident's. */
export class EscalationScheduler {
  readonly queue: Queue<EscalationJob>;

  constructor(connection: ConnectionOptions, prefix?: string) {
    this.queue = new Queue<EscalationJob>(ESCALATION_QUEUE, { connection, ...(prefix ? { prefix } : {}) });
    // As in CheckScheduler: connection errors reject the calls that hit them; unhandled, the event only prints.
    this.queue.on('error', () => undefined);
  }

  /** Adds one delayed job per step of `cycle` (deterministic ids: adding the same cycle twice adds nothing). */
  async scheduleCycle(incidentId: string, cycle: number, steps: readonly ScheduledStep[], now = Date.now()): Promise<void> {
    await Promise.all(
      steps.map((s) => {
        const data: EscalationJob = { incidentId, cycle, position: s.position };
        return this.queue.add(ESCALATION_JOB_NAME, data, { ...JOB_OPTS, jobId: escalationJobId(data), delay: Math.max(0, s.dueAt.getTime() - now) });
      }),
    );
  }

  /**
   * Best effort: removes the waiting and delayed step jobs of these cycles. Not needed for correctness (a step job
   * re-reads the incident and does nothing once it is not open); it only keeps Redis tidy. Running jobs stay.
   */
  async cancel(incidentId: string, cycles: readonly number[], positions: readonly number[]): Promise<number> {
    const ids = cycles.flatMap((cycle) => positions.map((position) => escalationJobId({ incidentId, cycle, position })));
    const removed = await Promise.all(
      ids.map(async (id) => {
        const job = await this.queue.getJob(id);
        if (!job || !(await job.isDelayed() || await job.isWaiting())) return 0;
        return this.queue.remove(id);
      }),
    );
    return removed.reduce<number>((a, b) => a + b, 0);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
