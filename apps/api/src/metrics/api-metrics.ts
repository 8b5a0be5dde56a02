import {
  createHttpMetrics,
  createMetricsRegistry,
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
 * Enabled monitors and the schedulers each region should hold (monitorRegions): http, tcp and dns in each of their
 * `regions` (all unless set), heartbeats in the first region. Grouped by type and stored region list: few groups.
 */
async function expectedSchedules(prisma: PrismaClient, scheduler: CheckScheduler) {
  const groups = await prisma.monitor.groupBy({
    by: ['type', 'regions'],
    where: { enabled: true },
    _count: { _all: true },
  });
  const schedulersPerRegion = new Map<string, number>([...scheduler.queues.keys()].map((r) => [r, 0]));
  let enabledMonitors = 0;
  for (const row of groups) {
    enabledMonitors += row._count._all;
    for (const region of scheduler.regionsFor({ type: row.type, regions: row.regions }))
      schedulersPerRegion.set(region, (schedulersPerRegion.get(region) ?? 0) + row._count._all);
  }
  return { enabledMonitors, schedulersPerRegion };
}

/**
 * Request durations (observed per request, in memory) plus queue depth, oldest waiting job and schedulers against
 * enabled monitors (read from Redis and PostgreSQL only when scraped).
 */
export function createApiMetrics(deps: { prisma: PrismaClient; scheduler: CheckScheduler }): ApiMetrics {
  const registry = createMetricsRegistry({ service: 'api' });
  registerQueueMetrics(registry, {
    queues: deps.scheduler.queues,
    expected: () => expectedSchedules(deps.prisma, deps.scheduler),
  });
  return { registry, ...createHttpMetrics(registry) };
}
