import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnPageId } from './own-page.js';
import { subscriberSelect, toSubscriberRecord } from './subscriber-record.js';

/** DELETE /status-pages/{id}/subscribers/{subscriberId} (managers) -> 204; unknown or foreign: 404. */
export async function deleteSubscriber(
  deps: { prisma: PrismaClient },
  { ctx, input: { id, subscriberId } }: { ctx: ServiceContext; input: { id: string; subscriberId: string } },
): Promise<void> {
  assertCan(ctx.role, 'statusPages:manage');
  const statusPageId = await findOwnPageId(deps.prisma, ctx, id);
  if (!uuidSchema.safeParse(subscriberId).success) throw new NotFoundError('subscriber', subscriberId);
  await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'subscriber', subscriberId);
    const before = await tx.statusPageSubscriber.findFirst({
      where: { id: subscriberId, statusPageId },
      select: subscriberSelect,
    });
    // Another page's subscriber (of this workspace) is a 404 too; the claim rolls back with it.
    if (!before) throw new NotFoundError('subscriber', subscriberId);
    await tx.statusPageSubscriber.delete({ where: { id: subscriberId } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'subscriber',
      resourceId: subscriberId,
      action: 'deleted',
      changes: changesBetween({ statusPageId, ...toSubscriberRecord(before) }, null),
    });
  });
}
