import type { PrismaClient } from '@statusvane/shared';
import { hashPassword, verifyPassword } from '../status-pages/password.js';
import { isPlausiblePassword } from './password-policy.js';
import { endUserSessions, startSession } from './sessions.js';
import { recordUserEvent } from './user-audit.js';

/**
 * Account page, "Change password" (the caller has judged the new password's rules): the current password is asked
 * again; every session of the user ends, and the browser that asked gets a new one (returned: its cookie).
 * Null when the current password is wrong.
 */
export async function changePassword(
  prisma: PrismaClient,
  input: { userId: string; current: string; next: string; now: Date; userAgent?: string | undefined },
): Promise<{ token: string; expiresAt: Date } | null> {
  const user = await prisma.user.findUniqueOrThrow({
    where: { id: input.userId },
    select: { id: true, email: true, name: true, passwordHash: true },
  });
  if (!user.passwordHash || !isPlausiblePassword(input.current)) return null;
  if (!(await verifyPassword(input.current, user.passwordHash))) return null;
  const passwordHash = await hashPassword(input.next);
  return prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: user.id }, data: { passwordHash, passwordChangedAt: input.now } });
    await endUserSessions(tx, user.id);
    await recordUserEvent(tx, user, 'password_changed', input.now);
    return startSession(tx, { userId: user.id, now: input.now, userAgent: input.userAgent });
  });
}
