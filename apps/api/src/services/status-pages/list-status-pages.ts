import type { Config, Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { statusPageRecordSelect, toStatusPageRecord, type StatusPageRecord } from './status-page-record.js';

/** GET /status-pages: the workspace's pages, oldest first (stable under concurrent inserts). */
export async function listStatusPages(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: StatusPageRecord[]; pagination: Pagination }> {
  const where = { workspaceId: ctx.workspace.id };
  return listPage(
    deps.prisma,
    query,
    (window) => [
      deps.prisma.statusPage.count({ where }),
      deps.prisma.statusPage.findMany({
        where,
        select: statusPageRecordSelect,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...window,
      }),
    ],
    (rows) => rows.map((r) => toStatusPageRecord(r, deps.config.publicBaseUrl)),
  );
}
