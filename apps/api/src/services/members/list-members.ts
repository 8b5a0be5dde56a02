import { pagination, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { memberRecordSelect, toMemberRecord, type MemberRecord } from './member-record.js';

/** GET /members: the workspace's members with their roles, oldest membership first. */
export async function listMembers(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: MemberRecord[]; pagination: Pagination }> {
  const where = { workspaceId: ctx.workspace.id };
  const [total, rows] = await prisma.$transaction([
    prisma.membership.count({ where }),
    prisma.membership.findMany({
      where,
      select: memberRecordSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
    }),
  ]);
  return { data: rows.map(toMemberRecord), pagination: pagination(query, total) };
}
