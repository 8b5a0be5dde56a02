import type { Request, RequestHandler, Response } from 'express';
import type { PublicPageData } from '../../services/status-pages/public-page.js';
import { openPage, requestedPage, type PageContext, type PageRouteOptions } from './page-context.js';
import { PUBLIC_STATUS_LABELS, type PublicStatus } from '../../services/status-pages/public-status.js';
import { brandStylesheet } from '../../views/status-page/brand-colours.js';
import { renderBadge, type BadgeColour } from './render-badge.js';
import { renderAtom, renderRss } from './render-feeds.js';
import { sendNotFound } from './respond.js';
import { statuspageStatus, statuspageSummary } from './statuspage-format.js';

type Resource = (req: Request, res: Response, ctx: PageContext, data: PublicPageData) => void;

/**
 * The resources beside a page: same lookup and access rule as the page (404 unknown or not public, 401 without
 * the session of a protected page), same caching. `cors`: JSON and badges may be read from any origin.
 */
function pageResource(opts: PageRouteOptions, cors: boolean, send: Resource): RequestHandler {
  return async (req, res) => {
    if (cors) res.setHeader('Access-Control-Allow-Origin', '*');
    const ctx = await openPage(req, res, opts, 'json');
    if (!ctx) return;
    const { data } = await opts.pages.load(ctx.page, ctx.now);
    send(req, res, ctx, data);
  };
}

/** Badges say what the page says, in its words; the colours are the banner's. */
const STATUS_BADGE: Record<PublicStatus, BadgeColour> = {
  operational: 'green',
  degraded_performance: 'amber',
  partial_outage: 'orange',
  major_outage: 'red',
  under_maintenance: 'blue',
};
const badgeText = (s: PublicStatus) => PUBLIC_STATUS_LABELS[s].toLowerCase();

const sendSvg = (res: Response, svg: string) => res.type('image/svg+xml').send(svg);

export function pageResourceHandlers(opts: PageRouteOptions) {
  return {
    atom: pageResource(opts, false, (_req, res, _ctx, data) =>
      res.type('application/atom+xml').send(renderAtom(data, `${data.page.url}/feed.atom`)),
    ),
    rss: pageResource(opts, false, (_req, res, _ctx, data) =>
      res.type('application/rss+xml').send(renderRss(data, `${data.page.url}/feed.rss`)),
    ),
    badge: pageResource(opts, true, (_req, res, _ctx, data) => {
      sendSvg(res, renderBadge('status', badgeText(data.summary), STATUS_BADGE[data.summary]));
    }),
    componentBadge: pageResource(opts, true, (req, res, _ctx, data) => {
      const id = String(req.params.componentId).toLowerCase();
      const c = data.components.find((x) => x.id === id);
      if (!c) {
        void sendNotFound(res, true);
        return;
      }
      sendSvg(res, renderBadge(c.name, badgeText(c.state), STATUS_BADGE[c.state]));
    }),
    /**
     * The page's colours (views/status-page/brand-colours.ts), without the password: the form of a protected page
     * wears them too, and a colour tells nothing. Its address changes with the colour, so it is cached a day.
     */
    brandCss: (async (req, res) => {
      const page = await requestedPage(req, res, opts);
      if (!page?.brand.brandColor) {
        await sendNotFound(res, true);
        return;
      }
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Cache-Control', 'public, max-age=86400');
      res.type('text/css').send(brandStylesheet(page.brand.brandColor));
    }) satisfies RequestHandler,
    summary: pageResource(opts, true, (_req, res, ctx, data) => res.json(statuspageSummary(data, ctx.page.id))),
    status: pageResource(opts, true, (_req, res, ctx, data) => res.json(statuspageStatus(data, ctx.page.id))),
  };
}
