import { hashToken, randomSecret, type Prisma, type PrismaClient } from '@statusvane/shared';
import { hashPassword } from '../status-pages/password.js';
import { endUserSessions } from './sessions.js';
import { recordUserEvent } from './user-audit.js';

export type PasswordLinkPurpose = 'invite' | 'reset';

/** An invitation link lasts 48 hours, a reset link one hour (§7). */
export const LINK_TTL_MS: Record<PasswordLinkPurpose, number> = { invite: 48 * 3_600_000, reset: 3_600_000 };

/** Where each kind of link opens: under reserved workspace slugs, so no workspace can shadow them. */
export function passwordLinkPath(purpose: PasswordLinkPurpose, token: string): string {
  return `${purpose === 'invite' ? '/app/invite' : '/app/forgot'}/${token}`;
}

/**
 * A new one-time link for the user: 32 random bytes, only their SHA-256 stored. Every older link of the user, of
 * either kind, stops working: the newest mail is the one that counts. Returns the token, to put in the mail.
 */
export async function issuePasswordLink(
  db: Pick<PrismaClient, 'passwordLink'> | Prisma.TransactionClient,
  input: { userId: string; purpose: PasswordLinkPurpose; now: Date },
): Promise<string> {
  const token = randomSecret(32);
  await db.passwordLink.deleteMany({ where: { userId: input.userId } });
  await db.passwordLink.create({
    data: {
      userId: input.userId,
      purpose: input.purpose,
      tokenHash: hashToken(token),
      expiresAt: new Date(input.now.getTime() + LINK_TTL_MS[input.purpose]),
    },
  });
  return token;
}

const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

/** The user a live link of `purpose` is for (to greet them on its page), or null: unknown, used, expired, voided. */
export async function readPasswordLink(
  prisma: PrismaClient,
  input: { purpose: PasswordLinkPurpose; token: string; now: Date },
): Promise<{ email: string } | null> {
  if (!TOKEN_RE.test(input.token)) return null;
  const link = await prisma.passwordLink.findUnique({
    where: { tokenHash: hashToken(input.token) },
    select: { purpose: true, expiresAt: true, user: { select: { email: true } } },
  });
  if (!link || link.purpose !== input.purpose || link.expiresAt <= input.now) return null;
  return { email: link.user.email };
}

/**
 * Sets the password from a link (the caller has judged the password's rules): the link is used up (of two requests
 * with it, one wins), every other link of the user is voided, and every session of the user ends. Null when the link
 * is not live.
 */
export async function setPasswordFromLink(
  prisma: PrismaClient,
  input: { purpose: PasswordLinkPurpose; token: string; password: string; now: Date },
): Promise<{ email: string } | null> {
  if (!(await readPasswordLink(prisma, input))) return null;
  const passwordHash = await hashPassword(input.password);
  return prisma.$transaction(async (tx) => {
    const link = await tx.passwordLink.findUnique({
      where: { tokenHash: hashToken(input.token) },
      select: { id: true, userId: true, purpose: true, expiresAt: true },
    });
    if (!link || link.purpose !== input.purpose || link.expiresAt <= input.now) return null;
    const used = await tx.passwordLink.deleteMany({ where: { id: link.id } });
    if (used.count !== 1) return null;
    await tx.passwordLink.deleteMany({ where: { userId: link.userId } });
    const user = await tx.user.update({
      where: { id: link.userId },
      data: { passwordHash, passwordChangedAt: input.now },
      select: { id: true, email: true, name: true },
    });
    await endUserSessions(tx, user.id);
    await recordUserEvent(tx, user, input.purpose === 'invite' ? 'password_set' : 'password_reset', input.now);
    return { email: user.email };
  });
}
