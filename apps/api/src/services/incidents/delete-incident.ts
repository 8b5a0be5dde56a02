import type { PrismaClient } from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnIncident } from './find-incident.js';

/**
 * DELETE /incidents/{id}: permanent. For a monitor incident the monitor's flap counters go back to zero in the
 * same transaction, so a new incident needs `openThreshold` fresh failures.
 */
export async function deleteIncident(prisma: PrismaClient, { ctx, id }: { ctx: RequestContext; id: string }): Promise<void> {
  assertCan(ctx.role, 'incidents:delete');
  const incident = await findOwnIncident(prisma, ctx, id);
  await prisma.$transaction(async (tx) => {
    await tx.incident.delete({ where: { id: incident.id } });
    if (incident.monitorId) {
      await tx.monitor.updateMany({
        where: { id: incident.monitorId, workspaceId: ctx.workspace.id },
        data: { consecutiveFailures: 0, consecutivePasses: 0 },
      });
    }
  });
}
