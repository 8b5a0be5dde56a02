import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import type { ServiceContext } from '../context.js';
import {
  maintenanceRecordSelect,
  toMaintenanceRecord,
  type MaintenanceRecord,
  type MaintenanceRow,
} from './maintenance-record.js';

/** One of the caller's windows; a malformed or foreign id is the same 404 as a missing one. */
export async function findOwnMaintenance(
  prisma: Pick<PrismaClient, 'maintenanceWindow'>,
  ctx: RequestContext,
  id: string,
): Promise<MaintenanceRow> {
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('maintenance window', id);
  const row = await prisma.maintenanceWindow.findFirst({
    where: { id, workspaceId: ctx.workspace.id },
    select: maintenanceRecordSelect,
  });
  if (!row) throw new NotFoundError('maintenance window', id);
  return row;
}

/** GET /maintenance/{id}: any role may read. */
export async function getMaintenance(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<MaintenanceRecord> {
  return toMaintenanceRecord(await findOwnMaintenance(deps.prisma, ctx, input.id), ctx.now);
}
