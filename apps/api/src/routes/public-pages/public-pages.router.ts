import express, { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { accessKey } from '../../services/status-pages/page-access.js';
import { loginPublicPageHandler } from './login-public-page.handler.js';
import type { PageRouteOptions } from './page-context.js';
import { pageResourceHandlers } from './page-resources.handler.js';
import { publicPageErrors } from './respond.js';
import { subscriptionHandlers } from './subscriptions.handler.js';
import { viewPublicPageHandler } from './view-public-page.handler.js';

/**
 * What a page serves, relative to where it lives (`/status/<slug>`, or `/` on its custom domain): the page, its
 * feeds, badges and Statuspage-format JSON, and the password login.
 */
function pageRoutes(opts: PageRouteOptions): Router {
  const { deps, cookieKeys, clock } = opts;
  const r = Router({ mergeParams: true });
  const resources = pageResourceHandlers(opts);
  r.get('/', viewPublicPageHandler(opts));
  r.get('/feed.atom', resources.atom);
  r.get('/feed.rss', resources.rss);
  r.get('/badge.svg', resources.badge);
  r.get('/components/:componentId/badge.svg', resources.componentBadge);
  r.get('/api/v2/summary.json', resources.summary);
  r.get('/api/v2/status.json', resources.status);
  const subs = subscriptionHandlers(opts);
  const form = express.urlencoded({ limit: '8kb', extended: false, parameterLimit: 210 });
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

/**
 * The public status pages, mounted at the root (outside /api/v1, no token). The urlencoded parser runs only on
 * the login route, with a 4 KiB cap. `clock` is injectable for tests.
 */
export function publicPagesRouter(deps: ApiDeps, clock: () => Date = () => new Date()): Router {
  const { current, old } = deps.config.encryption;
  const cookieKeys = [current, ...old].map((k) => accessKey(k.key));
  const opts: PageRouteOptions = { deps, cookieKeys, clock };
  const router = Router();
  router.use('/status/:slug', pageRoutes(opts));
  router.use('/status', publicPageErrors(deps.logger));
  return router;
}
