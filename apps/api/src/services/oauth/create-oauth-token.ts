import { hashToken, randomSecret, type Config, type Logger, type PrismaClient } from '@statusvane/shared';
import { displayPrefix, newToken } from '../tokens/token-value.js';
import {
  ACCESS_TOKEN_TTL_S,
  OAuthError,
  parseResource,
  parseScope,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_TTL_MS,
  scopeCovers,
  scopeString,
  verifierMatches,
  type OAuthResourceName,
  type OAuthScopeName,
} from './oauth-rules.js';

/** RFC 6749 §5.1: what a successful token request answers. */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Deps = { prisma: PrismaClient; logger: Logger; config: Pick<Config, 'publicBaseUrl'> };

/** One form field: a string given once, else undefined (absent) or `invalid_request` (given twice). */
function field(form: Record<string, unknown>, name: string): string | undefined {
  const v = form[name];
  if (v === undefined || typeof v === 'string') return v === '' ? undefined : v;
  throw new OAuthError('invalid_request', `${name} is given more than once`);
}
function required(form: Record<string, unknown>, name: string): string {
  const v = field(form, name);
  if (v === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return v;
}

/**
 * A code or refresh token presented again after its use: someone else holds a copy. The whole connection goes (its
 * codes, access and refresh tokens: RFC 6749 §4.1.2 and OAuth 2.1 §4.3.1), and the request is refused.
 */
async function revokeOnReuse(deps: Deps, connectionId: string, what: string): Promise<never> {
  await deps.prisma.oAuthConnection.deleteMany({ where: { id: connectionId } });
  deps.logger.warn('oauth grant revoked: a spent credential was presented again', { connectionId, what });
  throw new OAuthError('invalid_grant', `This ${what} was already used; the grant is revoked`);
}

/**
 * What every presented credential (a code, a refresh token) must be, checked in this order: known, not spent before
 * (a reuse revokes the whole grant), not expired, issued to the client presenting it.
 */
async function presented<
  T extends { usedAt: Date | null; expiresAt: Date; connectionId: string; connection: { clientId: string } },
>(
  deps: Deps,
  row: T | null,
  { what, clientId, now }: { what: 'code' | 'refresh token'; clientId: string; now: Date },
): Promise<T> {
  if (!row) throw new OAuthError('invalid_grant', `The ${what} is unknown, expired or revoked`);
  if (row.usedAt) return revokeOnReuse(deps, row.connectionId, what);
  if (row.expiresAt <= now) throw new OAuthError('invalid_grant', `The ${what} has expired`);
  if (row.connection.clientId !== clientId)
    throw new OAuthError('invalid_grant', `The ${what} was issued to another client`);
  return row;
}

/**
 * POST /oauth/token (form-encoded): `authorization_code` (the code, its client, its exact redirect URI, the PKCE
 * verifier of its S256 challenge, its resource) and `refresh_token` (rotating: each use spends it and issues a new
 * one). Answers an `mcp_at_` access token for one hour at its resource and an `mcp_rt_` refresh token; stored hashed.
 */
export async function createOAuthToken(
  deps: Deps,
  { ctx, input: form }: { ctx: { now: Date }; input: Record<string, unknown> },
): Promise<TokenAnswer> {
  const grantType = required(form, 'grant_type');
  const clientId = required(form, 'client_id').toLowerCase();
  const resourceParam = field(form, 'resource');
  const resource = resourceParam === undefined ? undefined : parseResource(deps.config.publicBaseUrl, resourceParam);
  const { now } = ctx;

  if (grantType === 'authorization_code') {
    const code = required(form, 'code');
    const verifier = required(form, 'code_verifier');
    const redirectUri = field(form, 'redirect_uri');
    const row = await presented(
      deps,
      await deps.prisma.oAuthCode.findUnique({
        where: { codeHash: hashToken(code) },
        include: { connection: { select: { clientId: true } } },
      }),
      { what: 'code', clientId, now },
    );
    if (redirectUri !== undefined && redirectUri !== row.redirectUri)
      throw new OAuthError('invalid_grant', 'redirect_uri is not the one the code was issued for');
    if (!verifierMatches(verifier, row.codeChallenge))
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
    if (resource !== undefined && resource !== row.resource)
      throw new OAuthError('invalid_target', 'resource is not the one the code was issued for');
    // Spent here, once: of two concurrent exchanges only one claims it; the other is a reuse.
    const claimed = await deps.prisma.oAuthCode.updateMany({
      where: { id: row.id, usedAt: null },
      data: { usedAt: now },
    });
    if (claimed.count === 0) return revokeOnReuse(deps, row.connectionId, 'code');
    return issueTokens(deps, now, { connectionId: row.connectionId, scope: row.scope, resource: row.resource });
  }

  if (grantType === 'refresh_token') {
    const token = required(form, 'refresh_token');
    const row = await presented(
      deps,
      await deps.prisma.oAuthRefreshToken.findUnique({
        where: { tokenHash: hashToken(token) },
        include: { connection: { select: { clientId: true } } },
      }),
      { what: 'refresh token', clientId, now },
    );
    const scopeParam = field(form, 'scope');
    const scope = scopeParam === undefined ? row.scope : parseScope(scopeParam);
    if (!scopeCovers(row.scope, scope)) throw new OAuthError('invalid_scope', 'scope is wider than the grant');
    if (resource !== undefined && resource !== row.resource)
      throw new OAuthError('invalid_target', 'resource is not the one the refresh token was issued for');
    const claimed = await deps.prisma.oAuthRefreshToken.updateMany({
      where: { id: row.id, usedAt: null },
      data: { usedAt: now },
    });
    if (claimed.count === 0) return revokeOnReuse(deps, row.connectionId, 'refresh token');
    return issueTokens(deps, now, { connectionId: row.connectionId, scope, resource: row.resource });
  }

  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

/**
 * An access token (in api_tokens, as the admin CLI's OAuth tokens: the authentication is one) with the connection's
 * workspaces that are still the user's as its grants, and a new refresh token.
 */
async function issueTokens(
  deps: Deps,
  now: Date,
  grant: { connectionId: string; scope: OAuthScopeName; resource: OAuthResourceName },
): Promise<TokenAnswer> {
  const access = newToken('oauth');
  const refresh = `${REFRESH_TOKEN_PREFIX}${randomSecret(32)}`;
  await deps.prisma.$transaction(async (tx) => {
    const connection = await tx.oAuthConnection.findUnique({
      where: { id: grant.connectionId },
      include: { client: { select: { name: true } } },
    });
    // Revoked meanwhile (by the user, or a reuse): nothing is issued.
    if (!connection) throw new OAuthError('invalid_grant', 'The grant was revoked');
    const memberships = await tx.membership.findMany({
      where: { userId: connection.userId, workspaceId: { in: connection.workspaceIds } },
      select: { workspaceId: true },
    });
    await tx.apiToken.create({
      data: {
        kind: 'oauth',
        name: connection.client.name || null,
        tokenHash: hashToken(access),
        displayPrefix: displayPrefix(access, 'oauth'),
        userId: connection.userId,
        primaryWorkspaceId: connection.primaryWorkspaceId,
        expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000),
        resource: grant.resource,
        scope: grant.scope,
        connectionId: connection.id,
        createdAt: now,
        grants: { create: memberships.map((m) => ({ workspaceId: m.workspaceId })) },
      },
    });
    await tx.oAuthRefreshToken.create({
      data: {
        tokenHash: hashToken(refresh),
        connectionId: connection.id,
        scope: grant.scope,
        resource: grant.resource,
        expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
        createdAt: now,
      },
    });
    await tx.oAuthConnection.update({ where: { id: connection.id }, data: { lastUsedAt: now } });
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_token: refresh,
    scope: scopeString(grant.scope),
  };
}
