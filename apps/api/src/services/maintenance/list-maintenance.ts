import {
  commaListQueryParam,
  dateTimeInputSchema,
  MAINTENANCE_STATUSES,
  paginationQuerySchema,
  singleQueryValue,
  uuidInputSchema,
  type MaintenanceStatus,
  type Pagination,
  type Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import type { z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { maintenanceRecordSelect, toMaintenanceRecord, type MaintenanceRecord } from './maintenance-record.js';

/** GET /maintenance query: pagination and filters, combined with AND. */
export const maintenanceListQuerySchema = paginationQuerySchema.extend({
  state: commaListQueryParam(MAINTENANCE_STATUSES).optional(),
  componentId: singleQueryValue(uuidInputSchema)
    .optional()
    .meta({ description: 'Windows that affect this component: those naming it and whole-workspace ones.' }),
  activeAt: singleQueryValue(dateTimeInputSchema).optional().meta({
    description:
      'Windows in progress at this instant (ISO 8601 with an offset), cancelled ones excluded from their cancellation on.',
  }),
});
export type MaintenanceListQuery = z.output<typeof maintenanceListQuerySchema>;

/** The windows in `state` at `now`, as maintenanceStatus derives it (cancellation wins over the clock). */
function stateCondition(state: MaintenanceStatus, now: Date): Prisma.MaintenanceWindowWhereInput {
  switch (state) {
    case 'cancelled':
      return { cancelledAt: { not: null } };
    case 'scheduled':
      return { cancelledAt: null, startsAt: { gt: now } };
    case 'in_progress':
      return { cancelledAt: null, startsAt: { lte: now }, endsAt: { gt: now } };
    case 'completed':
      return { cancelledAt: null, endsAt: { lte: now } };
  }
}

/** GET /maintenance: the workspace's windows, newest `startsAt` first. */
export async function listMaintenance(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: MaintenanceListQuery },
): Promise<{ data: MaintenanceRecord[]; pagination: Pagination }> {
  const and: Prisma.MaintenanceWindowWhereInput[] = [];
  if (query.state) and.push({ OR: query.state.map((s) => stateCondition(s, ctx.now)) });
  if (query.componentId)
    and.push({ OR: [{ components: { some: { componentId: query.componentId } } }, { components: { none: {} } }] });
  if (query.activeAt) {
    const t = query.activeAt;
    and.push({ startsAt: { lte: t }, endsAt: { gt: t }, OR: [{ cancelledAt: null }, { cancelledAt: { gt: t } }] });
  }
  const where: Prisma.MaintenanceWindowWhereInput = {
    workspaceId: ctx.workspace.id,
    ...(and.length ? { AND: and } : {}),
  };
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.maintenanceWindow.count({ where }),
      prisma.maintenanceWindow.findMany({
        where,
        select: maintenanceRecordSelect,
        orderBy: [{ startsAt: 'desc' }, { id: 'desc' }],
        ...window,
      }),
    ],
    (rows) => rows.map((r) => toMaintenanceRecord(r, ctx.now)),
  );
}
