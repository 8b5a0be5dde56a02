import type { Job } from 'bullmq';
import {
  SUBSCRIBER_DELIVER_JOB,
  SUBSCRIBER_SWEEP_JOB,
  SUBSCRIBER_SWEEP_MS,
  subscriberDeliverJobSchema,
  type Logger,
  type SubscriberQueue,
} from '@statusvane/shared';
import { deliverSubscriberMessage, RetryDeliveryError, type SubscriberDeliveryDeps } from '../subscribers/deliver.js';
import { sweepSubscribers } from '../subscribers/sweep.js';

/** A sweep looks back this far past its interval, so a late or missed run loses nothing (the keys dedupe). */
const SWEEP_OVERLAP_MS = 10 * 60_000;

/**
 * Status page subscribers: `deliver` sends one stored delivery (a failure that may pass is thrown so BullMQ retries
 * it with backoff); `sweep` turns new public events into deliveries and enqueues them.
 */
export function subscriberProcessor(deps: SubscriberDeliveryDeps & { queue: SubscriberQueue; logger: Logger }) {
  return async (job: Job) => {
    if (job.name === SUBSCRIBER_SWEEP_JOB) {
      const to = (deps.now ?? (() => new Date()))();
      return sweepSubscribers(deps, new Date(to.getTime() - SUBSCRIBER_SWEEP_MS - SWEEP_OVERLAP_MS), to);
    }
    if (job.name !== SUBSCRIBER_DELIVER_JOB) throw new Error(`unknown subscriber job ${job.name}`);
    const { deliveryId } = subscriberDeliverJobSchema.parse(job.data);
    const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const result = await deliverSubscriberMessage(deps, deliveryId, { finalAttempt });
    if (result.outcome === 'retry') throw new RetryDeliveryError(result.reason);
    return result;
  };
}
