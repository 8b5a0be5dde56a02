import { createHash } from 'node:crypto';
import { safeEqual } from '@statusvane/shared';

/** An authorization code lives 60 s (beyond-the-seed §11). */
export const CODE_TTL_MS = 60_000;
/** An `mcp_at_` access token lives one hour. */
export const ACCESS_TOKEN_TTL_S = 3600;
/** An `mcp_rt_` refresh token expires 30 days after it was issued; each use issues a new one (idle expiry). */
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;
export const REFRESH_TOKEN_PREFIX = 'mcp_rt_';

export type OAuthResourceName = 'api' | 'mcp';
export type OAuthScopeName = 'read' | 'write';
export const SCOPES = ['read', 'write'] as const;

/** The error codes of RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2 and RFC 8707 (`invalid_target`). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  // Too many requests from one address (429 with Retry-After): RFC 6749 §4.1.2.1's code for "try again later".
  | 'temporarily_unavailable';

/**
 * A refusal in the OAuth endpoints' own terms (`{ error, error_description }`, not the API's envelope): the OAuth
 * router answers it with `status` (400, or 401 for `invalid_client`) and `Cache-Control: no-store`.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** The URL a resource is named by (RFC 8707): `<PUBLIC_BASE_URL>/api/v1` or `<PUBLIC_BASE_URL>/mcp`. */
export function resourceUrl(publicBaseUrl: string, resource: OAuthResourceName): string {
  return `${publicBaseUrl}${resource === 'api' ? '/api/v1' : '/mcp'}`;
}

/** The resource a `resource` parameter names; absent: the API. Anything else: `invalid_target`. */
export function parseResource(publicBaseUrl: string, raw: string | undefined): OAuthResourceName {
  if (raw === undefined) return 'api';
  // A trailing slash names the same resource (clients differ on it).
  const given = raw.replace(/\/+$/, '');
  for (const r of ['api', 'mcp'] as const) if (given === resourceUrl(publicBaseUrl, r)) return r;
  throw new OAuthError(
    'invalid_target',
    `resource must be ${resourceUrl(publicBaseUrl, 'mcp')} or ${resourceUrl(publicBaseUrl, 'api')}`,
  );
}

/** The scope a `scope` parameter asks for: `read` (also when absent or empty) or `write` (which includes read). */
export function parseScope(raw: string | undefined): OAuthScopeName {
  const asked = (raw ?? '').split(' ').filter(Boolean);
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new OAuthError('invalid_scope', `Unknown scope ${unknown[0]}: use read or write`);
  return asked.includes('write') ? 'write' : 'read';
}

/** The `scope` string a token answer carries: write includes read. */
export const scopeString = (scope: OAuthScopeName): string => (scope === 'write' ? 'read write' : 'read');

/** Whether consent to `granted` covers a request for `asked`. */
export const scopeCovers = (granted: OAuthScopeName, asked: OAuthScopeName): boolean =>
  granted === 'write' || asked === 'read';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * What is wrong with a redirect URI a client registers, or null: https, http on a loopback host (RFC 8252 §7.3), or
 * a private-use scheme in reverse-domain form (RFC 8252 §7.1, `com.example.app:/callback`); never a fragment, never
 * credentials in the URL.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'is longer than 2000 characters';
  const url = URL.parse(uri);
  if (!url) return 'is not an absolute URL';
  if (url.hash || uri.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return null;
  if (scheme === 'http') return LOOPBACK_HOSTS.has(url.hostname) ? null : 'http is allowed only for loopback hosts';
  // A private-use scheme: reverse domain name notation (a dot), and none of the schemes a browser runs or reads.
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/.test(scheme)) return null;
  return 'must be https, http on a loopback host, or a private-use scheme such as com.example.app:';
}

/**
 * Whether `given` is one of the client's registered redirect URIs: exactly the same string, except that a loopback
 * http URI may use another port (RFC 8252 §7.3: native apps get an ephemeral port from the system).
 */
export function redirectUriMatches(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  const url = URL.parse(given);
  if (!url || url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || given.includes('#')) return false;
  const withoutPort = (u: URL) => `${u.hostname}${u.pathname}${u.search}`;
  return registered.some((r) => {
    const reg = URL.parse(r);
    return reg?.protocol === 'http:' && LOOPBACK_HOSTS.has(reg.hostname) && withoutPort(reg) === withoutPort(url);
  });
}

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(verifier)) equals the challenge; verifiers are 43-128 unreserved. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return safeEqual(createHash('sha256').update(verifier, 'ascii').digest('base64url'), challenge);
}

/** A code challenge as S256 makes it: 43 base64url characters. */
export const CODE_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;
