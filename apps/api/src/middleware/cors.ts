import cors from 'cors';
import type { RequestHandler } from 'express';
import type { Config } from '@statusvane/shared';
import { WORKSPACE_HEADER } from './auth.js';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from './idempotency.js';

/** What a browser may send: the token, the body's type, and the API's own request headers. */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  IDEMPOTENCY_KEY_HEADER,
  WORKSPACE_HEADER,
  'X-Request-Id',
  'If-Match',
  'If-None-Match',
];

/** What a browser script may read beyond the safelisted headers: the rate limit, retries, ids and versions. */
const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  REPLAYED_HEADER,
  'ETag',
];

/** How long a browser may reuse a preflight answer: 10 minutes (browsers cap it at 2 hours or less anyway). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS for the management API (CORS_ORIGINS), or null when no origin is configured: then no CORS header is ever
 * sent. Mounted before authentication and the rate limit, so a preflight (which carries no token) is answered 204
 * by itself. Credentials (cookies, HTTP authentication) are never allowed, for any origin: the API authenticates
 * with a bearer token the script sends in `Authorization`, and nothing would be gained but exposure.
 */
export function corsFor(origins: Config['corsOrigins']): RequestHandler | null {
  if (origins !== '*' && origins.length === 0) return null;
  const handle = cors((req, callback) =>
    callback(null, {
      // `*` answers every origin with `*`; a list answers an allowed Origin with itself (and Vary: Origin).
      origin: origins === '*' ? '*' : origins,
      credentials: false,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ALLOWED_HEADERS,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_SECONDS,
      // An OPTIONS without Access-Control-Request-Method is not a preflight: it goes on to routing like any request.
      preflightContinue: req.headers['access-control-request-method'] === undefined,
    }),
  );
  return (req, res, next) => {
    // Not a cross-origin request: no CORS headers, but the answer still depends on Origin for caches (a list).
    if (req.headers.origin === undefined) {
      if (origins !== '*') res.vary('Origin');
      next();
      return;
    }
    handle(req, res, next);
  };
}
