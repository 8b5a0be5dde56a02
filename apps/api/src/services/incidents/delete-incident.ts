import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { toIncidentRecord, incidentLookup } from './incident-record.js';
import { findOwn } from '../records.js';

/**
 * DELETE /incidents/{id}: permanent. For a monitor incident the monitor's flap state (its region rows) is reset in the
 * same transaction, so a new incident needs `openThreshold` fresh failures.
 */
export async function deleteIncident(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'incidents:delete');
  const incident = await findOwn(prisma, ctx, incidentLookup, id);
  await prisma.$transaction(async (tx) => {
    // Lock order: the monitor row first, then the incident, as the worker does when it stores a result (and as
    // resolve-incident.ts does). The opposite order deadlocks against a check that resolves this incident.
    if (incident.monitorId)
      await tx.$queryRaw`SELECT 1 FROM monitors WHERE id = ${incident.monitorId}::uuid FOR NO KEY UPDATE`;
    // The If-Match check and the incident's lock; a DELETE that raced this one and won leaves a 404, not a 500.
    await claimVersion(tx, ctx, 'incident', incident.id);
    const before = await findOwn(tx, ctx, incidentLookup, incident.id);
    await tx.incident.delete({ where: { id: incident.id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'incident',
      resourceId: incident.id,
      action: 'deleted',
      changes: changesBetween(toIncidentRecord(before), null),
    });
    if (incident.monitorId) {
      await tx.monitorRegionState.deleteMany({
        where: { monitorId: incident.monitorId, monitor: { workspaceId: ctx.workspace.id } },
      });
    }
  });
}
