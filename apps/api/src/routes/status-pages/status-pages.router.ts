import { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { idempotency } from '../../middleware/idempotency.js';
import { requireJson } from '../../middleware/json-body.js';
import { createStatusPageHandler } from './create-status-page.handler.js';
import { getStatusPageLayoutHandler } from './get-status-page-layout.handler.js';

export function statusPagesRouter(deps: ApiDeps): Router {
  const router = Router();
  router.post('/', requireJson, idempotency(deps), createStatusPageHandler(deps));
  router.get('/:id/layout', getStatusPageLayoutHandler(deps));
  return router;
}
