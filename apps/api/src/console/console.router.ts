import express, { Router, type RequestHandler } from 'express';
import type { ApiDeps } from '../deps.js';
import { createForgotLimits } from '../services/users/forgot-password.js';
import { sendRendered } from '../middleware/rendered-answer.js';
import { createSignInGuard } from '../services/users/sign-in-guard.js';
import { loadAssets, type AssetUrls } from '../views/assets.js';
import { consoleCookies, readPresessionCookie, readSessionCookie, type ConsoleCookies } from './console-cookies.js';
import { csrfTokenMatches, fromOwnOrigin } from './csrf.js';
import { mountPages, type PageMountOptions } from './define-page.js';
import { consolePageCache } from './page-cache.js';
import { accountPages } from './pages/account.pages.js';
import { connectedAppPages } from './pages/connected-apps.pages.js';
import { consoleErrors, notFoundPage, refusedWritePage } from './pages/error-pages.js';
import { monitorDetailPages } from './pages/monitor.pages.js';
import { AUTHORIZE_PATH, oauthPages } from './pages/oauth.pages.js';
import { incidentPages } from './pages/incidents.pages.js';
import { maintenancePages } from './pages/maintenance.pages.js';
import { statusPagePages } from './pages/status-pages.pages.js';
import { monitorPages } from './pages/monitors.pages.js';
import { contactMethodPages, oncallPages } from './pages/oncall.pages.js';
import { passwordPages } from './pages/password.pages.js';
import { auditPages } from './pages/settings-audit.pages.js';
import { memberPages } from './pages/settings-members.pages.js';
import { policyPages } from './pages/settings-policies.pages.js';
import { tokenPages } from './pages/settings-tokens.pages.js';
import { webhookPages } from './pages/settings-webhooks.pages.js';
import { signInPages } from './pages/sign-in.pages.js';
import { wallPages } from './pages/wall.pages.js';
import { isReservedWorkspaceSlug } from './reserved-slugs.js';
import { consoleHeaders } from './security-headers.js';
import { CSRF_FIELD } from '../views/components/form.js';
import { renderPage } from '../views/render.js';

/** The built files, by hashed name, cached for a year; encoded for clients that take it. */
const assetFiles: RequestHandler = async (req, res, next) => {
  const file = (await loadAssets()).files.get(String(req.params.file));
  if (!file) {
    next();
    return;
  }
  res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  res.setHeader('Content-Type', file.type);
  await sendRendered(req, res, file.answer);
};

/**
 * Every request that is not a GET must come from this deployment's origin (Origin, else Referer) and carry the CSRF
 * token of the browser's session or pre-session cookie: otherwise 403 before anything is read or written.
 */
function writeGuard(deps: ApiDeps, cookies: ConsoleCookies, assets: () => Promise<AssetUrls>): RequestHandler {
  const ownOrigin = new URL(deps.config.publicBaseUrl).origin;
  // The largest forms: an api monitor's ten steps (bodies up to 32 KB, schemas, rows of assertions), an escalation
  // ladder, the components of a window.
  const form = express.urlencoded({ extended: false, limit: '1mb', parameterLimit: 2000 });
  return async (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      next();
      return;
    }
    const refuse = async () => {
      res
        .status(403)
        .type('html')
        .send(refusedWritePage(await assets()));
    };
    if (!fromOwnOrigin(req, ownOrigin)) {
      await refuse();
      return;
    }
    form(req, res, (err?: unknown) => {
      if (err) {
        next(err);
        return;
      }
      const token = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
      if (!csrfTokenMatches(token, [readSessionCookie(req, cookies), readPresessionCookie(req, cookies)])) {
        refuse().catch(next);
        return;
      }
      next();
    });
  };
}

/**
 * The OAuth consent page (`/oauth/authorize`, beyond-the-seed §11): a console page at the service root, with the
 * console's session, headers and write guard.
 */
export function authorizeRouter(deps: ApiDeps): Router {
  const router = Router();
  const cookies = consoleCookies(deps.config.publicBaseUrl);
  const assets = async () => (await loadAssets()).urls;
  router.use(consoleHeaders, writeGuard(deps, cookies, assets));
  mountPages(router, oauthPages(), {
    deps,
    cookies,
    assets,
    clock: deps.clock ?? (() => new Date()),
    mount: AUTHORIZE_PATH,
  });
  router.use(consoleErrors(deps.logger, () => assets()));
  return router;
}

/**
 * The console, mounted at /app (beyond-the-seed §7): server-rendered pages over the same services as the API, every
 * write behind the write guard.
 */
export function consoleRouter(deps: ApiDeps): Router {
  const router = Router();
  const cookies = consoleCookies(deps.config.publicBaseUrl);
  const assets = async () => (await loadAssets()).urls;
  const opts: Omit<PageMountOptions, 'mount'> = {
    deps,
    cookies,
    assets,
    clock: deps.clock ?? (() => new Date()),
    pageCache: consolePageCache(),
  };

  router.use(consoleHeaders);
  router.get('/assets/:file', assetFiles);
  router.use(writeGuard(deps, cookies, assets));

  const pages = Router();
  mountPages(
    pages,
    [
      ...signInPages({ guard: createSignInGuard(deps.redis) }),
      ...passwordPages({ forgotLimits: createForgotLimits(deps.redis) }),
      ...accountPages(),
      ...contactMethodPages(),
      ...connectedAppPages(),
      ...wallPages(),
    ],
    { ...opts, mount: '/app' },
  );

  const notFound: RequestHandler = async (_req, res) => {
    const answer = notFoundPage(await assets());
    if ('view' in answer) res.status(404).type('html').send(renderPage(answer.view));
  };
  // A workspace's pages, at /app/w/<slug>/... (any slug) and /app/<slug>/... (a slug the console does not reserve:
  // the reserved first segments are the pages above, or nothing). Mounted before those: the busiest pages then pass
  // none of the account's and sign-in's routes.
  const workspacePages = () => [
    ...monitorPages(),
    ...monitorDetailPages(),
    ...oncallPages(),
    ...incidentPages(),
    ...maintenancePages(),
    ...statusPagePages(),
    ...memberPages(),
    ...tokenPages(),
    ...policyPages(),
    ...webhookPages(),
    ...auditPages(),
  ];
  const longForm = Router({ mergeParams: true });
  mountPages(longForm, workspacePages(), { ...opts, mount: '/app/w/{ws}' });
  const shortForm = Router({ mergeParams: true });
  shortForm.use((req, _res, next) => next(isReservedWorkspaceSlug(String(req.params.ws)) ? 'router' : undefined));
  mountPages(shortForm, workspacePages(), { ...opts, mount: '/app/{ws}' });
  router.use('/w/:ws', longForm);
  router.use('/:ws', shortForm);
  router.use(pages);
  router.use(notFound);
  router.use(consoleErrors(deps.logger, () => assets()));
  return router;
}
