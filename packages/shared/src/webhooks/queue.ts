import type { ConnectionOptions } from 'bullmq';
import { z } from 'zod';
import type { PrismaClient } from '../db/prisma.js';
import { DeliveryQueue } from '../queues/delivery-queue.js';

/**
 * Event webhooks go through one queue for every region. Two kinds of job:
 * - `dispatch` (a job scheduler, every WEBHOOK_DISPATCH_MS): read each webhook's new events from the log, store one
 *   delivery per event, enqueue them; and enqueue again the pending deliveries whose job was lost. It is the sweep:
 *   the workers fan new events out as soon as they commit, told by PostgreSQL on WEBHOOK_EVENTS_CHANNEL
 *   (apps/worker/src/webhooks/listen.ts), so the job only catches what a notification missed;
 * - `deliver` `{ deliveryId }`: POST one delivery, signed; a failure that may pass is retried with backoff
 *   (webhookRetryDelayMs) until WEBHOOK_RETRY_WINDOW_MS after the delivery was created.
 */
export const WEBHOOK_QUEUE = 'webhooks';
export const WEBHOOK_DELIVER_JOB = 'deliver';
export const WEBHOOK_DISPATCH_JOB = 'dispatch';
export const WEBHOOK_DISPATCH_SCHEDULER = 'webhooks-dispatch';
export const WEBHOOK_DISPATCH_MS = 30_000;
/**
 * The channel an event of a workspace with a webhook notifies on commit (the `events_notify_webhooks` trigger), and a
 * replay too (notifyWebhookDispatch).
 */
export const WEBHOOK_EVENTS_CHANNEL = 'statusvane_webhook_events';
/** Retries stop this long after the delivery was created (the spec: "retried with backoff for 24 h"). */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 3600_000;
/** The custom backoff's name (the worker's `settings.backoffStrategy` computes it). */
export const WEBHOOK_BACKOFF = 'webhook';

export const webhookDeliverJobSchema = z.object({ deliveryId: z.uuid() }).strict();
export type WebhookDeliverJob = z.infer<typeof webhookDeliverJobSchema>;

/**
 * The wait before retry `attemptsMade` (1 after the first failure): `baseMs` doubling each time, at most an hour,
 * so that a receiver down for a day is tried about 30 times (10 s, 20 s, 40 s ... 1 h, 1 h ...).
 */
export function webhookRetryDelayMs(attemptsMade: number, baseMs = 10_000): number {
  return Math.min(baseMs * 2 ** Math.max(0, attemptsMade - 1), 3600_000);
}

/**
 * Job options of a delivery. The retry window, not the attempt count, ends the retries (the processor stops before
 * `attempts` is reached). Jobs are removed when done, so that a delivery still pending whose job was lost (a worker
 * killed more often than `maxStalledCount` allows) can be enqueued again under the same id.
 */
export const WEBHOOK_DELIVER_OPTS = {
  attempts: 100,
  backoff: { type: WEBHOOK_BACKOFF },
  removeOnComplete: true,
  removeOnFail: true,
};

/** BullMQ refuses ':' in custom job ids. */
export const webhookDeliverJobId = (deliveryId: string) => `wh-${deliveryId}`;

export class WebhookQueue extends DeliveryQueue {
  constructor(connection: ConnectionOptions, prefix?: string) {
    super(
      {
        name: WEBHOOK_QUEUE,
        deliverJob: WEBHOOK_DELIVER_JOB,
        deliverOpts: WEBHOOK_DELIVER_OPTS,
        jobId: webhookDeliverJobId,
        scheduler: { id: WEBHOOK_DISPATCH_SCHEDULER, job: WEBHOOK_DISPATCH_JOB, everyMs: WEBHOOK_DISPATCH_MS },
      },
      connection,
      prefix,
    );
  }

  /** The repeating job (idempotent: one scheduler id). */
  ensureDispatch(everyMs?: number): Promise<void> {
    return this.ensureScheduler(everyMs);
  }
}

/**
 * Tells the workers to dispatch now, when the caller's transaction commits (a replay moved a webhook's cursor back:
 * no new event will notify). Events notify by themselves (the `events_notify_webhooks` trigger).
 */
export async function notifyWebhookDispatch(tx: Pick<PrismaClient, '$executeRaw'>): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${WEBHOOK_EVENTS_CHANNEL}, '')`;
}
