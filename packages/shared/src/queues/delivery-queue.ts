import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { bullPrefix } from '../db/redis.js';

export interface DeliveryQueueSpec {
  name: string;
  /** The job that sends one stored delivery, `{ deliveryId }`. */
  deliverJob: string;
  deliverOpts: JobsOptions;
  /** BullMQ refuses ':' in custom job ids. */
  jobId: (deliveryId: string) => string;
  /** The repeating job that turns new events into deliveries. */
  scheduler: { id: string; job: string; everyMs: number };
}

/**
 * A queue of stored deliveries (status page subscribers, event webhooks): one job per delivery, under an id of its
 * own so that one already queued is not added twice, and one job scheduler that finds what to deliver.
 */
export class DeliveryQueue {
  readonly queue: Queue;

  constructor(
    private readonly spec: DeliveryQueueSpec,
    connection: ConnectionOptions,
    prefix?: string,
  ) {
    const keyPrefix = bullPrefix(connection, prefix, spec.name);
    this.queue = new Queue(spec.name, { connection, ...(keyPrefix ? { prefix: keyPrefix } : {}) });
    this.queue.on('error', () => undefined);
  }

  /** Enqueues deliveries; a delivery already queued (same job id) is not added twice. */
  async enqueue(deliveryIds: readonly string[]): Promise<void> {
    if (!deliveryIds.length) return;
    await this.queue.addBulk(
      deliveryIds.map((deliveryId) => ({
        name: this.spec.deliverJob,
        data: { deliveryId },
        opts: { ...this.spec.deliverOpts, jobId: this.spec.jobId(deliveryId) },
      })),
    );
  }

  /** The repeating job (idempotent: one scheduler id). */
  protected async ensureScheduler(everyMs = this.spec.scheduler.everyMs): Promise<void> {
    await this.queue.upsertJobScheduler(
      this.spec.scheduler.id,
      { every: everyMs },
      { name: this.spec.scheduler.job, data: {}, opts: { removeOnComplete: true, removeOnFail: { count: 100 } } },
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
