import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, hashToken, type Config, type PrismaClient } from '@statusvane/shared';
import { verifyPassword } from '../status-pages/password.js';
import { isPlausiblePassword } from './password-policy.js';
import type { AuditActor } from '../auth/context.js';
import { endUserSessions, startSession } from './sessions.js';
import { base32Encode, newTotpSecret, otpauthUri, verifyTotp } from './totp.js';
import { recordUserEvent } from './user-audit.js';

/** Wrong codes that end a sign-in waiting for its second factor (§7). */
export const MAX_CODE_FAILURES = 5;
const RECOVERY_CODES = 10;
const ISSUER = 'Statusvane';

type Deps = { prisma: PrismaClient; config: Pick<Config, 'encryption'> };
const keyring = (config: Deps['config']) => config.encryption;

/**
 * A recovery code: 16 base32 characters (80 random bits) in four groups. The entropy makes a plain SHA-256 a sufficient
 * stored form (as for tokens); typing is forgiving (case, spaces and dashes ignored).
 */
const newRecoveryCode = () => base32Encode(randomBytes(10)).match(/.{4}/g)!.join('-').toLowerCase();
const normaliseRecoveryCode = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();
const recoveryHash = (code: string) => hashToken(`recovery:${normaliseRecoveryCode(code)}`);

/**
 * Account page, "Set up two-factor sign-in": a new secret, stored sealed as pending until a code of it confirms the
 * authenticator has it. Returns the secret and its otpauth URI to show (QR code and text).
 */
export async function startTotpEnrolment(
  deps: Deps,
  input: { userId: string },
): Promise<{ secret: string; uri: string }> {
  const user = await deps.prisma.user.findUniqueOrThrow({ where: { id: input.userId }, select: { email: true } });
  const secret = newTotpSecret();
  await deps.prisma.user.update({
    where: { id: input.userId },
    data: { totpPendingSecretEnc: encryptSecret(secret, keyring(deps.config).current).ciphertext },
  });
  return { secret, uri: otpauthUri({ secret, account: user.email, issuer: ISSUER }) };
}

/** The pending secret (to show again beside a wrong code), or null when no enrolment is under way. */
export async function pendingTotpEnrolment(
  deps: Deps,
  input: { userId: string },
): Promise<{ secret: string; uri: string } | null> {
  const user = await deps.prisma.user.findUniqueOrThrow({
    where: { id: input.userId },
    select: { email: true, totpPendingSecretEnc: true },
  });
  if (!user.totpPendingSecretEnc) return null;
  const secret = decryptSecret(user.totpPendingSecretEnc, null, keyring(deps.config));
  return { secret, uri: otpauthUri({ secret, account: user.email, issuer: ISSUER }) };
}

/**
 * Confirms an enrolment with a code of the pending secret: the second factor is on from now, and ten new recovery
 * codes are returned, to show once (only their hashes are kept). A wrong code: null, nothing changes.
 */
export async function confirmTotpEnrolment(
  deps: Deps,
  input: { userId: string; code: string; now: Date },
): Promise<string[] | null> {
  const pending = await pendingTotpEnrolment(deps, input);
  if (!pending) return null;
  const step = verifyTotp(pending.secret, input.code, input.now, null);
  if (step === null) return null;
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  await deps.prisma.$transaction(async (tx) => {
    const user = await tx.user.update({
      where: { id: input.userId },
      data: {
        totpSecretEnc: encryptSecret(pending.secret, keyring(deps.config).current).ciphertext,
        totpPendingSecretEnc: null,
        totpLastStep: BigInt(step),
      },
      select: { id: true, email: true, name: true },
    });
    await tx.recoveryCode.deleteMany({ where: { userId: input.userId } });
    await tx.recoveryCode.createMany({ data: codes.map((c) => ({ userId: input.userId, codeHash: recoveryHash(c) })) });
    await recordUserEvent(tx, user, 'two_factor_enabled', input.now);
  });
  return codes;
}

/** Account page, "Turn off two-factor sign-in": asks the password again; the secret and recovery codes go. */
export async function removeTotp(deps: Deps, input: { userId: string; password: string; now: Date }): Promise<boolean> {
  const user = await deps.prisma.user.findUniqueOrThrow({
    where: { id: input.userId },
    select: { id: true, email: true, name: true, passwordHash: true },
  });
  if (!user.passwordHash || !isPlausiblePassword(input.password)) return false;
  if (!(await verifyPassword(input.password, user.passwordHash))) return false;
  await deps.prisma.$transaction(async (tx) => {
    await tx.user.update({
      where: { id: input.userId },
      data: { totpSecretEnc: null, totpPendingSecretEnc: null, totpLastStep: null },
    });
    await tx.recoveryCode.deleteMany({ where: { userId: input.userId } });
    await recordUserEvent(tx, user, 'two_factor_disabled', input.now);
  });
  return true;
}

