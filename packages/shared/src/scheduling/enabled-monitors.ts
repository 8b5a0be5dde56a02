import type { PrismaClient } from '../db/prisma.js';
import type { MonitorSource, SchedulableMonitor } from './check-scheduler.js';

/** Enabled monitors in keyset-paginated batches, so reconciling 100,000 monitors never loads them all at once. */
export async function* enabledMonitorBatches(
  prisma: PrismaClient,
  batchSize = 5000,
): AsyncIterable<SchedulableMonitor[]> {
  let cursor: string | undefined;
  for (;;) {
    const batch = await prisma.monitor.findMany({
      where: { enabled: true, ...(cursor ? { id: { gt: cursor } } : {}) },
      select: { id: true, intervalSeconds: true, type: true, regions: true },
      orderBy: { id: 'asc' },
      take: batchSize,
    });
    if (batch.length === 0) return;
    yield batch;
    cursor = batch[batch.length - 1]!.id;
    if (batch.length < batchSize) return;
  }
}

/** PostgreSQL as the reconciler's source of truth. */
export function monitorSource(prisma: PrismaClient): MonitorSource {
  return {
    enabled: () => enabledMonitorBatches(prisma),
    current: (ids) =>
      prisma.monitor.findMany({
        where: { id: { in: ids }, enabled: true },
        select: { id: true, intervalSeconds: true, type: true, regions: true },
      }),
  };
}
