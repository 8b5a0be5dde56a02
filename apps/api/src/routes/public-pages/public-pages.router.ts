import express, { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { accessKey } from '../../services/status-pages/page-access.js';
import { findPageByHost } from '../../services/status-pages/public-page.js';
import { publicPageCache } from '../../services/status-pages/public-page-cache.js';
import { loginPublicPageHandler } from './login-public-page.handler.js';
import { incidentPageHandlers } from './incident-pages.handler.js';
import { HOST_PAGE, type PageRouteOptions } from './page-context.js';
import { pageResourceHandlers } from './page-resources.handler.js';
import { publicPageErrors } from './respond.js';
import { subscriptionHandlers } from './subscriptions.handler.js';
import { viewPublicPageHandler } from './view-public-page.handler.js';

/**
 * What a page serves, relative to where it lives (`/status/<slug>`, or `/` on its custom domain): the page, its
 * incidents' pages and history, its feeds, badges and Statuspage-format JSON, and the password login.
 */
function pageRoutes(opts: PageRouteOptions): Router {
  const { deps, cookieKeys, clock } = opts;
  const r = Router({ mergeParams: true });
  const resources = pageResourceHandlers(opts);
  r.get('/', viewPublicPageHandler(opts));
  const pages = incidentPageHandlers(opts);
  r.get('/incidents/:incidentId', pages.incident);
  r.get('/history', pages.history);
  r.get('/feed.atom', resources.atom);
  r.get('/feed.rss', resources.rss);
  r.get('/badge.svg', resources.badge);
  r.get('/brand.css', resources.brandCss);
  r.get('/components/:componentId/badge.svg', resources.componentBadge);
  r.get('/api/v2/summary.json', resources.summary);
  r.get('/api/v2/status.json', resources.status);
  const subs = subscriptionHandlers(opts);
  const form = express.urlencoded({ limit: '8kb', extended: false, parameterLimit: 210 });
  r.get('/subscribe', subs.subscribePage);
  r.post('/subscribe', express.json({ limit: '16kb' }), form, subs.subscribe);
  r.get('/subscriptions/:token/confirm', subs.confirmForm);
  r.post('/subscriptions/:token/confirm', form, subs.confirm);
  r.get('/subscriptions/:token/unsubscribe', subs.unsubscribeForm);
  r.post('/subscriptions/:token/unsubscribe', form, subs.unsubscribe);
  r.post(
    '/login',
    express.urlencoded({ limit: '4kb', extended: false, parameterLimit: 10 }),
    loginPublicPageHandler(deps, cookieKeys[0]!, clock),
  );
  return r;
}

/** The paths a page serves at the root of its custom domain; anything else on such a host is not looked up. */
const HOST_PAGE_PATH =
  /^\/(?:incidents\/[^/]{1,64}|history|brand\.css|feed\.atom|feed\.rss|badge\.svg|components\/[^/]{1,64}\/badge\.svg|api\/v2\/(?:summary|status)\.json|subscribe|subscriptions\/[^/]{1,64}\/(?:confirm|unsubscribe)|login)?$/;

/**
 * A request whose Host is a page's customDomain gets that page at `/` and its resources beside it. The lookup (one
 * unique-index read) happens only for the page paths, and never for the deployment's own host name.
 */
function customDomainRoutes(opts: PageRouteOptions): Router {
  const ownHost = new URL(opts.deps.config.publicBaseUrl).hostname.toLowerCase();
  const r = Router();
  r.use(async (req, res, next) => {
    const host = req.hostname?.toLowerCase();
    if (!host || host === ownHost || !HOST_PAGE_PATH.test(req.path)) {
      next('router');
      return;
    }
    const page = await findPageByHost(opts.deps.prisma, host);
    if (!page) {
      next('router');
      return;
    }
    res.locals[HOST_PAGE] = page;
    next();
  });
  r.use(pageRoutes(opts));
  r.use(publicPageErrors(opts.deps.logger));
  return r;
}

/**
 * The public status pages, mounted at the root (outside /api/v1, no token): `/status/<slug>/...` on any host, and
 * the root of a page's custom domain. The urlencoded parser runs only on the form routes, with small caps.
 * `clock` is injectable for tests.
 */
export function publicPagesRouter(deps: ApiDeps, clock: () => Date = () => new Date()): Router {
  const { current, old } = deps.config.encryption;
  const cookieKeys = [current, ...old].map((k) => accessKey(k.key));
  const pages = publicPageCache({
    prisma: deps.prisma,
    publicBaseUrl: deps.config.publicBaseUrl,
    checkRegions: deps.config.checkRegions,
  });
  const opts: PageRouteOptions = { deps, cookieKeys, clock, pages };
  const router = Router();
  router.use(customDomainRoutes(opts));
  router.use('/status/:slug', pageRoutes(opts));
  router.use('/status', publicPageErrors(deps.logger));
  return router;
}
