import { maintenanceCoverage, type Config, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn, withJsonText } from '../records.js';
import { monitorNowLookup, recordWithJson, type MonitorRecord } from './monitor-record.js';

/** GET /monitors/{id}: the monitor and the maintenance windows covering it, read in one statement (monitorNowLookup). */
export async function getMonitor(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl' | 'checkRegions'> },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<MonitorRecord> {
  const { now } = ctx;
  const { row, windows } = await findOwn(deps.prisma, ctx, monitorNowLookup(now), input.id);
  const until = maintenanceCoverage(windows, [row.componentId], now).get(row.componentId) ?? null;
  // Concurrent reads of one monitor share its row (one batched read), and with it the record and its JSON text (made
  // when the answer is sent as JSON).
  const { record, json } = recordWithJson(row, {
    publicBaseUrl: deps.config.publicBaseUrl,
    checkRegions: deps.config.checkRegions,
    maintenanceUntil: until,
    now,
  });
  return withJsonText(record, json);
}
