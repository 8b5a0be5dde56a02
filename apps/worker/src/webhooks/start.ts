import { Worker, type ConnectionOptions } from 'bullmq';
import {
  bullPrefix,
  WEBHOOK_DELIVER_JOB,
  WEBHOOK_DISPATCH_JOB,
  WEBHOOK_QUEUE,
  WebhookQueue,
  webhookDeliverJobSchema,
  webhookRetryDelayMs,
  type Config,
  type Logger,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { deliverWebhookEvent, RetryWebhookError, type WebhookDeliveryDeps } from './deliver.js';
import { dispatchWebhooks } from './dispatch.js';

/**
 * Event webhooks in a worker process: the dispatch scheduler (idempotent, so every worker may ensure it) and a
 * worker for the queue's jobs (docs/events.md). Running jobs of a killed worker go to another once their lock
 * (JOB_LOCK_MS) expires, as checks do. Returns what shutdown closes.
 */
export function startWebhooks(deps: {
  config: Config;
  prisma: PrismaClient;
  connection: ConnectionOptions;
  guard: SsrfGuard;
  logger: Logger;
  /** Tests: the first retry's wait, and the dispatch interval. */
  retryBaseMs?: number;
  dispatchEveryMs?: number;
}): { queue: WebhookQueue; worker: Worker; close(): Promise<void> } {
  const { config, logger, prisma } = deps;
  const queue = new WebhookQueue(deps.connection, config.queuePrefix);
  void queue
    .ensureDispatch(deps.dispatchEveryMs)
    .catch((err: Error) => logger.warn('webhook dispatch not scheduled', { error: err.message }));
  const deliveryDeps: WebhookDeliveryDeps = {
    prisma,
    keyring: config.encryption,
    guard: deps.guard,
    ...(deps.retryBaseMs !== undefined ? { retryBaseMs: deps.retryBaseMs } : {}),
  };
  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job) => {
      if (job.name === WEBHOOK_DISPATCH_JOB) return dispatchWebhooks({ prisma, queue, logger });
      if (job.name !== WEBHOOK_DELIVER_JOB) throw new Error(`unknown webhook job ${job.name}`);
      const { deliveryId } = webhookDeliverJobSchema.parse(job.data);
      const result = await deliverWebhookEvent(deliveryDeps, deliveryId);
      if (result.outcome === 'retry') throw new RetryWebhookError(result.reason);
      return result;
    },
    {
      connection: deps.connection,
      prefix: bullPrefix(deps.connection, config.queuePrefix, WEBHOOK_QUEUE),
      concurrency: 20,
      lockDuration: config.jobLockMs,
      stalledInterval: config.jobLockMs,
      // A delivery whose worker died is run again (at least once); a job stalled more often than this fails and is
      // removed, and the dispatch's overdue sweep enqueues its still-pending delivery again.
      maxStalledCount: 5,
      settings: { backoffStrategy: (attemptsMade: number) => webhookRetryDelayMs(attemptsMade, deps.retryBaseMs) },
    },
  );
  worker.on('error', (err) => logger.error('webhook worker error', { error: err.message }));
  worker.on('failed', (job, err) => {
    if (!(err instanceof RetryWebhookError))
      logger.warn('webhook job failed', { jobId: job?.id, attempts: job?.attemptsMade, error: err.message });
  });
  return {
    queue,
    worker,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
