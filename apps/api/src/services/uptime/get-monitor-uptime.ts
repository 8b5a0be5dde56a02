import {
  accountMonitors,
  loadAccountingSettings,
  monitorRegions,
  namedPolicy,
  type Config,
  type PrismaClient,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { monitorLookup } from '../monitors/monitor-record.js';
import { findOwn } from '../records.js';
import { judgeRange, type RangeQuery } from './report-range.js';
import { toMonitorUptime, type MonitorUptimeRecord } from './uptime-record.js';

/**
 * GET /monitors/{id}/uptime: the monitor's seconds up, degraded, down, in maintenance and without data per day, ISO
 * week or month of the timezone, and the uptime the workspace policy makes of them (named in the answer).
 */
export async function getMonitorUptime(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: RangeQuery } },
): Promise<MonitorUptimeRecord> {
  const { id, query } = input;
  const [monitor, settings] = await Promise.all([
    findOwn(prisma, ctx, monitorLookup, id),
    loadAccountingSettings(prisma, ctx.workspace.id),
  ]);
  const range = judgeRange(query, { timezone: settings.timezone, now: ctx.now });
  const accounts = await accountMonitors(prisma, {
    workspaceId: ctx.workspace.id,
    monitors: [{ ...monitor, regions: monitorRegions(config.checkRegions, monitor) }],
    ...range,
    policy: settings,
  });
  return toMonitorUptime(accounts.get(id)!, namedPolicy(settings), range.timezone);
}
