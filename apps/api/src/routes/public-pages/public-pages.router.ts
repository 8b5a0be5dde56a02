import express, { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { accessKey } from '../../services/status-pages/page-access.js';
import { loginPublicPageHandler } from './login-public-page.handler.js';
import { publicPageErrors } from './respond.js';
import { viewPublicPageHandler } from './view-public-page.handler.js';

/**
 * The public status pages, mounted at the root (outside /api/v1, no token). The urlencoded parser runs only on
 * the login route, with a 4 KiB cap. `clock` is injectable for tests.
 */
export function publicPagesRouter(deps: ApiDeps, clock: () => Date = () => new Date()): Router {
  const { current, old } = deps.config.encryption;
  const keys = [current, ...old].map((k) => accessKey(k.key));
  const router = Router();
  router.get('/status/:slug', viewPublicPageHandler(deps, keys, clock));
  router.post(
    '/status/:slug/login',
    express.urlencoded({ limit: '4kb', extended: false, parameterLimit: 10 }),
    loginPublicPageHandler(deps, keys[0]!, clock),
  );
  router.use('/status', publicPageErrors(deps.logger));
  return router;
}
