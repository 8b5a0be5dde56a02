import {
  AppError,
  createBatchLoader,
  ForbiddenError,
  hashToken,
  hotQuery,
  hotBatchStatement,
  forKeys,
  perClient,
  UnauthorizedError,
  type Logger,
  type Prisma,
  type PrismaClient,
  type Role,
} from '@statusvane/shared';
import { logFailure } from '../best-effort.js';
import { BearerError } from './bearer-error.js';
import type { AuditActor, RequestContext, TokenKind, UserContext } from './context.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Prefix order matters: `svu_` must be tried before `sv_`. */
const PREFIXES: Array<[string, TokenKind]> = [
  ['mcp_at_', 'oauth'],
  ['svu_', 'personal'],
  ['sv_', 'org'],
];

export function tokenKindOf(token: string): TokenKind | null {
  for (const [prefix, kind] of PREFIXES) if (token.startsWith(prefix)) return kind;
  return null;
}

/** Tokens are `<prefix><43 base64url chars>`; anything else is refused before touching the database. */
const TOKEN_BODY_RE = /^[A-Za-z0-9_-]{20,200}$/;

export interface AuthInput {
  authorization: string | undefined;
  workspaceHeader: string | undefined;
  now?: Date;
  /**
   * Where the token is presented (RFC 8707): `api` (/api/v1, the default) takes every kind, an OAuth token only if it
   * was issued for the API; `mcp` (/mcp) takes only OAuth tokens issued for it. Elsewhere: 401 `invalid_token`.
   */
  resource?: 'api' | 'mcp';
}

type WorkspaceRow = { id: string; slug: string; name: string; plan: RequestContext['workspace']['plan'] };

/** What every request needs of its token: the token and, for an org token, its workspace. */
interface TokenRow {
  id: string;
  kind: TokenKind;
  role: Role | null;
  userId: string | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  primaryWorkspaceId: string | null;
  tokenHash: string;
  /** For the audit actor of an org token: its name, else the prefix it is recognised by. */
  name: string | null;
  displayPrefix: string;
  workspace: WorkspaceRow | null;
  /** OAuth tokens: where they work (the admin CLI's: null, the API) and what they may do (null: write). */
  resource: 'api' | 'mcp' | null;
  scope: 'read' | 'write' | null;
  /** OAuth tokens issued through /oauth/token: the app's client id, named in audit events. */
  clientId: string | null;
}

/** What personal and OAuth tokens need besides: the user's live memberships and the OAuth grants. */
const accessSelect = {
  id: true,
  grants: { select: { workspaceId: true } },
  user: {
    select: {
      email: true,
      name: true,
      memberships: {
        select: { role: true, workspace: { select: { id: true, slug: true, name: true, plan: true } } },
      },
    },
  },
} satisfies Prisma.ApiTokenSelect;
type AccessRow = Prisma.ApiTokenGetPayload<{ select: typeof accessSelect }>;

/**
 * The token read: every authenticated request runs it, never cached, so revocations still apply on the next request
 * (docs/adr/0003). A hot statement (docs/adr/0021-hot-statements-on-the-pool.md): through Prisma's raw query it cost
 * about as much API CPU as the rest of the read together. The org tokens' workspaces are joined in (Prisma would load
 * the relation with a second round trip); org tokens, the common case for API clients, need nothing more.
 */
const tokenRowsWhere = (match: string) => `
  SELECT t.id::text AS id, t.kind::text AS kind, t.role::text AS role, t."userId"::text AS "userId", t."expiresAt",
         t."revokedAt", t."primaryWorkspaceId"::text AS "primaryWorkspaceId", t."tokenHash"::text AS "tokenHash",
         t.name, t."displayPrefix", t.resource::text AS resource, t.scope::text AS scope,
         c."clientId"::text AS "clientId",
         w.id::text AS "wsId", w.slug AS "wsSlug", w.name AS "wsName", w.plan::text AS "wsPlan"
  FROM api_tokens t LEFT JOIN workspaces w ON w.id = t."workspaceId"
    LEFT JOIN oauth_connections c ON c.id = t."connectionId"
  WHERE t."tokenHash" ${match}`;
const TOKEN_ROWS = hotBatchStatement(tokenRowsWhere('= $1::bpchar'), tokenRowsWhere('= ANY($1::bpchar[])'));

