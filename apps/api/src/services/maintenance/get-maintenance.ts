import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { maintenanceLookup, toMaintenanceRecord, type MaintenanceRecord } from './maintenance-record.js';

/** GET /maintenance/{id}: any role may read. */
export async function getMaintenance(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<MaintenanceRecord> {
  return toMaintenanceRecord(await findOwn(deps.prisma, ctx, maintenanceLookup, input.id), ctx.now);
}
