import type { Job, Worker } from 'bullmq';
import { createCheckMetrics, createMetricsRegistry, type CheckMetrics, type Registry } from '@statusvane/shared';

/** A worker's Prometheus metrics: one registry per instance (tests run several workers in one process). */
export interface WorkerMetrics extends CheckMetrics {
  registry: Registry;
  region: string;
}

export function createWorkerMetrics(region: string): WorkerMetrics {
  const registry = createMetricsRegistry({ service: 'worker' });
  return { registry, region, ...createCheckMetrics(registry) };
}

/**
 * A job that failed for the last time (retries exhausted, or failed as stalled) leaves its slot without a result:
 * count it. BullMQ emits 'failed' for every failed attempt, with `attemptsMade` already incremented.
 */
export function isFinalFailure(job: Pick<Job, 'attemptsMade' | 'opts' | 'finishedOn'> | undefined): boolean {
  if (!job) return false;
  return job.attemptsMade >= (job.opts.attempts ?? 1) || typeof job.finishedOn === 'number';
}

/**
 * A check job that gives up loses its result; a partition job that gives up, those of its members left without one
 * (its error's `unstored`: PartitionIncompleteError).
 */
export function countLostResults(worker: Worker, metrics: WorkerMetrics): void {
  worker.on('failed', (job, err) => {
    const unstored = (err as { unstored?: unknown }).unstored;
    if (isFinalFailure(job))
      metrics.resultsLost.inc({ region: metrics.region }, typeof unstored === 'number' ? unstored : 1);
  });
}
