import type { Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { apiTokenRecordSelect, liveOrgTokens, toApiTokenRecord, type ApiTokenRecord } from './token-record.js';

/** GET /tokens (managers): the workspace's org tokens that are not deleted, oldest first. */
export async function listTokens(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: ApiTokenRecord[]; pagination: Pagination }> {
  assertCan(ctx.role, 'tokens:manage');
  const where = liveOrgTokens(ctx.workspace.id);
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.apiToken.count({ where }),
      prisma.apiToken.findMany({
        where,
        select: apiTokenRecordSelect,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...window,
      }),
    ],
    (rows) => rows.map(toApiTokenRecord),
  );
}
