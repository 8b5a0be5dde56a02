import type { Config, PrismaClient } from '@statusvane/shared';
import {
  CODE_CHALLENGE_RE,
  OAuthError,
  parseResource,
  parseScope,
  redirectUriMatches,
  type OAuthResourceName,
  type OAuthScopeName,
} from './oauth-rules.js';

/** An authorization request that passed every check: what the consent page shows and the code is bound to. */
export interface AuthorizationRequest {
  client: { id: string; name: string };
  redirectUri: string;
  codeChallenge: string;
  scope: OAuthScopeName;
  resource: OAuthResourceName;
  state: string | undefined;
}

/**
 * How an authorization request is answered: an error page when the client or its redirect URI cannot be trusted
 * (never a redirect there: RFC 6749 §4.1.2.1), an error sent back to the client's redirect URI, or the request.
 */
export type AuthorizationCheck =
  | { outcome: 'error_page'; message: string }
  | { outcome: 'redirect_error'; redirectUri: string; error: OAuthError; state: string | undefined }
  | { outcome: 'ok'; request: AuthorizationRequest };

/**
 * The request's parameters, each at most once (RFC 6749 §3.1), as strings; the consent form carries them on as hidden
 * fields.
 */
export const AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'state',
  'resource',
] as const;
type Params = Partial<Record<(typeof AUTHORIZATION_PARAMS)[number], string>>;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * GET /oauth/authorize (and the consent form, which carries the same parameters): the client and its redirect URI
 * first (exact match, except a loopback URI's port), then the rest, whose errors go back to the client: `code` only,
 * PKCE with S256 only (`plain`, or no method, is refused), a known scope, and `resource` naming /mcp or /api/v1.
 */
export async function checkAuthorizationRequest(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { input }: { input: Record<string, unknown> },
): Promise<AuthorizationCheck> {
  const params: Params = {};
  const repeated: string[] = [];
  for (const name of AUTHORIZATION_PARAMS) {
    const v = input[name];
    if (typeof v === 'string') params[name] = v;
    else if (v !== undefined) repeated.push(name);
  }
  const clientId = params.client_id;
  if (!clientId || !UUID_RE.test(clientId) || repeated.includes('client_id'))
    return { outcome: 'error_page', message: 'The app that sent you here did not say who it is (client_id).' };
  const client = await deps.prisma.oAuthClient.findUnique({ where: { id: clientId.toLowerCase() } });
  if (!client) return { outcome: 'error_page', message: 'The app that sent you here is not registered.' };
  let redirectUri = params.redirect_uri;
  if (repeated.includes('redirect_uri'))
    return { outcome: 'error_page', message: 'The request names its return address (redirect_uri) twice.' };
  if (redirectUri === undefined && client.redirectUris.length === 1) redirectUri = client.redirectUris[0]!;
  if (redirectUri === undefined || !redirectUriMatches(client.redirectUris, redirectUri))
    return {
      outcome: 'error_page',
      message: 'The return address (redirect_uri) is not one the app registered, so you are not sent back to it.',
    };

  const state = repeated.includes('state') ? undefined : params.state;
  const refuse = (error: OAuthError): AuthorizationCheck => ({ outcome: 'redirect_error', redirectUri, error, state });
  if (repeated.length) return refuse(new OAuthError('invalid_request', `${repeated[0]} is given more than once`));
  if (params.response_type !== 'code')
    return refuse(new OAuthError('unsupported_response_type', 'response_type must be code'));
  if (params.code_challenge_method !== 'S256')
    return refuse(
      new OAuthError('invalid_request', 'PKCE is required with code_challenge_method S256 (plain is refused)'),
    );
  if (!params.code_challenge || !CODE_CHALLENGE_RE.test(params.code_challenge))
    return refuse(new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters (S256)'));
  try {
    return {
      outcome: 'ok',
      request: {
        client: { id: client.id, name: client.name },
        redirectUri,
        codeChallenge: params.code_challenge,
        scope: parseScope(params.scope),
        resource: parseResource(deps.config.publicBaseUrl, params.resource),
        state,
      },
    };
  } catch (err) {
    if (err instanceof OAuthError) return refuse(err);
    throw err;
  }
}
