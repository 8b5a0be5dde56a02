import {
  maintenanceCoverage,
  maintenanceWindowsNear,
  windowInProgress,
  type Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { MONITOR_STATUSES } from './monitor-record.js';

export type MonitorStatusCounts = Record<(typeof MONITOR_STATUSES)[number], number> & { total: number };

/**
 * The workspace's monitors counted by the status their records show (`paused` when disabled, `maintenance` while a
 * window covers their component, else the check status), optionally among those whose name contains `q`. Two
 * grouped counts and the maintenance windows, whatever the number of monitors.
 */
export async function countMonitors(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { q?: string | undefined } },
): Promise<MonitorStatusCounts> {
  const where: Prisma.MonitorWhereInput = {
    workspaceId: ctx.workspace.id,
    // As GET /monitors?q=: `%`, `_` and backslash match themselves.
    ...(input.q ? { name: { contains: input.q.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' } } : {}),
  };
  const [groups, windows] = await Promise.all([
    prisma.monitor.groupBy({ by: ['enabled', 'status'], where, _count: { _all: true } }),
    maintenanceWindowsNear(prisma, ctx.workspace.id, ctx.now),
  ]);
  const counts = Object.fromEntries([...MONITOR_STATUSES.map((s) => [s, 0]), ['total', 0]]) as MonitorStatusCounts;
  for (const g of groups) {
    counts[g.enabled ? g.status : 'paused'] += g._count._all;
    counts.total += g._count._all;
  }
  const inProgress = windows.filter((w) => windowInProgress(w, ctx.now));
  if (inProgress.length === 0) return counts;
  // Enabled monitors under maintenance show `maintenance` instead of their check status.
  const everything = inProgress.some((w) => w.componentIds.length === 0);
  const covered = everything
    ? null
    : [...maintenanceCoverage(inProgress, [...new Set(inProgress.flatMap((w) => w.componentIds))], ctx.now).keys()];
  const under = await prisma.monitor.groupBy({
    by: ['status'],
    where: { ...where, enabled: true, ...(covered ? { componentId: { in: covered } } : {}) },
    _count: { _all: true },
  });
  for (const g of under) {
    counts[g.status] -= g._count._all;
    counts.maintenance += g._count._all;
  }
  return counts;
}
