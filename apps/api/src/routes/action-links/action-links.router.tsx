import { Router, type RequestHandler, type Response } from 'express';
import { AppError } from '@statusvane/shared';
import { consoleHeaders } from '../../console/security-headers.js';
import type { ApiDeps } from '../../deps.js';
import { applyActionLink } from '../../services/action-links/apply-action-link.js';
import type { LinkState } from '../../services/action-links/action-link-state.js';
import { checkActionLink } from '../../services/action-links/check-action-link.js';
import {
  ActionLinkConfirmPage,
  ActionLinkDonePage,
  ActionLinkGonePage,
  ActionLinkRefusedPage,
} from '../../views/action-link-page.js';
import { loadAssets } from '../../views/assets.js';
import { renderPage } from '../../views/render.js';
import type { VNode } from 'preact';

/** Where the links of pages live: `<PUBLIC_BASE_URL>/a/<token>/acknowledge` and `/resolve`. */
export const ACTION_LINK_PREFIX = '/a';

const html = (res: Response, status: number, page: VNode) =>
  void res.status(status).type('html').send(renderPage(page));

/**
 * The acknowledge and resolve links of every page (beyond-the-seed section 10): GET shows a confirmation page (it
 * changes nothing, so a mail scanner's fetch is harmless), its form POSTs to the same address, which acts once.
 * Spent, expired or resolved: 410; unknown: 404. Pages as the console's: the view layer, its CSP (no inline script
 * or style), and `Referrer-Policy: no-referrer` because the address is the secret.
 */
export function actionLinksRouter(deps: ApiDeps): Router {
  const router = Router();
  const clock = deps.clock ?? (() => new Date());
  const gone = async (res: Response, state: Extract<LinkState, { usable: false }>) => {
    const assets = (await loadAssets()).urls;
    html(res, state.why === 'unknown' ? 404 : 410, <ActionLinkGonePage assets={assets} state={state} />);
  };
  const headers: RequestHandler = (_req, res, next) => {
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    next();
  };
  router.use(`${ACTION_LINK_PREFIX}/:token/:action`, consoleHeaders, headers);
  router.get(`${ACTION_LINK_PREFIX}/:token/:action`, async (req, res) => {
    const input = { token: String(req.params.token), action: String(req.params.action) };
    const state = await checkActionLink(deps, { ctx: { now: clock() }, input });
    if (!state.usable) return gone(res, state);
    const assets = (await loadAssets()).urls;
    html(res, 200, <ActionLinkConfirmPage assets={assets} state={state} path={req.originalUrl.split('?')[0]!} />);
  });
  router.post(`${ACTION_LINK_PREFIX}/:token/:action`, async (req, res) => {
    const input = { token: String(req.params.token), action: String(req.params.action) };
    const assets = (await loadAssets()).urls;
    try {
      const state = await applyActionLink(deps, { ctx: { now: clock() }, input });
      if (!state.usable) return gone(res, state);
      html(res, 200, <ActionLinkDonePage assets={assets} state={state} />);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'forbidden' && err.code !== 'conflict')) throw err;
      html(res, err.code === 'forbidden' ? 403 : 409, <ActionLinkRefusedPage assets={assets} message={err.message} />);
    }
  });
  return router;
}
