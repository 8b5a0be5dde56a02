import { pagination, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { componentRecordSelect, toComponentRecords, type ComponentRecord } from './component-record.js';

/** GET /components: the workspace's components, oldest first (stable under concurrent inserts). */
export async function listComponents(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: ComponentRecord[]; pagination: Pagination }> {
  const where = { workspaceId: ctx.workspace.id };
  const [total, rows] = await prisma.$transaction([
    prisma.component.count({ where }),
    prisma.component.findMany({
      where,
      select: componentRecordSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
    }),
  ]);
  return { data: await toComponentRecords(prisma, ctx, rows), pagination: pagination(query, total) };
}
