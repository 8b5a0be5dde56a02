import type { PrismaClient } from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findMember } from './member-record.js';
import { lockMemberForChange } from './owner-rules.js';

/**
 * DELETE /members/{userId} (managers): the user leaves the workspace; their personal and OAuth tokens lose access to
 * it on their next request. Only an owner removes an owner (403); the last owner stays (409).
 */
export async function removeMember(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { userId } }: { ctx: ServiceContext; input: { userId: string } },
): Promise<void> {
  assertCan(ctx.role, 'members:manage');
  const { id } = await findMember(prisma, ctx, userId);
  await prisma.$transaction(async (tx) => {
    await lockMemberForChange(tx, ctx, userId, null);
    await tx.membership.delete({ where: { id } });
  });
}
