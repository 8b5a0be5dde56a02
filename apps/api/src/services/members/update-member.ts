import { ROLES, type PrismaClient } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { memberRecordSelect, toMemberRecord, type MemberRecord, memberLookup } from './member-record.js';
import { lockMemberForChange } from './owner-rules.js';
import { findOwn } from '../records.js';

export const updateMemberSchema = z
  .object({ role: z.enum(ROLES).openapi({ description: 'Only an owner grants or removes `owner`.' }) })
  .strict()
  .openapi('UpdateMemberInput');
export type UpdateMemberInput = z.output<typeof updateMemberSchema>;

/**
 * PATCH /members/{userId} (managers): changes the member's role, effective on their next request. Only an owner
 * grants or removes `owner` (403); the last owner cannot be demoted (409).
 */
export async function updateMember(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { userId, changes } }: { ctx: ServiceContext; input: { userId: string; changes: UpdateMemberInput } },
): Promise<MemberRecord> {
  assertCan(ctx.role, 'members:manage');
  const { id } = await findOwn(prisma, ctx, memberLookup, userId);
  return prisma.$transaction(async (tx) => {
    // The owner rules first (they lock the owners' rows, then the member's, in that order), then If-Match.
    await lockMemberForChange(tx, ctx, userId, changes.role);
    await claimVersion(tx, ctx, 'member', userId);
    const before = toMemberRecord(await tx.membership.findUniqueOrThrow({ where: { id }, select: memberRecordSelect }));
    const after = toMemberRecord(
      await tx.membership.update({ where: { id }, data: { role: changes.role }, select: memberRecordSelect }),
    );
    // A role set to what it was changes nothing: no version, no event (as every PATCH).
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'member',
      resourceId: userId,
      changes: changesBetween(before, after),
    });
    return { ...after, version: version ?? after.version };
  });
}
