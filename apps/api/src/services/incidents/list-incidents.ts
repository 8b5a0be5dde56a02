import {
  commaListQueryParam,
  dateTimeInputSchema,
  paginationQuerySchema,
  singleQueryValue,
  uuidInputSchema,
  type Pagination,
  type Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import type { z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { INCIDENT_STATUSES, incidentRecordSelect, toIncidentRecord, type IncidentRecord } from './incident-record.js';

export const RECENTLY_RESOLVED_DAYS = 7;

/** GET /incidents query: pagination and filters, combined with AND. */
export const incidentListQuerySchema = paginationQuerySchema.extend({
  status: commaListQueryParam(INCIDENT_STATUSES).optional(),
  monitorId: singleQueryValue(uuidInputSchema).optional(),
  startedAfter: singleQueryValue(dateTimeInputSchema)
    .optional()
    .meta({ description: 'Incidents that started at or after this instant (ISO 8601 with an offset).' }),
  startedBefore: singleQueryValue(dateTimeInputSchema)
    .optional()
    .meta({ description: 'Incidents that started before this instant (ISO 8601 with an offset).' }),
});
export type IncidentListQuery = z.output<typeof incidentListQuerySchema>;

/**
 * GET /incidents, newest first. Without a filter: open and acknowledged incidents plus those resolved in the last 7
 * days; with `status`, `monitorId` or a date filter, every incident kept that matches them all.
 */
export async function listIncidents(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: IncidentListQuery },
): Promise<{ data: IncidentRecord[]; pagination: Pagination }> {
  const { status, monitorId, startedAfter, startedBefore } = query;
  const filtered = status || monitorId || startedAfter || startedBefore;
  const since = new Date(ctx.now.getTime() - RECENTLY_RESOLVED_DAYS * 86_400_000);
  const where: Prisma.IncidentWhereInput = filtered
    ? {
        workspaceId: ctx.workspace.id,
        ...(status ? { status: { in: status } } : {}),
        ...(monitorId ? { monitorId } : {}),
        ...(startedAfter || startedBefore
          ? {
              startedAt: {
                ...(startedAfter ? { gte: startedAfter } : {}),
                ...(startedBefore ? { lt: startedBefore } : {}),
              },
            }
          : {}),
      }
    : {
        workspaceId: ctx.workspace.id,
        OR: [{ status: { in: ['open', 'acknowledged'] } }, { resolvedAt: { gte: since } }],
      };
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.incident.count({ where }),
      prisma.incident.findMany({
        where,
        select: incidentRecordSelect,
        orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
        ...window,
      }),
    ],
    (rows) => rows.map(toIncidentRecord),
  );
}
