import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { findOwn } from '../records.js';
import { statusPageLookup } from '../status-pages/status-page-record.js';
import { pageSubscriberLookup, toSubscriberRecord } from './subscriber-record.js';

/** DELETE /status-pages/{id}/subscribers/{subscriberId} (managers) -> 204; unknown or foreign: 404. */
export async function deleteSubscriber(
  deps: { prisma: PrismaClient },
  { ctx, input: { id, subscriberId } }: { ctx: ServiceContext; input: { id: string; subscriberId: string } },
): Promise<void> {
  assertCan(ctx.role, 'statusPages:manage');
  const { id: statusPageId } = await findOwn(deps.prisma, ctx, statusPageLookup, id);
  await deps.prisma.$transaction(async (tx) => {
    // (A malformed subscriberId is the claim's 404, before any query.)
    await claimVersion(tx, ctx, 'subscriber', subscriberId);
    // Another page's subscriber (of this workspace) is a 404 too; the claim rolls back with it.
    const before = await findOwn(tx, ctx, pageSubscriberLookup(statusPageId), subscriberId);
    await tx.statusPageSubscriber.delete({ where: { id: subscriberId } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'subscriber',
      resourceId: subscriberId,
      action: 'deleted',
      changes: changesBetween({ statusPageId, ...toSubscriberRecord(before) }, null),
    });
  });
}
