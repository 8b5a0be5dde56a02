import { pagination, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnPageId } from './own-page.js';
import { subscriberSelect, toSubscriberRecord, type SubscriberRecord } from './subscriber-record.js';

/** GET /status-pages/{id}/subscribers (managers): newest first, addresses masked; never a token or secret. */
export async function listSubscribers(
  deps: { prisma: PrismaClient },
  { ctx, input: { id, query } }: { ctx: ServiceContext; input: { id: string; query: PaginationQuery } },
): Promise<{ data: SubscriberRecord[]; pagination: Pagination }> {
  assertCan(ctx.role, 'statusPages:manage');
  const { prisma } = deps;
  const where = { statusPageId: await findOwnPageId(prisma, ctx, id), workspaceId: ctx.workspace.id };
  const [total, rows] = await prisma.$transaction([
    prisma.statusPageSubscriber.count({ where }),
    prisma.statusPageSubscriber.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
      select: subscriberSelect,
    }),
  ]);
  return { data: rows.map(toSubscriberRecord), pagination: pagination(query, total) };
}
