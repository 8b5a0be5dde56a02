import type { Prisma, PrismaClient } from '../db/prisma.js';
import type { Partition } from '../queues/queues.js';
import type { MonitorSource } from './check-scheduler.js';

/** Kinds checked in the first region only (monitorRegions): judged from pings, or from one shared registry answer. */
const FIRST_REGION_ONLY = ['heartbeat', 'domain'] as const;

/**
 * monitorRegions as a filter: the monitors `region` checks, of the deployment's `checkRegions`. http, tcp, dns and api
 * monitors with no regions, with the region among theirs, or with none of theirs left in CHECK_REGIONS; heartbeats and
 * domains in the first region only. Nothing for a region outside CHECK_REGIONS.
 */
export function regionMonitorsWhere(checkRegions: readonly string[], region: string): Prisma.MonitorWhereInput {
  if (!checkRegions.includes(region)) return { id: { in: [] } };
  const probed: Prisma.MonitorWhereInput = {
    type: { notIn: [...FIRST_REGION_ONLY] },
    OR: [
      { regions: { isEmpty: true } },
      { regions: { has: region } },
      { NOT: { regions: { hasSome: [...checkRegions] } } },
    ],
  };
  return { OR: region === checkRegions[0] ? [{ type: { in: [...FIRST_REGION_ONLY] } }, probed] : [probed] };
}

/**
 * The partitions with at least one enabled member, in each of `checkRegions`: a grouped read per region on the
 * partition index, so a reconciler round at 100,000 monitors reads a few hundred rows, not the monitors.
 */
export async function enabledPartitions(prisma: PrismaClient, checkRegions: readonly string[]): Promise<Partition[]> {
  const perRegion = await Promise.all(
    checkRegions.map(async (region) => {
      const groups = await prisma.monitor.groupBy({
        by: ['intervalSeconds', 'checkOffsetMs'],
        where: { enabled: true, ...regionMonitorsWhere(checkRegions, region) },
      });
      return groups.map((g) => ({ everyMs: g.intervalSeconds * 1000, offsetMs: g.checkOffsetMs, region }));
    }),
  );
  return perRegion.flat();
}

/** PostgreSQL as the reconciler's source of truth. */
export function monitorSource(prisma: PrismaClient): MonitorSource {
  return {
    partitions: (checkRegions) => enabledPartitions(prisma, checkRegions),
    current: (ids) =>
      prisma.monitor.findMany({
        where: { id: { in: ids }, enabled: true },
        select: { id: true, intervalSeconds: true, type: true, regions: true },
      }),
  };
}
