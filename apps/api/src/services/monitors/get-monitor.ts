import {
  createBatchLoader,
  perClient,
  maintenanceCoverage,
  maintenanceWindowsNear,
  NotFoundError,
  uuidSchema,
  type Config,
  type PrismaClient,
} from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import type { ServiceContext } from '../context.js';
import { monitorRecordSelect, toMonitorRecord, type MonitorRecord, type MonitorRow } from './monitor-record.js';

/**
 * Monitor reads of one event-loop turn in one query, each still scoped by its own workspace: a row answers only the
 * (id, workspaceId) pair that asked for it.
 */
const monitorRows = perClient((prisma: PrismaClient) =>
  createBatchLoader<{ id: string; workspaceId: string }, MonitorRow>(
    async (keys) => {
      const rows = await prisma.monitor.findMany({
        where: { OR: keys },
        select: { ...monitorRecordSelect, workspaceId: true },
      });
      return new Map(rows.map(({ workspaceId, ...row }) => [`${workspaceId}/${row.id}`, row]));
    },
    { keyOf: (k) => `${k.workspaceId}/${k.id}` },
  ),
);

/** Loads one of the caller's monitors; a malformed or foreign id is the same 404 as a missing one. */
export async function findOwnMonitor(
  prisma: PrismaClient,
  ctx: RequestContext,
  id: string,
): Promise<MonitorRow & { workspaceId?: string }> {
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('monitor', id);
  const row = await monitorRows(prisma).load({ id, workspaceId: ctx.workspace.id });
  if (!row) throw new NotFoundError('monitor', id);
  return row;
}

/** GET /monitors/{id}: the monitor and its workspace's maintenance windows read at once (two round trips in parallel). */
export async function getMonitor(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl' | 'checkRegions'> },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<MonitorRecord> {
  const { now } = ctx;
  const [row, windows] = await Promise.all([
    findOwnMonitor(deps.prisma, ctx, input.id),
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
