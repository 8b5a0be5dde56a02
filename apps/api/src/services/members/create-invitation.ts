import { ConflictError, type PrismaClient } from '@statusvane/shared';
import { recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { issuePasswordLink } from '../users/password-links.js';
import { canMail, sendPasswordLink, type MailDeps } from '../users/password-mail.js';
import { memberLookup, toMemberRecord, type MemberRecord } from './member-record.js';

/**
 * POST /members/{userId}/invitation (managers): mails the member a new invitation link (48 h) to choose their console
 * password, as POST /members did; the older links stop working. A member who has a password already: 409
 * `password_set` (they use "forgot password"); no mail set up (SMTP_URL): 409 `mail_not_configured` (an operator can
 * print a link with `admin user reset-link`). Audited as `member.invitation_sent`.
 */
export async function createInvitation(
  deps: { prisma: PrismaClient } & MailDeps,
  { ctx, input: { userId } }: { ctx: ServiceContext; input: { userId: string } },
): Promise<MemberRecord> {
  assertCan(ctx.role, 'members:manage');
  const member = await findOwn(deps.prisma, ctx, memberLookup, userId);
  if (member.user.passwordHash)
    throw new ConflictError(`${member.user.email} has a password already: they can reset it from the sign-in page`, {
      reason: 'password_set',
    });
  if (!canMail(deps))
    throw new ConflictError(
      'No mail is set up (SMTP_URL), so no invitation can be sent: an operator can print a link with `npm run admin -- user reset-link`',
      { reason: 'mail_not_configured' },
    );
  // The membership as the API shows it does not change (`edit: false`): its version stays, a PATCH holding it applies.
  const token = await deps.prisma.$transaction(async (tx) => {
    const token = await issuePasswordLink(tx, { userId: member.user.id, purpose: 'invite', now: ctx.now });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'member',
      resourceId: member.user.id,
      action: 'invitation_sent',
      edit: false,
    });
    return token;
  });
  const record = toMemberRecord(member);
  sendPasswordLink(deps, {
    to: record.email,
    purpose: 'invite',
    token,
    workspaceName: ctx.workspace.name,
    invitedBy: ctx.actor.type === 'user' ? ctx.actor.name : undefined,
  });
  return record;
}
