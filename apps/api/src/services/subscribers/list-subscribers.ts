import type { Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { assertCan } from '../auth/permissions.js';
import { findOwn, listPage } from '../records.js';
import { statusPageLookup } from '../status-pages/status-page-record.js';
import { subscriberSelect, toSubscriberRecord, type SubscriberRecord } from './subscriber-record.js';

/** GET /status-pages/{id}/subscribers (managers): newest first, addresses masked; never a token or secret. */
export async function listSubscribers(
  deps: { prisma: PrismaClient },
  { ctx, input: { id, query } }: { ctx: ServiceContext; input: { id: string; query: PaginationQuery } },
): Promise<{ data: SubscriberRecord[]; pagination: Pagination }> {
  assertCan(ctx.role, 'statusPages:manage');
  const { prisma } = deps;
  const page = await findOwn(prisma, ctx, statusPageLookup, id);
  const where = { statusPageId: page.id, workspaceId: ctx.workspace.id };
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.statusPageSubscriber.count({ where }),
      prisma.statusPageSubscriber.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        select: subscriberSelect,
        ...window,
      }),
    ],
    (rows) => rows.map(toSubscriberRecord),
  );
}
