import {
  hashToken,
  hotQuery,
  hotStatement,
  randomSecret,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  type EventPosition,
  type Logger,
  type PlanName,
  type Prisma,
  type PrismaClient,
  type Role,
} from '@statusvane/shared';
import { logFailure } from '../best-effort.js';

/** A sign-in waiting for its second factor lasts this long. */
export const PENDING_SIGN_IN_MS = 10 * 60_000;
/** lastSeenAt is written at most this often per session: the idle timeout needs no finer clock. */
const TOUCH_EVERY_MS = 60_000;

/**
 * A session, its user, how many workspaces the user is a member of, their membership in the workspace of slug $2
 * (none for NULL) and whether that workspace's event log has an event from position $3 on (none asked for NULL),
 * and where the event log ends: one statement on the hot path of every console page (ADR 0021, ADR 0023), where four
 * statements read them before (the session with its user, the user's workspaces, the membership, the log's end).
 * Whether the user has a second factor, never the sealed secret.
 */
const SESSION_BY_TOKEN = hotStatement(`
  SELECT s.id, s."awaitingSecondFactor", s."failedCodes", s."lastSeenAt", s."expiresAt", u.id AS "userId", u.email,
    u.name, u."totpSecretEnc" IS NOT NULL AS "twoFactor",
    (SELECT count(*)::int FROM memberships c WHERE c."userId" = u.id) AS "workspaceCount",
    mw.role AS "memberRole", mw.id AS "memberWorkspaceId", mw.slug AS "memberSlug", mw.name AS "memberName",
    mw.plan AS "memberPlan",
    -- The workspace's newest event, as max(): the index read backwards, whatever the plan (EXISTS with txid >= $3 is
    -- planned as a scan of the table once the plan is generic).
    CASE WHEN $3::bigint IS NOT NULL
      THEN COALESCE((SELECT max(e.txid) FROM events e WHERE e."workspaceId" = mw.id) >= $3::bigint, false)
    END AS "loggedSince",
    pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS "logEnd"
  FROM console_sessions s JOIN users u ON u.id = s."userId"
  LEFT JOIN LATERAL (
    SELECT m.role::text AS role, w.id, w.slug, w.name, w.plan::text AS plan
    FROM memberships m JOIN workspaces w ON w.id = m."workspaceId" WHERE m."userId" = u.id AND w.slug = $2
  ) mw ON true
  WHERE s."tokenHash" = $1`);
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
  workspaceCount: number;
  memberRole: Role | null;
  memberWorkspaceId: string | null;
  memberSlug: string | null;
  memberName: string | null;
  memberPlan: PlanName | null;
  loggedSince: boolean | null;
  logEnd: string;
}

/** Who a session belongs to, as the console shows and uses it (never a hash or a sealed secret). */
export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  twoFactor: boolean;
}

/** The user's membership in the workspace a request names, with the role it has now. */
export interface SessionMembership {
  role: Role;
  workspace: { id: string; slug: string; name: string; plan: PlanName };
  /**
   * Whether the workspace's event log has an event at or after readSession's `loggedSince` (a page's cursor): null when
   * none was asked about.
   */
  loggedSince: boolean | null;
}

export interface ConsoleSession {
  id: string;
  user: SessionUser;
  awaitingSecondFactor: boolean;
  failedCodes: number;
  /** How many workspaces the user is a member of (the chrome links to the chooser when more than one). */
  workspaceCount: number;
  /** The membership in the workspace readSession was asked about; null when none was, or the user is no member. */
  membership: SessionMembership | null;
  /**
   * Where the event log ended when the session was read, before any of the request's own reads: the cursor of a page
   * that shows state and follows its changes (`GET /events?after=` it answers exactly what commits later).
   */
  logEnd: EventPosition;
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
 * user, and their membership in the workspace of `opts.slug` when given, are read with it on every request (never
 * cached), so ending a session, removing a member or changing a role takes effect on the next request.
 * `opts.loggedSince`: a position in the event log to ask the membership's workspace about (a kept page's cursor).
 */
export async function readSession(
  prisma: PrismaClient,
  logger: Pick<Logger, 'warn'>,
  token: string | undefined,
  now: Date,
  opts: { slug?: string | null; loggedSince?: EventPosition | null } = {},
): Promise<ConsoleSession | null> {
  if (!token || !TOKEN_RE.test(token)) return null;
  const [row] = await hotQuery<SessionRow>(prisma, SESSION_BY_TOKEN, [
    hashToken(token),
    opts.slug?.toLowerCase() ?? null,
    opts.loggedSince?.txid.toString() ?? null,
  ]);
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
    workspaceCount: row.workspaceCount,
    membership:
      row.memberRole && row.memberWorkspaceId && row.memberSlug && row.memberName !== null && row.memberPlan
        ? {
            role: row.memberRole,
            workspace: { id: row.memberWorkspaceId, slug: row.memberSlug, name: row.memberName, plan: row.memberPlan },
            loggedSince: row.loggedSince,
          }
        : null,
    logEnd: { txid: BigInt(row.logEnd), seq: 0n },
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
