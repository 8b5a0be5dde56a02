import { Queue, type ConnectionOptions } from 'bullmq';
import { bullPrefix } from '../db/redis.js';

/**
 * The monthly uptime report mails: one queue for all regions and one repeating job (`sweep`, every
 * REPORT_SWEEP_MS) that queues each workspace's scheduled mail when it is due and sends the mails waiting. What makes
 * a scheduled mail go out once per workspace and month is its unique row in PostgreSQL (uptime_report_mails), not
 * the queue: any number of workers may sweep at once.
 */
export const REPORT_QUEUE = 'uptime-reports';
export const REPORT_SWEEP_JOB = 'sweep';
export const REPORT_SWEEP_SCHEDULER = 'uptime-reports-sweep';
export const REPORT_SWEEP_MS = 60_000;

export class UptimeReportQueue {
  readonly queue: Queue;

  constructor(connection: ConnectionOptions, prefix?: string) {
    const keyPrefix = bullPrefix(connection, prefix, REPORT_QUEUE);
    this.queue = new Queue(REPORT_QUEUE, { connection, ...(keyPrefix ? { prefix: keyPrefix } : {}) });
    this.queue.on('error', () => undefined);
  }

  /** The repeating sweep (idempotent: one scheduler id, so every worker may). */
  async ensureSweep(everyMs = REPORT_SWEEP_MS): Promise<void> {
    await this.queue.upsertJobScheduler(
      REPORT_SWEEP_SCHEDULER,
      { every: everyMs },
      { name: REPORT_SWEEP_JOB, data: {}, opts: { removeOnComplete: true, removeOnFail: { count: 100 } } },
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
