import type { Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { memberRecordSelect, toMemberRecord, type MemberRecord } from './member-record.js';

/** GET /members: the workspace's members with their roles, oldest membership first. */
export async function listMembers(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: MemberRecord[]; pagination: Pagination }> {
  const where = { workspaceId: ctx.workspace.id };
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.membership.count({ where }),
      prisma.membership.findMany({
        where,
        select: memberRecordSelect,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...window,
      }),
    ],
    (rows) => rows.map(toMemberRecord),
  );
}
