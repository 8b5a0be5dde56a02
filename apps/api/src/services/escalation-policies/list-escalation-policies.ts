import { pagination, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import {
  escalationPolicySelect,
  livePolicies,
  toEscalationPolicyRecord,
  type EscalationPolicyRecord,
} from './policy-record.js';

/** GET /escalation-policies: the workspace's policies, oldest first (stable under concurrent inserts). */
export async function listEscalationPolicies(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: EscalationPolicyRecord[]; pagination: Pagination }> {
  const where = livePolicies(ctx);
  const [total, rows] = await prisma.$transaction([
    prisma.escalationPolicy.count({ where }),
    prisma.escalationPolicy.findMany({
      where,
      select: escalationPolicySelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
    }),
  ]);
  return { data: rows.map(toEscalationPolicyRecord), pagination: pagination(query, total) };
}
