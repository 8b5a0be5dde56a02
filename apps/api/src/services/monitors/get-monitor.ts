import { maintenanceCoverage, maintenanceWindowsNear, type Config, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { monitorLookup, toMonitorRecord, type MonitorRecord } from './monitor-record.js';

/** GET /monitors/{id}: the monitor and its workspace's maintenance windows read at once (two round trips in parallel). */
export async function getMonitor(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl' | 'checkRegions'> },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<MonitorRecord> {
  const { now } = ctx;
  const [row, windows] = await Promise.all([
    findOwn(deps.prisma, ctx, monitorLookup, input.id),
    maintenanceWindowsNear(deps.prisma, ctx.workspace.id, now),
  ]);
  const until = maintenanceCoverage(windows, [row.componentId], now).get(row.componentId) ?? null;
  return toMonitorRecord(row, {
    publicBaseUrl: deps.config.publicBaseUrl,
    checkRegions: deps.config.checkRegions,
    maintenanceUntil: until,
    now,
  });
}
