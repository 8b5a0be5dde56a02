import { recordMaintenanceCancelled, type PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { maintenanceEventWindow, maintenanceLookup, toMaintenanceRecord } from './maintenance-record.js';
import { isFinal, maintenanceStatus } from './maintenance-status.js';

/**
 * DELETE /maintenance/{id} (managers): the window leaves the status pages, feeds and lists at once (a cancel keeps
 * it on the public record; a delete is for a window that should never have been published). One deleted while
 * scheduled or in progress is called off as a cancel is: the event log and webhooks get `maintenance.cancelled`
 * (they were told it was coming or had started), and the monitors it covered leave maintenance at once (their
 * status, `maintenanceUntil` and incident opening follow the windows that remain). A completed or cancelled window
 * goes without an event: its story is told.
 */
export async function deleteMaintenance(
  deps: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'statusPages:manage');
  const window = await findOwn(deps.prisma, ctx, maintenanceLookup, id);
  await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'maintenance_window', window.id); // If-Match, and the row locked
    const row = await findOwn(tx, ctx, maintenanceLookup, window.id);
    if (!isFinal(maintenanceStatus(row, ctx.now)))
      await recordMaintenanceCancelled(tx, { ...maintenanceEventWindow(row, ctx.workspace.id), cancelledAt: ctx.now });
    await tx.maintenanceWindow.delete({ where: { id: row.id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'maintenance_window',
      resourceId: row.id,
      action: 'deleted',
      changes: changesBetween(toMaintenanceRecord(row, ctx.now), null),
    });
  });
}
