import { randomSecret, type PrismaClient } from '@statusvane/shared';
import { hashPassword, verifyPassword } from '../status-pages/password.js';
import { isPlausiblePassword } from './password-policy.js';
import { dropExpiredSessions, startSession } from './sessions.js';
import type { SignInGuard } from './sign-in-guard.js';

/** What a sign-in attempt gives: a session, a sign-in waiting for its second factor, or a refusal (always the same). */
export type SignInResult =
  | { kind: 'signed-in'; token: string; expiresAt: Date; userId: string }
  | { kind: 'second-factor'; token: string; expiresAt: Date; userId: string }
  | { kind: 'refused' };

/**
 * A hash of a random password, verified against when the email is unknown or has no password yet, so that every
 * refusal costs one scrypt: the answer's timing does not tell whether an address is a user.
 */
let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= hashPassword(randomSecret(16)));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * POST /app/login: checks the password under the lockout rules (sign-in-guard.ts) and starts a session, or a
 * sign-in waiting for the TOTP code when the user has a second factor. A locked pair or address, an unknown email,
 * a user without a password and a wrong password are all `refused`, after the same work.
 */
export async function signIn(
  deps: { prisma: PrismaClient; guard: SignInGuard },
  input: { email: string; password: string; address: string; userAgent?: string | undefined; now: Date },
): Promise<SignInResult> {
  const email = input.email.trim().toLowerCase();
  const { locked, delayMs } = await deps.guard.check(email, input.address);
  if (delayMs > 0) await sleep(delayMs);
  const user =
    email.length > 0 && email.length <= 320
      ? await deps.prisma.user.findUnique({
          where: { email },
          select: { id: true, passwordHash: true, totpSecretEnc: true },
        })
      : null;
  const plausible = isPlausiblePassword(input.password);
  const ok =
    (await verifyPassword(plausible ? input.password : '', user?.passwordHash ?? (await decoyHash()))) &&
    plausible &&
    !locked &&
    !!user?.passwordHash;
  if (!ok || !user) {
    // A locked attempt is not counted again: the lock's 15 minutes run from the failure that set it.
    if (!locked) await deps.guard.failed(email, input.address);
    return { kind: 'refused' };
  }
  const second = user.totpSecretEnc !== null;
  // Only a completed sign-in clears the pair's failures: with a second factor, that is after the code (wrong codes
  // count as failures too, so knowing the password does not buy endless guesses at codes).
  if (!second) await deps.guard.succeeded(email, input.address);
  await dropExpiredSessions(deps.prisma, user.id, input.now);
  const { token, expiresAt } = await startSession(deps.prisma, {
    userId: user.id,
    now: input.now,
    awaitingSecondFactor: second,
    userAgent: input.userAgent,
  });
  return { kind: second ? 'second-factor' : 'signed-in', token, expiresAt, userId: user.id };
}
