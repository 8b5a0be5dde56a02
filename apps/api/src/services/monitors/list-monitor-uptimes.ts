import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { uptimePercent } from '../status-pages/uptime.js';
import { lastDayWindow } from './monitor-rollups.js';

/** The windows the console shows uptime over: the last 24 hours, and the last 7, 30 and 90 UTC days. */
export const UPTIME_WINDOWS = ['24h', '7d', '30d', '90d'] as const;
export type UptimeWindow = (typeof UPTIME_WINDOWS)[number];
const WINDOW_DAYS = { '7d': 7, '30d': 30, '90d': 90 } as const;
const DAY_MS = 86_400_000;

/** Uptime in percent per window, null where nothing was counted. */
export type MonitorUptimes = Record<UptimeWindow, number | null>;

/**
 * THE UPTIME SEAM (issue 29). Every uptime figure of the console (the monitors list's 24 h column, a monitor's 24 h,
 * 7, 30 and 90 days) and `GET /monitors?sort=uptime24h` come from here, for any number of the workspace's monitors.
 * Issue 29's accounting function (time-based, with the workspace's accounting policy) replaces the body once it is on
 * main; until then it is the figure status pages show today (`uptimePercent` of services/status-pages/uptime.ts: the
 * share of checks that were not down) over the rollups, not a computation of its own. Keep callers on this verb so
 * the swap is one file.
 */
export async function listMonitorUptimes(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { monitorIds: readonly string[]; windows: readonly UptimeWindow[] } },
): Promise<Map<string, MonitorUptimes>> {
  const ids = [...input.monitorIds];
  const out = new Map(ids.map((id) => [id, { '24h': null, '7d': null, '30d': null, '90d': null } as MonitorUptimes]));
  if (ids.length === 0) return out;
  const day = lastDayWindow(ctx.now);
  const today = Math.floor(ctx.now.getTime() / DAY_MS) * DAY_MS;
  const since = (days: number) => new Date(today - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  // Scoped by the workspace through the monitors: another workspace's id counts nothing. Grouped by the uuid, not its
  // text (16 bytes to compare, not 36: for a whole workspace sorted by uptime, 24 rows of each of 10,000 monitors).
  const wants = (...w: UptimeWindow[]) => w.some((x) => input.windows.includes(x));
  const longest = Math.max(0, ...input.windows.map((w) => (w === '24h' ? 0 : WINDOW_DAYS[w])));
  const [hourly, daily] = await Promise.all([
    !wants('24h')
      ? []
      : prisma.$queryRaw<Array<{ id: string; total: number; down: number }>>`
      SELECT r."monitorId"::text AS id, sum(r.total)::int AS total, sum(r."downCount")::int AS down
      FROM check_rollups_hourly r JOIN monitors m ON m.id = r."monitorId" AND m."workspaceId" = ${ctx.workspace.id}::uuid
      WHERE r."monitorId" = ANY(${ids}::uuid[]) AND r.hour >= ${day.from} AND r.hour < ${day.to}
      GROUP BY r."monitorId"`,
    !wants('7d', '30d', '90d')
      ? []
      : prisma.$queryRaw<
          Array<{ id: string; t7: number; d7: number; t30: number; d30: number; t90: number; d90: number }>
        >`
      SELECT r."monitorId"::text AS id,
        (sum(r.total) FILTER (WHERE r.day >= ${since(7)}::date))::int AS t7,
        (sum(r."downCount") FILTER (WHERE r.day >= ${since(7)}::date))::int AS d7,
        (sum(r.total) FILTER (WHERE r.day >= ${since(30)}::date))::int AS t30,
        (sum(r."downCount") FILTER (WHERE r.day >= ${since(30)}::date))::int AS d30,
        sum(r.total)::int AS t90, sum(r."downCount")::int AS d90
      FROM check_rollups_daily r JOIN monitors m ON m.id = r."monitorId" AND m."workspaceId" = ${ctx.workspace.id}::uuid
      WHERE r."monitorId" = ANY(${ids}::uuid[])
        AND r.day >= ${since(longest)}::date
      GROUP BY r."monitorId"`,
  ]);
  for (const r of hourly) out.get(r.id)!['24h'] = uptimePercent(r.total, r.down);
  for (const r of daily) {
    const u = out.get(r.id)!;
    if (wants('7d')) u['7d'] = uptimePercent(r.t7 ?? 0, r.d7 ?? 0);
    if (wants('30d')) u['30d'] = uptimePercent(r.t30 ?? 0, r.d30 ?? 0);
    if (wants('90d')) u['90d'] = uptimePercent(r.t90, r.d90);
  }
  return out;
}
