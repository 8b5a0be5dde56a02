import { NotFoundError, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnIncident } from './find-incident.js';

/**
 * DELETE /incidents/{id}: permanent. For a monitor incident the monitor's flap state (its region rows) is reset in the
 * same transaction, so a new incident needs `openThreshold` fresh failures.
 */
export async function deleteIncident(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'incidents:delete');
  const incident = await findOwnIncident(prisma, ctx, id);
  await prisma.$transaction(async (tx) => {
    // Lock order: the monitor row first, then the incident, as the worker does when it stores a result (and as
    // resolve-incident.ts does). The opposite order deadlocks against a check that resolves this incident.
    if (incident.monitorId)
      await tx.$queryRaw`SELECT 1 FROM monitors WHERE id = ${incident.monitorId}::uuid FOR NO KEY UPDATE`;
    // deleteMany: a DELETE that raced this one and won leaves nothing to delete, which is a 404, not a 500.
    const { count } = await tx.incident.deleteMany({ where: { id: incident.id, workspaceId: ctx.workspace.id } });
    if (count === 0) throw new NotFoundError('incident', id);
    if (incident.monitorId) {
      await tx.monitorRegionState.deleteMany({
        where: { monitorId: incident.monitorId, monitor: { workspaceId: ctx.workspace.id } },
      });
    }
  });
}
