import {
  createBatchLoader,
  perClient,
  maintenanceCoverage,
  maintenanceWindowsNear,
  pagination,
  type Config,
  type Pagination,
  type PrismaClient,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { monitorFilterWhere, type MonitorListQuery } from './monitor-filters.js';
import { pageWindow } from '../records.js';
import { monitorRecordSelect, toMonitorRecord, type MonitorRecord, type MonitorRow } from './monitor-record.js';

interface PageKey {
  workspaceId: string;
  query: MonitorListQuery;
}

/**
 * Page reads of one event-loop turn (ADR 0008): identical ones (same workspace, filters and page) share one read, the
 * count and the page sent side by side; every call is still answered by reads sent after it was made. The total
 * is counted beside the page, not in one snapshot with it: a monitor created or deleted meanwhile can make the two
 * disagree by that monitor, as the next page would anyway. (Not listPage: its count and page go one after the other
 * in a transaction, and this hot path waits one round trip for both and the maintenance windows.)
 */
const monitorPages = perClient((prisma: PrismaClient) =>
  createBatchLoader<PageKey, { total: number; rows: MonitorRow[] }>(
    async (keys) => {
      const distinct = new Map(keys.map((k) => [pageKeyOf(k), k]));
      const out = new Map<string, { total: number; rows: MonitorRow[] }>();
      await Promise.all(
        [...distinct].map(async ([key, { workspaceId, query }]) => {
          const where = monitorFilterWhere(workspaceId, query);
          const [total, rows] = await Promise.all([
            prisma.monitor.count({ where }),
            prisma.monitor.findMany({
              where,
              select: monitorRecordSelect,
              orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
              ...pageWindow(query),
            }),
          ]);
          out.set(key, { total, rows });
        }),
      );
      return out;
    },
    { keyOf: (k) => pageKeyOf(k) },
  ),
);
const pageKeyOf = (k: PageKey) => JSON.stringify([k.workspaceId, k.query]);

/**
 * A page of the workspace's monitors matching the filters, oldest first (stable under concurrent inserts). The page,
 * its count and the workspace's maintenance windows are read at once (one round trip of waiting).
 */
export async function listMonitors(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl' | 'checkRegions'> },
  { ctx, input: query }: { ctx: ServiceContext; input: MonitorListQuery },
): Promise<{ data: MonitorRecord[]; pagination: Pagination }> {
  const { now } = ctx;
  const [page, windows] = await Promise.all([
    monitorPages(prisma).load({ workspaceId: ctx.workspace.id, query }),
    maintenanceWindowsNear(prisma, ctx.workspace.id, now),
  ]);
  const { total, rows } = page!;
  const until = maintenanceCoverage(
    windows,
    rows.map((r) => r.componentId),
    now,
  );
  return {
    data: rows.map((r) =>
      toMonitorRecord(r, {
        publicBaseUrl: config.publicBaseUrl,
        checkRegions: config.checkRegions,
        maintenanceUntil: until.get(r.componentId) ?? null,
        now,
      }),
    ),
    pagination: pagination(query, total),
  };
}