/**
 * The token lookups of one event-loop turn in one statement (TOKEN_ROWS); memberships and grants, for the other
 * kinds, are a second batched read.
 */
const tokenRows = perClient((prisma: PrismaClient) =>
  createBatchLoader<string, TokenRow>(async (hashes) => {
    const rows = await hotQuery<
      Omit<TokenRow, 'workspace'> & {
        wsId: string | null;
        wsSlug: string;
        wsName: string;
        wsPlan: WorkspaceRow['plan'];
      }
    >(prisma, ...forKeys(TOKEN_ROWS, [hashes]));
    return new Map(
      rows.map(({ wsId, wsSlug, wsName, wsPlan, ...t }) => [
        t.tokenHash,
        { ...t, workspace: wsId ? { id: wsId, slug: wsSlug, name: wsName, plan: wsPlan } : null },
      ]),
    );
  }),
);
const tokenAccess = perClient((prisma: PrismaClient) =>
  createBatchLoader<string, AccessRow>(async (ids) => {
    const rows = await prisma.apiToken.findMany({ where: { id: { in: ids } }, select: accessSelect });
    return new Map(rows.map((r) => [r.id, r]));
  }),
);

/** What authentication uses (a subset of ApiDeps). */
export interface AuthDeps {
  prisma: PrismaClient;
  logger: Logger;
}

/** How stale `lastUsedAt` may get: it is written at most once per this interval per token and API process. */
const LAST_USED_EVERY_MS = 60_000;
const lastTouched = new WeakMap<PrismaClient, Map<string, number>>();

/**
 * Records that a token was used (`lastUsedAt`, shown by GET /tokens), kept to the minute: one conditional UPDATE per
 * token and minute at most, not awaited, its failure logged (a lost touch costs nothing; the request goes on).
 */
function touchToken({ prisma, logger }: AuthDeps, tokenId: string, now: Date): void {
  let seen = lastTouched.get(prisma);
  if (!seen) lastTouched.set(prisma, (seen = new Map()));
  const last = seen.get(tokenId);
  if (last !== undefined && now.getTime() - last < LAST_USED_EVERY_MS) return;
  if (seen.size > 50_000) seen.clear();
  seen.set(tokenId, now.getTime());
  const staleBefore = new Date(now.getTime() - LAST_USED_EVERY_MS);
  prisma.apiToken
    .updateMany({
      where: { id: tokenId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
      data: { lastUsedAt: now },
    })
    .catch(
      logFailure(logger, "token's lastUsedAt not written", { tokenId }, 'written on a use of the token a minute on'),
    );
}

function matches(ws: { id: string; slug: string }, selector: string): boolean {
  return ws.slug === selector.toLowerCase() || (UUID_RE.test(selector) && ws.id === selector.toLowerCase());
}

/** The live token row of `Authorization: Bearer <token>` for the resource (401 for anything else), its use recorded. */
async function bearerToken(deps: AuthDeps, input: Omit<AuthInput, 'workspaceHeader'>): Promise<TokenRow> {
  const now = input.now ?? new Date();
  const header = input.authorization;
  const m = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!m) throw new UnauthorizedError('Send Authorization: Bearer <token>');
  const token = m[1]!;
  const kind = tokenKindOf(token);
  if (!kind) throw new UnauthorizedError('The token is malformed');
  const body = token.slice(PREFIXES.find(([, k]) => k === kind)![0].length);
  if (!TOKEN_BODY_RE.test(body)) throw new UnauthorizedError('The token is malformed');

  const row = (await tokenRows(deps.prisma).load(hashToken(token))) ?? null;
  // Unknown, revoked, expired and mismatched tokens all get the same answer.
  if (!row || row.kind !== kind || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) {
    throw new UnauthorizedError('The token is invalid, expired or revoked');
  }
  const resource = input.resource ?? 'api';
  if ((row.kind === 'oauth' ? (row.resource ?? 'api') : 'api') !== resource) {
    throw new BearerError(
      'invalid_token',
      resource === 'mcp'
        ? 'This endpoint takes an OAuth token issued for it'
        : 'This token was issued for another resource',
    );
  }
  touchToken(deps, row.id, now);
  return row;
}

/**
 * The caller of a `/me/...` operation: the user behind a personal or OAuth token, whatever workspace it is used
 * in (`X-Statusvane-Workspace` is not read: what is under /me is the user's own, the same in every workspace). An
 * org token acts for a workspace, never for a person: 403. An OAuth token (`mcp_at_`) may read only.
 */
