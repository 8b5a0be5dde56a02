import type { PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { memberRecordSelect, toMemberRecord, memberLookup } from './member-record.js';
import { lockMemberForChange } from './owner-rules.js';
import { findOwn } from '../records.js';

/**
 * DELETE /members/{userId} (managers): the user leaves the workspace; their personal and OAuth tokens lose access to
 * it on their next request. Only an owner removes an owner (403); the last owner stays (409).
 */
export async function removeMember(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { userId } }: { ctx: ServiceContext; input: { userId: string } },
): Promise<void> {
  assertCan(ctx.role, 'members:manage');
  const { id } = await findOwn(prisma, ctx, memberLookup, userId);
  await prisma.$transaction(async (tx) => {
    await lockMemberForChange(tx, ctx, userId, null);
    await claimVersion(tx, ctx, 'member', userId);
    const before = toMemberRecord(await tx.membership.findUniqueOrThrow({ where: { id }, select: memberRecordSelect }));
    await tx.membership.delete({ where: { id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'member',
      resourceId: userId,
      action: 'deleted',
      changes: changesBetween(before, null),
    });
  });
}
