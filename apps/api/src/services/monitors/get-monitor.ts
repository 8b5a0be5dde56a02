import { maintenanceCoverage, maintenanceWindowsNear, type Config, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn, withJsonText } from '../records.js';
import { monitorLookup, recordWithJson, type MonitorRecord } from './monitor-record.js';

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
  // Concurrent reads of one monitor share its row (one batched read), and with it the record and its JSON text.
  const { record, json } = recordWithJson(row, {
    publicBaseUrl: deps.config.publicBaseUrl,
    checkRegions: deps.config.checkRegions,
    maintenanceUntil: until,
    now,
  });
  return withJsonText(record, json);
}
