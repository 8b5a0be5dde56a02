import { hotQuery, hotStatement, maintenanceWindowsNear, type PrismaClient } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import {
  maintenanceCoverOf,
  monitorFilterWhere,
  narrowsMonitors,
  withMonitorFilters,
  type MonitorFilters,
} from './monitor-filters.js';
import { MONITOR_STATUSES } from './monitor-record.js';

/** GET /monitors/counts query: the filters of GET /monitors, without pages or order. */
export const monitorCountsQuerySchema = withMonitorFilters(z.object({}));

const count = z.number().int().min(0);
export const monitorStatusCountsSchema = z
  .object({
    ...(Object.fromEntries(MONITOR_STATUSES.map((s) => [s, count])) as Record<
      (typeof MONITOR_STATUSES)[number],
      typeof count
    >),
    total: count.openapi({ description: 'Every monitor the filters match: the sum of the statuses.' }),
  })
  .openapi('MonitorStatusCounts');
export type MonitorStatusCounts = z.infer<typeof monitorStatusCountsSchema>;

type MonitorStatusCount = (typeof MONITOR_STATUSES)[number];

/** The unfiltered counts (the console's monitors page): a hot statement (ADR 0021), as the unfiltered list's page. */
const WORKSPACE_STATUS_COUNTS = hotStatement(`
  SELECT m.enabled, m.status::text AS status, count(*)::int AS n FROM monitors m WHERE m."workspaceId" = $1
  GROUP BY m.enabled, m.status`);

/**
 * GET /monitors/counts: the workspace's monitors matching the filters, counted by the status their records show
 * (`paused` when disabled, `maintenance` while a window covers their component, else the check status): the counts
 * GET /monitors?status=<s> with the same filters would total. Two grouped counts and the maintenance windows,
 * whatever the number of monitors.
 */
export async function countMonitors(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: MonitorFilters },
): Promise<MonitorStatusCounts> {
  // Counted without the status filter, which then keeps the statuses it names.
  const { status: only, ...filters } = input;
  const where = monitorFilterWhere(ctx.workspace.id, filters, null);
  const [groups, windows] = await Promise.all([
    narrowsMonitors(where)
      ? prisma.monitor
          .groupBy({ by: ['enabled', 'status'], where, _count: { _all: true } })
          .then((gs) => gs.map((g) => ({ enabled: g.enabled, status: g.status, n: g._count._all })))
      : hotQuery<{ enabled: boolean; status: MonitorStatusCount; n: number }>(prisma, WORKSPACE_STATUS_COUNTS, [
          ctx.workspace.id,
        ]),
    maintenanceWindowsNear(prisma, ctx.workspace.id, ctx.now),
  ]);
  const counts = Object.fromEntries([...MONITOR_STATUSES.map((s) => [s, 0]), ['total', 0]]) as MonitorStatusCounts;
  for (const g of groups) counts[g.enabled ? g.status : 'paused'] += g.n;
  const cover = maintenanceCoverOf(windows, ctx.now);
  if (cover.all || cover.componentIds.length) {
    // Enabled monitors under maintenance show `maintenance` instead of their check status.
    const under = await prisma.monitor.groupBy({
      by: ['status'],
      where: { AND: [where, { enabled: true }, cover.all ? {} : { componentId: { in: cover.componentIds } }] },
      _count: { _all: true },
    });
    for (const g of under) {
      counts[g.status] -= g._count._all;
      counts.maintenance += g._count._all;
    }
  }
  for (const s of MONITOR_STATUSES) {
    if (only && !only.includes(s)) counts[s] = 0;
    counts.total += counts[s];
  }
  return counts;
}