export async function authenticateUser(
  deps: AuthDeps,
  input: Omit<AuthInput, 'workspaceHeader'>,
): Promise<UserContext> {
  const row = await bearerToken(deps, input);
  if (row.kind === 'org')
    throw new ForbiddenError('An org token acts for its workspace, not a person: /me needs a personal token');
  const access = row.userId ? await tokenAccess(deps.prisma).load(row.id) : undefined;
  if (!row.userId || !access?.user) throw new UnauthorizedError('The token is invalid, expired or revoked');
  return {
    userId: row.userId,
    tokenId: row.id,
    tokenKind: row.kind,
    principal: `user:${row.userId}`,
    actor: { type: 'user', id: row.userId, name: access.user.name || access.user.email },
    readOnly: row.kind === 'oauth',
  };
}

/**
 * Resolves a bearer token and the workspace header into a RequestContext, re-reading membership and grants on
 * every call (leaving a workspace or revoking a grant takes effect at once). Throws 401/403/400 as the spec says.
 */
export async function authenticate(deps: AuthDeps, input: AuthInput): Promise<RequestContext> {
  const { prisma } = deps;
  const row = await bearerToken(deps, input);
  const selector = input.workspaceHeader?.trim() || undefined;

  if (row.kind === 'org') {
    if (!row.workspace || !row.role) throw new UnauthorizedError('The token is invalid, expired or revoked');
    if (selector && !matches(row.workspace, selector)) {
      throw new ForbiddenError('This token is bound to another workspace');
    }
    const actor: AuditActor = { type: 'token', id: row.id, name: row.name || row.displayPrefix };
    return ctx(row.workspace, row.role, row.id, 'org', null, `token:${row.id}`, actor);
  }

  const userId = row.userId;
  const access = userId ? await tokenAccess(prisma).load(row.id) : undefined;
  if (!userId || !access?.user) throw new UnauthorizedError('The token is invalid, expired or revoked');
  const memberships = access.user.memberships;
  const actor: AuditActor = { type: 'user', id: userId, name: access.user.name || access.user.email };

  if (row.kind === 'personal') {
    if (selector) {
      const mem = memberships.find((x) => matches(x.workspace, selector));
      if (!mem) throw new ForbiddenError('You are not a member of that workspace');
      return ctx(mem.workspace, mem.role, row.id, 'personal', userId, `user:${userId}`, actor);
    }
    if (memberships.length === 1) {
      const only = memberships[0]!;
      return ctx(only.workspace, only.role, row.id, 'personal', userId, `user:${userId}`, actor);
    }
    if (memberships.length === 0) throw new ForbiddenError('You are not a member of any workspace');
    throw new AppError(
      'invalid_request',
      'This token belongs to several workspaces: name one with X-Statusvane-Workspace',
      {
        workspaces: memberships
          .map((x) => ({ id: x.workspace.id, slug: x.workspace.slug, name: x.workspace.name }))
          .sort((a, b) => a.slug.localeCompare(b.slug)),
      },
    );
  }

  // OAuth: limited to the granted workspaces, with the user's live role there.
  const granted = new Set(access.grants.map((g) => g.workspaceId));
  const usable = memberships.filter((x) => granted.has(x.workspace.id));
  let chosen: (typeof usable)[number] | undefined;
  if (selector) {
    chosen = usable.find((x) => matches(x.workspace, selector));
    if (!chosen) throw new ForbiddenError('This connection has no grant for that workspace');
  } else {
    chosen = usable.find((x) => x.workspace.id === row.primaryWorkspaceId);
    if (!chosen)
      throw new ForbiddenError('This connection has no usable primary workspace: name one with X-Statusvane-Workspace');
  }
  const oauthActor: AuditActor = row.clientId ? { ...actor, clientId: row.clientId } : actor;
  return {
    ...ctx(chosen.workspace, chosen.role, row.id, 'oauth', userId, `user:${userId}`, oauthActor),
    scope: row.scope ?? 'write',
  };
}

function ctx(
  ws: WorkspaceRow,
  role: Role,
  tokenId: string,
  tokenKind: TokenKind,
  userId: string | null,
  principal: string,
  actor: AuditActor,
): RequestContext {
  return { workspace: ws, role, tokenId, tokenKind, userId, principal, actor };
}
