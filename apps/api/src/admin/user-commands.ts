import { z } from 'zod';
import { parseOrThrow, type PrismaClient } from '@statusvane/shared';
import { cliActor } from '../services/audit/record-write.js';
import { issuePasswordLink, LINK_TTL_MS, passwordLinkPath } from '../services/users/password-links.js';
import { resetTotp } from '../services/users/two-factor.js';
import { findUser } from './admin-commands.js';

const emailOption = z
  .object({
    email: z
      .email()
      .max(320)
      .transform((e) => e.toLowerCase()),
  })
  .strict();

/**
 * user reset-link --email: a one-time link to set a console password, printed instead of mailed (a deployment
 * without SMTP_URL, or a mail that never came). A user with a password gets a reset link (1 h); one without, an
 * invitation link (48 h). Like every link, it voids the user's older ones.
 */
export async function userResetLink(prisma: PrismaClient, raw: unknown, opts: { publicBaseUrl: string }) {
  const input = parseOrThrow(emailOption, raw, 'arguments');
  const user = await findUser(prisma, input.email);
  const purpose = user.passwordHash ? 'reset' : 'invite';
  const now = new Date();
  const token = await issuePasswordLink(prisma, { userId: user.id, purpose, now });
  return {
    email: user.email,
    purpose,
    url: `${opts.publicBaseUrl}${passwordLinkPath(purpose, token)}`,
    expiresAt: new Date(now.getTime() + LINK_TTL_MS[purpose]).toISOString(),
  };
}

/**
 * user reset-2fa --email: turns off the user's second factor (for one who lost their authenticator and recovery
 * codes), deletes the recovery codes and ends every session; audited in each of their workspaces with the CLI as actor.
 */
export async function userResetTwoFactor(prisma: PrismaClient, raw: unknown) {
  const input = parseOrThrow(emailOption, raw, 'arguments');
  const user = await findUser(prisma, input.email);
  const now = new Date();
  const reset = await resetTotp(prisma, { userId: user.id, now, actor: cliActor() });
  return { email: user.email, twoFactor: false, reset };
}
