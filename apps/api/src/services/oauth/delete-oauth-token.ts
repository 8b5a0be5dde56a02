import { hashToken, type PrismaClient } from '@statusvane/shared';
import { OAuthError, REFRESH_TOKEN_PREFIX } from './oauth-rules.js';

/**
 * POST /oauth/revoke (RFC 7009): a refresh token revokes its whole grant (the connection, with every access token
 * issued under it, §2.1); an access token revokes itself. A token that is unknown, already revoked or issued to
 * another client changes nothing and is answered the same (200): the endpoint tells nothing about tokens.
 */
export async function deleteOAuthToken(
  deps: { prisma: PrismaClient },
  { ctx, input: form }: { ctx: { now: Date }; input: Record<string, unknown> },
): Promise<void> {
  const { token, client_id: clientId } = form;
  if (typeof token !== 'string' || !token) throw new OAuthError('invalid_request', 'token is required');
  if (typeof clientId !== 'string' || !clientId) throw new OAuthError('invalid_request', 'client_id is required');
  const client = clientId.toLowerCase();
  // Not an id this server gives (a uuid): no token of it exists.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(client)) return;
  if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
    const row = await deps.prisma.oAuthRefreshToken.findUnique({
      where: { tokenHash: hashToken(token) },
      select: { connection: { select: { id: true, clientId: true } } },
    });
    if (row?.connection.clientId === client)
      await deps.prisma.oAuthConnection.deleteMany({ where: { id: row.connection.id } });
    return;
  }
  await deps.prisma.apiToken.updateMany({
    where: { tokenHash: hashToken(token), kind: 'oauth', revokedAt: null, connection: { clientId: client } },
    data: { revokedAt: ctx.now },
  });
}
