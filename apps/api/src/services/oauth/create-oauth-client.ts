import { hiddenCharacter, type PrismaClient } from '@statusvane/shared';
import { z } from 'zod';
import { OAuthError, redirectUriProblem } from './oauth-rules.js';

/**
 * RFC 7591 client metadata, as far as a public client needs it. Not strict: unknown metadata is ignored (§2), and
 * what the server decides for itself (`token_endpoint_auth_method`, `grant_types`, `response_types`) is replaced by
 * its own values (§3.2.1) rather than refused.
 */
export const clientMetadataSchema = z.object({
  redirect_uris: z.array(z.string()).min(1).max(10),
  client_name: z.string().trim().min(1).max(200).optional(),
});

/** What POST /oauth/register answers (RFC 7591 §3.2.1): the client's id and the metadata as registered. */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
}

/**
 * POST /oauth/register: registers a public client (no secret: PKCE proves the code's holder). Redirect URIs must be
 * https, loopback http or a private-use scheme (`invalid_redirect_uri`); other bad metadata is
 * `invalid_client_metadata`. Nothing is verified, so the consent page marks the name unverified.
 */
export async function createOAuthClient(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: { now: Date }; input: unknown },
): Promise<RegisteredClient> {
  const parsed = clientMetadataSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'the body';
    throw new OAuthError(
      issue.path[0] === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${field}: ${issue.message}`,
    );
  }
  const { redirect_uris, client_name } = parsed.data;
  for (const uri of redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris: ${uri.slice(0, 200)} ${problem}`);
  }
  if (client_name && hiddenCharacter(client_name))
    throw new OAuthError('invalid_client_metadata', 'client_name has a hidden or control character');
  const row = await deps.prisma.oAuthClient.create({
    data: { name: client_name ?? '', redirectUris: [...new Set(redirect_uris)], createdAt: ctx.now },
  });
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
    ...(row.name ? { client_name: row.name } : {}),
    redirect_uris: row.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
