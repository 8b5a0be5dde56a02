import type { Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { toWallTokenRecord, wallTokenRecordSelect, type WallTokenRecord } from './wall-token-record.js';

/** GET /wall-tokens (managers): the workspace's wall links, oldest first; the tokens themselves are never shown. */
export async function listWallTokens(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: WallTokenRecord[]; pagination: Pagination }> {
  assertCan(ctx.role, 'wallTokens:manage');
  const where = { workspaceId: ctx.workspace.id };
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.wallToken.count({ where }),
      prisma.wallToken.findMany({
        where,
        select: wallTokenRecordSelect,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...window,
      }),
    ],
    (rows) => rows.map(toWallTokenRecord),
  );
}
