import { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { listMonitorsHandler } from './list-monitors.handler.js';

export function monitorsRouter(deps: ApiDeps): Router {
  const router = Router();
  router.get('/', listMonitorsHandler(deps));
  return router;
}
