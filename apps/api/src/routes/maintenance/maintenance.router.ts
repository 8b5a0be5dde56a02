import { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { requireJson } from '../../middleware/json-body.js';
import { createMaintenanceHandler } from './create-maintenance.handler.js';
import { getMaintenanceHandler } from './get-maintenance.handler.js';
import { updateMaintenanceHandler } from './update-maintenance.handler.js';

/** `clock` is injectable so tests can stand exactly on a window's boundaries. */
export function maintenanceRouter(deps: ApiDeps, clock: () => Date = () => new Date()): Router {
  const router = Router();
  router.post('/', requireJson, createMaintenanceHandler(deps, clock));
  router.get('/:id', getMaintenanceHandler(deps, clock));
  router.patch('/:id', requireJson, updateMaintenanceHandler(deps, clock));
  return router;
}
