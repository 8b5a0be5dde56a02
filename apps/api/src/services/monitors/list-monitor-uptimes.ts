import {
  accountMonitorWindows,
  loadAccountingSettings,
  monitorRegions,
  type Config,
  type PrismaClient,
  type SchedulableMonitor,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';

/** The windows the console shows uptime over: the last 24 hours, 7, 30 and 90 days, each up to now. */
export const UPTIME_WINDOWS = ['24h', '7d', '30d', '90d'] as const;
export type UptimeWindow = (typeof UPTIME_WINDOWS)[number];
const HOUR_MS = 3_600_000;
const WINDOW_MS: Record<UptimeWindow, number> = {
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
  '90d': 90 * 24 * HOUR_MS,
};

/** Uptime in percent per window (4 decimals, never rounded up to 100), null where the policy counted nothing. */
export type MonitorUptimes = Record<UptimeWindow, number | null>;

/** What accounting needs of a monitor's row (`regions` as stored, or as monitorRegions made them: the same list). */
export interface UptimeSubject {
  id: string;
  componentId: string;
  createdAt: Date;
  type: SchedulableMonitor['type'];
  regions: readonly string[];
}

/**
 * THE UPTIME SEAM of the console (issue 29): every uptime figure it shows (the monitors list's 24 h column, a
 * monitor's 24 h, 7, 30 and 90 days, `sort=uptime24h`) comes from here, for any number of the workspace's monitors,
 * and here from the one accounting function under the workspace's policy (what GET /monitors/{id}/uptime, the
 * reports and the status page count with), over windows that end now. Another workspace's id counts nothing (all null).
 * A caller that has read the monitors' rows from the workspace already (a page of records, a sort's keys) hands them
 * over as `monitors`, the ids then being theirs: they are not read again.
 */
export async function listMonitorUptimes(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  {
    ctx,
    input,
  }: {
    ctx: ServiceContext;
    input: { windows: readonly UptimeWindow[] } & (
      { monitorIds: readonly string[] } | { monitors: readonly UptimeSubject[] }
    );
  },
): Promise<Map<string, MonitorUptimes>> {
  const empty = (): MonitorUptimes => ({ '24h': null, '7d': null, '30d': null, '90d': null });
  const [given, ids] =
    'monitors' in input ? [input.monitors, input.monitors.map((m) => m.id)] : [null, input.monitorIds];
  const out = new Map(ids.map((id) => [id, empty()]));
  if (out.size === 0 || input.windows.length === 0) return out;
  const [monitors, settings] = await Promise.all([
    given ??
      prisma.monitor.findMany({
        where: { workspaceId: ctx.workspace.id, id: { in: [...out.keys()] } },
        select: { id: true, componentId: true, createdAt: true, type: true, regions: true },
      }),
    loadAccountingSettings(prisma, ctx.workspace.id),
  ]);
  const windows = [...new Set(input.windows)];
  const figures = await accountMonitorWindows(prisma, {
    workspaceId: ctx.workspace.id,
    monitors: monitors.map((m) => ({ ...m, regions: monitorRegions(config.checkRegions, m) })),
    // Whole seconds, as accounting counts them: the second under way is not over yet.
    to: Math.floor(ctx.now.getTime() / 1000) * 1000,
    durationsMs: windows.map((w) => WINDOW_MS[w]),
    policy: settings,
  });
  for (const [id, periods] of figures) {
    const u = out.get(id)!;
    windows.forEach((w, i) => (u[w] = periods[i]!.uptimePercent));
  }
  return out;
}
