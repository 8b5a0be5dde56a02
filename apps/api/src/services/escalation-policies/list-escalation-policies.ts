import type { Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
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
  const where = livePolicies(ctx.workspace.id);
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.escalationPolicy.count({ where }),
      prisma.escalationPolicy.findMany({
        where,
        select: escalationPolicySelect,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        ...window,
      }),
    ],
    (rows) => rows.map(toEscalationPolicyRecord),
  );
}
