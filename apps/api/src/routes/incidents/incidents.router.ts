import { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { deleteIncidentHandler } from './delete-incident.handler.js';
import { listIncidentsHandler } from './list-incidents.handler.js';

export function incidentsRouter(deps: ApiDeps): Router {
  const router = Router();
  router.get('/', listIncidentsHandler(deps));
  router.delete('/:id', deleteIncidentHandler(deps));
  return router;
}
