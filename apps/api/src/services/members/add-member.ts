import { ConflictError, ROLES, type PrismaClient } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { isUniqueViolation } from '../records.js';
import { issuePasswordLink } from '../users/password-links.js';
import { canMail, sendPasswordLink, type MailDeps } from '../users/password-mail.js';
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
 * member: 409 (change the role with PATCH). Only an owner grants `owner` (403). A user without a console password
 * is mailed a one-time link to choose one (48 h), when mail is set up (`mail` deps: the API passes them, the admin
 * CLI does not).
 */
export async function addMember(
  { prisma, ...mail }: { prisma: PrismaClient } & Partial<MailDeps>,
  { ctx, input }: { ctx: ServiceContext; input: AddMemberInput },
): Promise<MemberRecord> {
  assertCan(ctx.role, 'members:manage');
  assertMayGrant(ctx, input.role);
  const mailer = mail.config && mail.logger ? { ...mail, config: mail.config, logger: mail.logger } : null;
  try {
    const { added, invitation } = await prisma.$transaction(async (tx) => {
      const user = await tx.user.upsert({ where: { email: input.email }, create: { email: input.email }, update: {} });
      // The link is stored with the membership (both or neither); the mail leaves after the commit.
      const invitation =
        !user.passwordHash && mailer && canMail(mailer)
          ? await issuePasswordLink(tx, { userId: user.id, purpose: 'invite', now: ctx.now })
          : null;
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
      return { added: record, invitation };
    });
    if (invitation && mailer)
      sendPasswordLink(mailer, {
        to: added.email,
        purpose: 'invite',
        token: invitation,
        workspaceName: ctx.workspace.name,
        invitedBy: ctx.actor.type === 'user' ? ctx.actor.name : undefined,
      });
    return added;
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ConflictError(`${input.email} is already a member of this workspace`, { reason: 'already_member' });
    throw err;
  }
}
