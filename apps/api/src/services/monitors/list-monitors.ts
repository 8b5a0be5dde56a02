import { pagination, type Config, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { toRecords } from './get-monitor.js';
import { monitorRecordSelect, type MonitorRecord } from './monitor-record.js';

/** A page of the workspace's monitors, oldest first (stable under concurrent inserts). */
export async function listMonitors(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: MonitorRecord[]; pagination: Pagination }> {
  const where = { workspaceId: ctx.workspace.id };
  const [total, rows] = await prisma.$transaction([
    prisma.monitor.count({ where }),
    prisma.monitor.findMany({
      where,
      select: monitorRecordSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
    }),
  ]);
  return {
    data: await toRecords(prisma, ctx, rows, config.publicBaseUrl),
    pagination: pagination(query, total),
  };
}
