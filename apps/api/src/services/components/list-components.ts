import type { Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { componentRecordSelect, toComponentRecords, type ComponentRecord } from './component-record.js';

/** GET /components: the workspace's components, oldest first (stable under concurrent inserts). */
export async function listComponents(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: ComponentRecord[]; pagination: Pagination }> {
  const where = { workspaceId: ctx.workspace.id };
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.component.count({ where }),
      prisma.component.findMany({
        where,
        select: componentRecordSelect,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...window,
      }),
    ],
    (rows) => toComponentRecords(prisma, ctx, rows),
  );
}
