import { ConflictError, ROLES, type PrismaClient } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { isUniqueViolation } from '../status-pages/create-status-page.js';
import { memberRecordSelect, toMemberRecord, type MemberRecord } from './member-record.js';
import { assertMayGrant } from './owner-rules.js';

export const addMemberSchema = z
  .object({
    email: z
      .email()
      .max(320)
      .transform((e) => e.toLowerCase())
      .openapi({ description: 'Case-insensitive. A user with this address is created when there is none.' }),
    role: z.enum(ROLES).openapi({ description: 'Only an owner may grant `owner`.' }),
  })
  .strict()
  .openapi('AddMemberInput');
export type AddMemberInput = z.output<typeof addMemberSchema>;

/**
 * POST /members (managers): makes the user with this email (created if unknown) a member with `role`. Already a
 * member: 409 (change the role with PATCH). Only an owner grants `owner` (403).
 */
export async function addMember(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: AddMemberInput },
): Promise<MemberRecord> {
  assertCan(ctx.role, 'members:manage');
  assertMayGrant(ctx, input.role);
  try {
    return await prisma.$transaction(async (tx) => {
      const user = await tx.user.upsert({ where: { email: input.email }, create: { email: input.email }, update: {} });
      const row = await tx.membership.create({
        data: { workspaceId: ctx.workspace.id, userId: user.id, role: input.role },
        select: memberRecordSelect,
      });
      const record = toMemberRecord(row);
      await recordAuditEvent(tx, ctx, {
        resourceType: 'member',
        resourceId: user.id,
        action: 'created',
        changes: changesBetween(null, record),
      });
      await ctx.inTransaction?.(tx, record);
      return record;
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ConflictError(`${input.email} is already a member of this workspace`, { reason: 'already_member' });
    throw err;
  }
}
