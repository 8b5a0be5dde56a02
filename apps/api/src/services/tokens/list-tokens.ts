import { pagination, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { apiTokenRecordSelect, liveOrgTokens, toApiTokenRecord, type ApiTokenRecord } from './token-record.js';

/** GET /tokens (managers): the workspace's org tokens that are not deleted, oldest first. */
export async function listTokens(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: ApiTokenRecord[]; pagination: Pagination }> {
  assertCan(ctx.role, 'tokens:manage');
  const where = liveOrgTokens(ctx.workspace.id);
  const [total, rows] = await prisma.$transaction([
    prisma.apiToken.count({ where }),
    prisma.apiToken.findMany({
      where,
      select: apiTokenRecordSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
    }),
  ]);
  return { data: rows.map(toApiTokenRecord), pagination: pagination(query, total) };
}
