import { pagination, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { incidentRecordSelect, toIncidentRecord, type IncidentRecord } from './incident-record.js';

export const RECENTLY_RESOLVED_DAYS = 7;

/** GET /incidents: open and acknowledged incidents, plus those resolved in the last 7 days, newest first. */
export async function listIncidents(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: PaginationQuery },
): Promise<{ data: IncidentRecord[]; pagination: Pagination }> {
  const since = new Date(ctx.now.getTime() - RECENTLY_RESOLVED_DAYS * 86_400_000);
  const where = {
    workspaceId: ctx.workspace.id,
    OR: [{ status: { in: ['open' as const, 'acknowledged' as const] } }, { resolvedAt: { gte: since } }],
  };
  const [total, rows] = await prisma.$transaction([
    prisma.incident.count({ where }),
    prisma.incident.findMany({
      where,
      select: incidentRecordSelect,
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
    }),
  ]);
  return { data: rows.map(toIncidentRecord), pagination: pagination(query, total) };
}