/**
 * The admin CLI's `user reset-2fa`, for a user who lost their authenticator and their recovery codes: the second
 * factor (and any enrolment under way) and the recovery codes go, and every session of the user ends, so whoever
 * holds a session or the device cannot carry on. Audited as `user.two_factor_reset` with the CLI as actor. Returns
 * whether the user had a second factor (or an enrolment) to reset.
 */
export async function resetTotp(
  prisma: PrismaClient,
  input: { userId: string; now: Date; actor: AuditActor },
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const user = await tx.user.findUniqueOrThrow({
      where: { id: input.userId },
      select: { id: true, email: true, name: true, totpSecretEnc: true, totpPendingSecretEnc: true },
    });
    if (!user.totpSecretEnc && !user.totpPendingSecretEnc) return false;
    await tx.user.update({
      where: { id: user.id },
      data: { totpSecretEnc: null, totpPendingSecretEnc: null, totpLastStep: null },
    });
    await tx.recoveryCode.deleteMany({ where: { userId: user.id } });
    await endUserSessions(tx, user.id);
    await recordUserEvent(tx, user, 'two_factor_reset', input.now, input.actor);
    return true;
  });
}

/** How many unused recovery codes the user has left. */
export function recoveryCodesLeft(deps: Pick<Deps, 'prisma'>, userId: string): Promise<number> {
  return deps.prisma.recoveryCode.count({ where: { userId } });
}

export type SecondFactorResult =
  | { kind: 'signed-in'; token: string; expiresAt: Date; userId: string }
  | { kind: 'wrong'; attemptsLeft: number }
  | { kind: 'ended' };

/**
 * POST /app/login/code: the second step of a sign-in. A TOTP code (each accepted once) or an unused recovery code
 * (then deleted) replaces the pending sign-in with a session under a new id; the fifth wrong code ends the pending
 * sign-in (the password must be given again, under the lockout rules).
 */
export async function completeSecondFactor(
  deps: Deps,
  input: { sessionId: string; code: string; now: Date; userAgent?: string | undefined },
): Promise<SecondFactorResult> {
  const pending = await deps.prisma.consoleSession.findUnique({
    where: { id: input.sessionId },
    select: { id: true, userId: true, awaitingSecondFactor: true, expiresAt: true },
  });
  if (!pending?.awaitingSecondFactor || pending.expiresAt <= input.now) return { kind: 'ended' };
  const user = await deps.prisma.user.findUniqueOrThrow({
    where: { id: pending.userId },
    select: { totpSecretEnc: true, totpLastStep: true },
  });
  const typed = input.code.trim();
  let accepted = false;
  if (user.totpSecretEnc && /^[\d\s]+$/.test(typed)) {
    const secret = decryptSecret(user.totpSecretEnc, null, keyring(deps.config));
    const last = user.totpLastStep === null ? null : Number(user.totpLastStep);
    const step = verifyTotp(secret, typed, input.now, last);
    if (step !== null) {
      // Compare-and-set: of two requests with the same code, one moves the step and the other finds it moved.
      const moved = await deps.prisma.user.updateMany({
        where: { id: pending.userId, OR: [{ totpLastStep: null }, { totpLastStep: { lt: BigInt(step) } }] },
        data: { totpLastStep: BigInt(step) },
      });
      accepted = moved.count === 1;
    }
  } else if (typed.length > 0 && typed.length <= 40) {
    const used = await deps.prisma.recoveryCode.deleteMany({
      where: { userId: pending.userId, codeHash: recoveryHash(typed) },
    });
    accepted = used.count === 1;
  }
  if (!accepted) {
    const after = await deps.prisma.consoleSession.updateMany({
      where: { id: pending.id, awaitingSecondFactor: true },
      data: { failedCodes: { increment: 1 } },
    });
    const row = after.count
      ? await deps.prisma.consoleSession.findUnique({ where: { id: pending.id }, select: { failedCodes: true } })
      : null;
    if (!row || row.failedCodes >= MAX_CODE_FAILURES) {
      await deps.prisma.consoleSession.deleteMany({ where: { id: pending.id } });
      return { kind: 'ended' };
    }
    return { kind: 'wrong', attemptsLeft: MAX_CODE_FAILURES - row.failedCodes };
  }
  // The pending row is deleted and a session with a new id starts: one request wins the deletion.
  const started = await deps.prisma.$transaction(async (tx) => {
    const gone = await tx.consoleSession.deleteMany({ where: { id: pending.id, awaitingSecondFactor: true } });
    if (gone.count !== 1) return null;
    return startSession(tx, { userId: pending.userId, now: input.now, userAgent: input.userAgent });
  });
  return started ? { kind: 'signed-in', ...started, userId: pending.userId } : { kind: 'ended' };
}
