import type { Job } from 'bullmq';
import {
  WEBHOOK_DELIVER_JOB,
  WEBHOOK_DISPATCH_JOB,
  webhookDeliverJobSchema,
  type Logger,
  type WebhookQueue,
} from '@statusvane/shared';
import {
  deliverWebhookEvent,
  RetryWebhookError,
  type WebhookDeliveryDeps,
  type WebhookDeliveryResult,
} from '../webhooks/deliver.js';
import { dispatchWebhooks, type DispatchOutcome } from '../webhooks/dispatch.js';

/**
 * Event webhooks (docs/events.md): `dispatch` fans new events out into stored deliveries and enqueues them; `deliver`
 * sends one (a failure that may pass is thrown, so BullMQ retries it with the webhook backoff).
 */
export function webhookProcessor(deps: WebhookDeliveryDeps & { queue: WebhookQueue; logger: Logger }) {
  return async (job: Job): Promise<WebhookDeliveryResult | DispatchOutcome> => {
    if (job.name === WEBHOOK_DISPATCH_JOB) return dispatchWebhooks(deps);
    if (job.name !== WEBHOOK_DELIVER_JOB) throw new Error(`unknown webhook job ${job.name}`);
    const { deliveryId } = webhookDeliverJobSchema.parse(job.data);
    const result = await deliverWebhookEvent(deps, deliveryId);
    if (result.outcome === 'retry') throw new RetryWebhookError(result.reason);
    return result;
  };
}
