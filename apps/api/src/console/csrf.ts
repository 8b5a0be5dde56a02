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

/**
 * The Origin check of a state-changing request: `Origin`, or when a browser sent none, the origin of `Referer`,
 * must be the deployment's own (PUBLIC_BASE_URL). A request with neither is refused.
 */
export function fromOwnOrigin(req: Request, ownOrigin: string): boolean {
  const origin = req.get('origin');
  if (origin !== undefined) return origin === ownOrigin;
  const referer = req.get('referer');
  if (!referer) return false;
  try {
    return new URL(referer).origin === ownOrigin;
  } catch {
    return false;
  }
}
