import { hashToken, type Logger, type PlanName, type PrismaClient } from '@statusvane/shared';
import { logFailure } from '../best-effort.js';
import type { ServiceContext } from '../context.js';

/** Wall tokens are 43 base64url characters; anything else is not looked up. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
/** lastUsedAt is written at most this often per token: a wall refreshes every minute or so. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The ServiceContext of a wall view (`/app/wall/<token>`): the token's workspace with the viewer role, so the view
 * reads through the same verbs as every page and can write nothing. Read on every request (never cached): a deleted
 * token is null on the very next one. Null for an unknown or malformed token.
 */
export async function wallWorkspaceContext(
  prisma: PrismaClient,
  logger: Pick<Logger, 'warn'>,
  input: { token: string; now: Date },
): Promise<ServiceContext | null> {
  if (!TOKEN_RE.test(input.token)) return null;
  const row = await prisma.wallToken.findUnique({
    where: { tokenHash: hashToken(input.token) },
    select: {
      id: true,
      name: true,
      lastUsedAt: true,
      workspace: { select: { id: true, slug: true, name: true, plan: true } },
    },
  });
  if (!row) return null;
  if (!row.lastUsedAt || input.now.getTime() - row.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
    // Not awaited: a lost touch only makes lastUsedAt a minute older.
    prisma.wallToken
      .updateMany({ where: { id: row.id }, data: { lastUsedAt: input.now } })
      .catch(
        logFailure(logger, 'wall token: lastUsedAt not written', { wallTokenId: row.id }, 'the next view writes it'),
      );
  }
  return {
    workspace: { ...row.workspace, plan: row.workspace.plan as PlanName },
    role: 'viewer',
    tokenId: row.id,
    tokenKind: 'wall',
    userId: null,
    principal: `wall:${row.id}`,
    actor: { type: 'token', id: row.id, name: `wall: ${row.name}` },
    now: input.now,
  };
}
