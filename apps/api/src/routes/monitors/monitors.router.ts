import { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { idempotency } from '../../middleware/idempotency.js';
import { requireJson } from '../../middleware/json-body.js';
import { createMonitorHandler } from './create-monitor.handler.js';
import { getMonitorHandler } from './get-monitor.handler.js';
import { listMonitorsHandler } from './list-monitors.handler.js';
import { responseTimesHandler } from './response-times.handler.js';
import { updateMonitorHandler } from './update-monitor.handler.js';

export function monitorsRouter(deps: ApiDeps): Router {
  const router = Router();
  router.get('/', listMonitorsHandler(deps));
  router.post('/', requireJson, idempotency(deps), createMonitorHandler(deps));
  router.get('/:id', getMonitorHandler(deps));
  router.patch('/:id', requireJson, updateMonitorHandler(deps));
  router.get('/:id/response-times', responseTimesHandler(deps));
  return router;
}
