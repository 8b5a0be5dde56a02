import type { RequestHandler } from 'express';
import { openPage, type PageRouteOptions } from './page-context.js';
import { renderStatusPage } from '../../views/status-page/status-page.js';
import { sendRendered } from '../../middleware/rendered-answer.js';
import { publicAssets, wantsJson } from './respond.js';

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
    const page = await opts.pages.load(ctx.page, ctx.now);
    const assets = json ? null : await publicAssets();
    // Rendered (and encoded) once per load of the page's data and base path, then sent as is.
    if (json)
      await sendRendered(
        req,
        res.type('application/json'),
        page.rendered('json', (data) => JSON.stringify({ data })),
      );
    else
      await sendRendered(
        req,
        res.type('html'),
        page.rendered(`html ${ctx.basePath}`, (data) =>
          renderStatusPage(data, { basePath: ctx.basePath, assets: assets! }),
        ),
      );
  };
}
