import type { Request, Response } from 'express';
import { UnauthorizedError } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';
import { ACCESS_COOKIE, readCookie, verifyAccessCookie } from '../../services/status-pages/page-access.js';
import { findPublicPage, type PublicPageRef } from '../../services/status-pages/public-page.js';
import type { PublicPageCache } from '../../services/status-pages/public-page-cache.js';
import { renderPasswordForm } from '../../views/status-page/page-forms.js';
import { contentSecurityPolicy, publicAssets, sendNotFound, setPageHeaders } from './respond.js';

/** The page a request is about, and where it lives on this host. */
export interface PageContext {
  page: PublicPageRef;
  now: Date;
  /** `/status/<slug>`, or '' when the page is served at the root of its custom domain. */
  basePath: string;
}

export interface PageRouteOptions {
  deps: ApiDeps;
  cookieKeys: readonly Buffer[];
  clock: () => Date;
  /** The pages' data, loaded once while current (services/status-pages/public-page-cache.ts). */
  pages: PublicPageCache;
  /** The links in subscriber mails: the token is the credential, the page's password is not asked. */
  skipPassword?: boolean;
}

/** What the top of a page below the status page shows (views/status-page/masthead.tsx). */
export const mastheadOf = (ctx: PageContext) => ({
  name: ctx.page.name,
  basePath: ctx.basePath,
  brand: ctx.page.brand,
});

/** Set by the custom-domain middleware when the request's Host is a page's customDomain. */
export const HOST_PAGE = 'statusvaneHostPage';

/** The public page a request names (the Host's, or the `:slug` of the path), or null; access is not checked. */
export async function requestedPage(
  req: Request,
  res: Response,
  opts: PageRouteOptions,
): Promise<PublicPageRef | null> {
  const hostPage = res.locals[HOST_PAGE] as PublicPageRef | undefined;
  return hostPage ?? (await findPublicPage(opts.deps.prisma, String(req.params.slug)));
}

/**
 * Finds the page (the `:slug` of the path, or the page the Host named) and checks access. Sends the answer and
 * returns null when the page must not be served: 404 when there is none or it is not public; 401 for a
 * password-protected page without its session cookie (the password form for `form`, a JSON envelope otherwise).
 * On success sets the caching headers: shared for open pages, `private, no-store` for protected ones.
 */
export async function openPage(
  req: Request,
  res: Response,
  opts: PageRouteOptions,
  answer: 'form' | 'json',
): Promise<PageContext | null> {
  setPageHeaders(res);
  const hostPage = res.locals[HOST_PAGE] as PublicPageRef | undefined;
  const page = await requestedPage(req, res, opts);
  if (!page) {
    await sendNotFound(res, answer === 'json');
    return null;
  }
  if (page.brand.logoUrl || page.brand.faviconUrl)
    res.setHeader('Content-Security-Policy', contentSecurityPolicy({ script: true, brandImages: true }));
  const now = opts.clock();
  if (page.passwordHash && !opts.skipPassword) {
    res.setHeader('Cache-Control', 'private, no-store');
    res.vary('Cookie');
    const cookie = readCookie(req.headers.cookie, ACCESS_COOKIE);
    if (!verifyAccessCookie(opts.cookieKeys, { id: page.id, passwordHash: page.passwordHash }, cookie, now)) {
      if (answer === 'json')
        res
          .status(401)
          .json(
            new UnauthorizedError('This status page is password-protected: sign in at its address first').toEnvelope(),
          );
      else
        res
          .status(401)
          .type('html')
          .send(renderPasswordForm(page, false, hostPage ? '' : `/status/${page.slug}`, await publicAssets()));
      return null;
    }
  } else {
    // Short shared caching absorbs the crowd that arrives during an outage.
    res.setHeader('Cache-Control', 'public, max-age=30');
  }
  return { page, now, basePath: hostPage ? '' : `/status/${page.slug}` };
}
