import type { RequestHandler } from 'express';
import { loadPublicPage } from '../../services/status-pages/public-page.js';
import { openPage, type PageRouteOptions } from './page-context.js';
import { renderStatusPage } from './render-public-page.js';
import { wantsJson } from './respond.js';

/**
 * GET /status/:slug (or `/` on the page's custom domain), no token: the page as HTML, or as `{ data }` JSON when
 * Accept prefers it (with `Access-Control-Allow-Origin: *`). Not found and not public are the same 404. A
 * password-protected page needs the access cookie: without it HTML visitors get the form (401) and JSON clients
 * a 401 envelope.
 */
export function viewPublicPageHandler(opts: PageRouteOptions): RequestHandler {
  return async (req, res) => {
    const json = wantsJson(req);
    if (json) res.setHeader('Access-Control-Allow-Origin', '*');
    const ctx = await openPage(req, res, opts, json ? 'json' : 'form');
    if (!ctx) return;
    const data = await loadPublicPage(
      { prisma: opts.deps.prisma, publicBaseUrl: opts.deps.config.publicBaseUrl },
      { page: ctx.page, now: ctx.now },
    );
    if (json) res.json({ data });
    else res.type('html').send(renderStatusPage(data, { basePath: ctx.basePath }));
  };
}
