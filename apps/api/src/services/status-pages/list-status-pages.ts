import { pagination, type Config, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { statusPageRecordSelect, toStatusPageRecord, type StatusPageRecord } from './status-page-record.js';

/** GET /status-pages: the workspace's pages, oldest first (stable under concurrent inserts). */
export async function listStatusPages(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: StatusPageRecord[]; pagination: Pagination }> {
  const where = { workspaceId: ctx.workspace.id };
  const [total, rows] = await deps.prisma.$transaction([
    deps.prisma.statusPage.count({ where }),
    deps.prisma.statusPage.findMany({
      where,
      select: statusPageRecordSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
    }),
  ]);
  return {
    data: rows.map((r) => toStatusPageRecord(r, deps.config.publicBaseUrl)),
    pagination: pagination(query, total),
  };
}
