import { Worker, type Processor, type WorkerOptions } from 'bullmq';
import { bullPrefix, type Logger, type RedisClient } from '@statusvane/shared';

export interface QueueWorkerOptions extends Omit<WorkerOptions, 'connection' | 'prefix'> {
  /** Names the worker in its log lines (`<label> worker error`, `<label> job failed`). */
  label: string;
  /** A failure that is a retry by design (BullMQ's backoff runs the job again): not logged. */
  expectedFailure?: (err: Error) => boolean;
}

/**
 * The one way the worker runs a BullMQ queue: on the runtime's connection, under the deployment's key prefix (a hash
 * tag per queue on a Redis Cluster: bullPrefix), with its connection errors and failed jobs logged.
 */
export function startQueueWorker(
  ctx: { connection: RedisClient; queuePrefix: string; logger: Logger },
  queueName: string,
  processor: Processor,
  { label, expectedFailure, ...options }: QueueWorkerOptions,
): Worker {
  const { connection, logger } = ctx;
  const worker = new Worker(queueName, processor, {
    ...options,
    connection,
    prefix: bullPrefix(connection, ctx.queuePrefix, queueName),
  });
  worker.on('error', (err) => logger.error(`${label} worker error`, { error: err.message }));
  worker.on('failed', (job, err) => {
    if (!expectedFailure?.(err))
      logger.warn(`${label} job failed`, { jobId: job?.id, attempts: job?.attemptsMade, error: err.message });
  });
  return worker;
}
