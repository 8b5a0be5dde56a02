import { Worker, type ConnectionOptions } from 'bullmq';
import {
  SUBSCRIBER_QUEUE,
  SubscriberQueue,
  bullPrefix,
  type Config,
  type Logger,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { createEmailSender } from '@statusvane/shared';
import { subscriberProcessor } from '../processors/subscriber.processor.js';

/**
 * Status page subscriber notifications in a worker process: the queue's sweep scheduler (idempotent, so every
 * worker may ensure it) and a worker for its jobs. Returns what shutdown closes.
 */
export function startSubscribers(deps: {
  config: Config;
  prisma: PrismaClient;
  connection: ConnectionOptions;
  guard: SsrfGuard;
  logger: Logger;
}): { close(): Promise<void> } {
  const { config, logger } = deps;
  const queue = new SubscriberQueue(deps.connection, config.queuePrefix);
  const email = config.smtp ? createEmailSender(config.smtp) : null;
  void queue.ensureSweep().catch((err: Error) => logger.warn('subscriber sweep not scheduled', { error: err.message }));
  const worker = new Worker(
    SUBSCRIBER_QUEUE,
    subscriberProcessor({
      prisma: deps.prisma,
      keyring: config.encryption,
      guard: deps.guard,
      email,
      publicBaseUrl: config.publicBaseUrl,
      queue,
      logger,
    }),
    {
      connection: deps.connection,
      prefix: bullPrefix(deps.connection, config.queuePrefix, SUBSCRIBER_QUEUE),
      concurrency: 10,
    },
  );
  worker.on('error', (err) => logger.error('subscriber worker error', { error: err.message }));
  worker.on('failed', (job, err) =>
    logger.warn('subscriber job failed', { jobId: job?.id, attempts: job?.attemptsMade, error: err.message }),
  );
  return {
    async close() {
      await worker.close();
      await queue.close();
      email?.close();
    },
  };
}
