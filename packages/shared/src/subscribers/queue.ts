import type { ConnectionOptions } from 'bullmq';
import { z } from 'zod';
import { DeliveryQueue } from '../queues/delivery-queue.js';

/**
 * Status page subscribers are told through one queue for every region. Two kinds of job:
 * - `deliver` `{ deliveryId }`: send one stored SubscriberDelivery (a mail or a signed webhook POST);
 * - `sweep` (a job scheduler, every SUBSCRIBER_SWEEP_MS): find new public events, store one delivery per
 *   subscriber and event, and enqueue every pending delivery.
 */
export const SUBSCRIBER_QUEUE = 'status-subscribers';
export const SUBSCRIBER_DELIVER_JOB = 'deliver';
export const SUBSCRIBER_SWEEP_JOB = 'sweep';
export const SUBSCRIBER_SWEEP_SCHEDULER = 'status-subscribers-sweep';
export const SUBSCRIBER_SWEEP_MS = 20_000;

export const subscriberDeliverJobSchema = z.object({ deliveryId: z.uuid() }).strict();
export type SubscriberDeliverJob = z.infer<typeof subscriberDeliverJobSchema>;

/** Retries of a delivery that failed in a way that may pass (SMTP 4xx, webhook 5xx, timeouts): ~1 h in all. */
export const SUBSCRIBER_DELIVER_OPTS = {
  attempts: 8,
  backoff: { type: 'exponential' as const, delay: 30_000 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 86_400 },
};

/** BullMQ refuses ':' in custom job ids. */
export const subscriberDeliverJobId = (deliveryId: string) => `sub-${deliveryId}`;

export class SubscriberQueue extends DeliveryQueue {
  constructor(connection: ConnectionOptions, prefix?: string) {
    super(
      {
        name: SUBSCRIBER_QUEUE,
        deliverJob: SUBSCRIBER_DELIVER_JOB,
        deliverOpts: SUBSCRIBER_DELIVER_OPTS,
        jobId: subscriberDeliverJobId,
        scheduler: { id: SUBSCRIBER_SWEEP_SCHEDULER, job: SUBSCRIBER_SWEEP_JOB, everyMs: SUBSCRIBER_SWEEP_MS },
      },
      connection,
      prefix,
    );
  }

  /** The repeating job (idempotent: one scheduler id). */
  ensureSweep(everyMs?: number): Promise<void> {
    return this.ensureScheduler(everyMs);
  }
}
