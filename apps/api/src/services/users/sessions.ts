import {
  hashToken,
  hotQuery,
  hotStatement,
  randomSecret,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  type Logger,
  type Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { logFailure } from '../best-effort.js';

/** A sign-in waiting for its second factor lasts this long. */
export const PENDING_SIGN_IN_MS = 10 * 60_000;
/** lastSeenAt is written at most this often per session: the idle timeout needs no finer clock. */
const TOUCH_EVERY_MS = 60_000;

/**
 * A session and its user in one statement, on the hot path of every console page (ADR 0021): Prisma read them in two
 * and mapped both. Whether the user has a second factor, never the sealed secret.
 */
const SESSION_BY_TOKEN = hotStatement(`
  SELECT s.id, s."awaitingSecondFactor", s."failedCodes", s."lastSeenAt", s."expiresAt", u.id AS "userId", u.email,
    u.name, u."totpSecretEnc" IS NOT NULL AS "twoFactor"
  FROM console_sessions s JOIN users u ON u.id = s."userId" WHERE s."tokenHash" = $1`);
interface SessionRow {
  id: string;
  awaitingSecondFactor: boolean;
  failedCodes: number;
  lastSeenAt: Date;
  expiresAt: Date;
  userId: string;
  email: string;
  name: string | null;
  twoFactor: boolean;
}

/** Who a session belongs to, as the console shows and uses it (never a hash or a sealed secret). */
export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  twoFactor: boolean;
}

export interface ConsoleSession {
  id: string;
  user: SessionUser;
  awaitingSecondFactor: boolean;
  failedCodes: number;
}

type Db = Pick<PrismaClient, 'consoleSession'> | Prisma.TransactionClient;

/**
 * Starts a session (or a sign-in waiting for its second factor) for `userId`: a new random id, returned once to be
 * set as the cookie; only its SHA-256 is stored. Every sign-in gets a new id, so an id planted before sign-in is
 * worthless after it.
 */
export async function startSession(
  db: Db,
  input: { userId: string; now: Date; awaitingSecondFactor?: boolean; userAgent?: string | undefined },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomSecret(32);
  const expiresAt = new Date(
    input.now.getTime() + (input.awaitingSecondFactor ? PENDING_SIGN_IN_MS : SESSION_ABSOLUTE_MS),
  );
  await db.consoleSession.create({
    data: {
      tokenHash: hashToken(token),
      userId: input.userId,
      awaitingSecondFactor: input.awaitingSecondFactor ?? false,
      lastSeenAt: input.now,
      expiresAt,
      userAgent: input.userAgent?.slice(0, 300) || null,
    },
  });
  return { token, expiresAt };
}

/** Cookie values are 43 base64url characters; anything else is not looked up. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The live session a cookie names, or null: unknown, expired (idle or absolute) and malformed all read as none. The
 * user is read with it on every request (never cached), so ending a session takes effect on the next request.
 */
export async function readSession(
  prisma: PrismaClient,
  logger: Pick<Logger, 'warn'>,
  token: string | undefined,
  now: Date,
): Promise<ConsoleSession | null> {
  if (!token || !TOKEN_RE.test(token)) return null;
  const [row] = await hotQuery<SessionRow>(prisma, SESSION_BY_TOKEN, [hashToken(token)]);
  if (!row) return null;
  const t = now.getTime();
  if (row.expiresAt.getTime() <= t || t - row.lastSeenAt.getTime() >= SESSION_IDLE_MS) return null;
  if (t - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    // Not awaited: a lost touch costs at most a minute of idle time.
    prisma.consoleSession
      .updateMany({ where: { id: row.id }, data: { lastSeenAt: now } })
      .catch(
        logFailure(
          logger,
          'console session: lastSeenAt not written',
          { sessionId: row.id },
          'the next request writes it',
        ),
      );
  }
  return {
    id: row.id,
    awaitingSecondFactor: row.awaitingSecondFactor,
    failedCodes: row.failedCodes,
    user: { id: row.userId, email: row.email, name: row.name, twoFactor: row.twoFactor },
  };
}

/** Ends one session (sign-out, or a new sign-in in the same browser). */
export async function endSession(prisma: PrismaClient, sessionId: string): Promise<void> {
  await prisma.consoleSession.deleteMany({ where: { id: sessionId } });
}

/** Ends every session of a user, pending sign-ins included: a password change or reset. */
export async function endUserSessions(db: Db, userId: string): Promise<void> {
  await db.consoleSession.deleteMany({ where: { userId } });
}

/** Sessions of the user that can no longer be used: dropped at each sign-in, so a user's rows stay few. */
export async function dropExpiredSessions(db: Db, userId: string, now: Date): Promise<void> {
  await db.consoleSession.deleteMany({
    where: {
      userId,
      OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: new Date(now.getTime() - SESSION_IDLE_MS) } }],
    },
  });
}
