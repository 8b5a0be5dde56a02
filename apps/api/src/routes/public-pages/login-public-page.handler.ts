import type { RequestHandler } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ApiDeps } from '../../deps.js';
import { ACCESS_COOKIE, issueAccessCookie } from '../../services/status-pages/page-access.js';
import { verifyPassword } from '../../services/status-pages/password.js';
import { findPublicPage, type PublicPageRef } from '../../services/status-pages/public-page.js';
import { HOST_PAGE } from './page-context.js';
import { renderMessage, renderPasswordForm } from '../../views/status-page/page-forms.js';
import { publicAssets, sendNotFound, setPageHeaders } from './respond.js';

/** Password guesses per page and client address per minute. */
export const LOGIN_ATTEMPTS_PER_MINUTE = 10;
const PASSWORD_MAX = 200;

/**
 * POST /status/:slug/login (urlencoded `password`): the right password sets the signed access cookie (HttpOnly,
 * SameSite=Lax, Path=/status/<slug>) and redirects 303 to the page; a wrong one shows the form again with 401.
 * Guessing is slowed by scrypt and capped per page and address in Redis; if Redis is down the cap is skipped
 * rather than locking every visitor out of a private page during an outage.
 */
export function loginPublicPageHandler(deps: ApiDeps, cookieKey: Buffer, clock: () => Date): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: deps.redis,
    points: LOGIN_ATTEMPTS_PER_MINUTE,
    duration: 60,
    keyPrefix: 'sv:status-login',
    useRedisPackage: false,
  });
  const secure = deps.config.publicBaseUrl.startsWith('https:');

  return async (req, res) => {
    setPageHeaders(res);
    res.setHeader('Cache-Control', 'no-store');
    const hostPage = res.locals[HOST_PAGE] as PublicPageRef | undefined;
    const page = hostPage ?? (await findPublicPage(deps.prisma, String(req.params.slug)));
    if (!page) {
      await sendNotFound(res, false);
      return;
    }
    if (!page.passwordHash) {
      res.redirect(303, hostPage ? '/' : `/status/${page.slug}`);
      return;
    }
    try {
      await limiter.consume(`${page.id}:${req.ip ?? 'unknown'}`, 1);
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        res.setHeader('Retry-After', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
        res
          .status(429)
          .type('html')
          .send(
            renderMessage(
              'Too many attempts',
              'Too many password attempts. Wait a minute and try again.',
              await publicAssets(),
            ),
          );
        return;
      }
      deps.logger.warn('status page login limiter unavailable', {
        requestId: res.locals.requestId,
        error: (err as Error)?.message,
      });
    }
    const body = req.body as Record<string, unknown> | undefined;
    const password = typeof body?.password === 'string' ? body.password : '';
    const ok =
      password.length > 0 && password.length <= PASSWORD_MAX && (await verifyPassword(password, page.passwordHash));
    if (!ok) {
      res
        .status(401)
        .type('html')
        .send(renderPasswordForm(page, true, hostPage ? '' : `/status/${page.slug}`, await publicAssets()));
      return;
    }
    const { value, expires } = issueAccessCookie(cookieKey, { id: page.id, passwordHash: page.passwordHash }, clock());
    res.cookie(ACCESS_COOKIE, value, {
      httpOnly: true,
      sameSite: 'lax',
      // On its custom domain the page is the whole site.
      path: hostPage ? '/' : `/status/${page.slug}`,
      expires,
      secure,
    });
    res.redirect(303, hostPage ? '/' : `/status/${page.slug}`);
  };
}
