import { ROLES, type PrismaClient } from '@statusvane/shared';
import { z } from '../../openapi/zod.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findMember, memberRecordSelect, toMemberRecord, type MemberRecord } from './member-record.js';
import { lockMemberForChange } from './owner-rules.js';

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
  const { id } = await findMember(prisma, ctx, userId);
  const row = await prisma.$transaction(async (tx) => {
    await lockMemberForChange(tx, ctx, userId, changes.role);
    await tx.membership.update({ where: { id }, data: { role: changes.role } });
    return tx.membership.findUniqueOrThrow({ where: { id }, select: memberRecordSelect });
  });
  return toMemberRecord(row);
}
