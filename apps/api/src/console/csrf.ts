import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

const LABEL = 'statusvane/console-csrf/v1';

/**
 * The CSRF token of forms shown to the holder of a cookie secret (the session's, or before sign-in the pre-session
 * one): an HMAC of a label under that secret. Another site can neither read the HttpOnly cookie nor compute the
 * token, and nothing needs storing: the token changes with the session.
 */
export function csrfTokenFor(secret: string): string {
  return createHmac('sha256', secret).update(LABEL).digest('base64url');
}

/** Whether `token` is the CSRF token of one of the request's cookie secrets. */
export function csrfTokenMatches(token: unknown, secrets: ReadonlyArray<string | undefined>): boolean {
  if (typeof token !== 'string' || token.length !== 43) return false;
  const given = Buffer.from(token);
  return secrets.some((s) => {
    if (!s) return false;
    const expected = Buffer.from(csrfTokenFor(s));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

/** The one-time link pages (`/invite/<token>`, `/forgot/<token>`, under the console's mount). */
const LINK_PAGE = /^\/(?:invite|forgot)\/[A-Za-z0-9_-]{1,100}$/;

/**
 * The Origin check of a state-changing request: `Origin`, or when a browser sent none, the origin of `Referer`,
 * must be the deployment's own (PUBLIC_BASE_URL). A request with neither is refused.
 *
 * One exception: the form of an invitation or reset link. Its page sends `Referrer-Policy: no-referrer` (its URL
 * holds the token), and under that policy browsers send `Origin: null` and no Referer with the form's POST. There,
 * `null` is let through: the URL's token is a secret no other site knows (as for the acknowledge links), and the
 * pre-session CSRF token is still required.
 */
export function fromOwnOrigin(req: Request, ownOrigin: string): boolean {
  const origin = req.get('origin');
  if (origin === 'null' && req.get('referer') === undefined && LINK_PAGE.test(req.path)) return true;
  if (origin !== undefined) return origin === ownOrigin;
  const referer = req.get('referer');
  if (!referer) return false;
  try {
    return new URL(referer).origin === ownOrigin;
  } catch {
    return false;
  }
}
