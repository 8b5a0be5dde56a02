import type { RequestHandler } from 'express';
import { UnauthorizedError } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';
import { ACCESS_COOKIE, readCookie, verifyAccessCookie } from '../../services/status-pages/page-access.js';
import { findPublicPage, loadPublicPage } from '../../services/status-pages/public-page.js';
import { renderPasswordForm, renderStatusPage } from './render-public-page.js';
import { sendNotFound, setPageHeaders, wantsJson } from './respond.js';

/**
 * GET /status/:slug, no token: the page as HTML, or as `{ data }` JSON when Accept prefers it. Not found and
 * not public are the same 404. A password-protected page needs the access cookie: without it HTML visitors get
 * the form (401) and JSON clients a 401 envelope.
 */
export function viewPublicPageHandler(deps: ApiDeps, cookieKeys: readonly Buffer[], clock: () => Date): RequestHandler {
  return async (req, res) => {
    setPageHeaders(res);
    const json = wantsJson(req);
    const page = await findPublicPage(deps.prisma, String(req.params.slug));
    if (!page) {
      sendNotFound(res, json);
      return;
    }
    const now = clock();
    if (page.passwordHash) {
      res.setHeader('Cache-Control', 'private, no-store');
      res.vary('Cookie');
      const cookie = readCookie(req.headers.cookie, ACCESS_COOKIE);
      if (!verifyAccessCookie(cookieKeys, { id: page.id, passwordHash: page.passwordHash }, cookie, now)) {
        if (json)
          res
            .status(401)
            .json(
              new UnauthorizedError(
                'This status page is password-protected: sign in at its address first',
              ).toEnvelope(),
            );
        else res.status(401).type('html').send(renderPasswordForm(page, false));
        return;
      }
    } else {
      // Short shared caching absorbs the crowd that arrives during an outage.
      res.setHeader('Cache-Control', 'public, max-age=30');
    }
    const data = await loadPublicPage({ prisma: deps.prisma, publicBaseUrl: deps.config.publicBaseUrl }, { page, now });
    if (json) res.json({ data });
    else res.type('html').send(renderStatusPage(data));
  };
}
