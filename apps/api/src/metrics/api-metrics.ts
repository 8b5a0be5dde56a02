import {
  createHttpMetrics,
  createMetricsRegistry,
  enabledPartitions,
  registerQueueMetrics,
  type CheckScheduler,
  type HttpMetrics,
  type PrismaClient,
  type Registry,
} from '@statusvane/shared';

/** The API's Prometheus metrics: one registry per app instance (tests build several in one process). */
export interface ApiMetrics extends HttpMetrics {
  registry: Registry;
}

/**
 * Enabled monitors and the schedulers each region should hold: one per partition of the enabled monitors it checks
 * (enabledPartitions, docs/adr/0020-partitioned-scheduling.md).
 */
async function expectedSchedules(prisma: PrismaClient, scheduler: CheckScheduler) {
  const regions = [...scheduler.partitionQueues.keys()];
  const [enabledMonitors, partitions] = await Promise.all([
    prisma.monitor.count({ where: { enabled: true } }),
    enabledPartitions(prisma, regions),
  ]);
  const schedulersPerRegion = new Map<string, number>(regions.map((r) => [r, 0]));
  for (const p of partitions) schedulersPerRegion.set(p.region, (schedulersPerRegion.get(p.region) ?? 0) + 1);
  return { enabledMonitors, schedulersPerRegion };
}

/**
 * Request durations (observed per request, in memory) plus queue depth, oldest waiting job and schedulers against
 * enabled monitors (read from Redis and PostgreSQL only when scraped).
 */
export function createApiMetrics(deps: { prisma: PrismaClient; scheduler: CheckScheduler }): ApiMetrics {
  const registry = createMetricsRegistry({ service: 'api' });
  registerQueueMetrics(registry, {
    queues: [...deps.scheduler.queues, ...deps.scheduler.partitionQueues],
    expected: () => expectedSchedules(deps.prisma, deps.scheduler),
  });
  return { registry, ...createHttpMetrics(registry) };
}
