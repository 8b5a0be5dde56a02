import { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { acknowledgeIncidentHandler } from './acknowledge-incident.handler.js';
import { deleteIncidentHandler } from './delete-incident.handler.js';
import { getEscalationHandler } from './get-escalation.handler.js';
import { listIncidentsHandler } from './list-incidents.handler.js';
import { resolveIncidentHandler } from './resolve-incident.handler.js';

export function incidentsRouter(deps: ApiDeps): Router {
  const router = Router();
  router.get('/', listIncidentsHandler(deps));
  router.get('/:id/escalation', getEscalationHandler(deps));
  router.post('/:id/acknowledge', acknowledgeIncidentHandler(deps));
  router.post('/:id/resolve', resolveIncidentHandler(deps));
  router.delete('/:id', deleteIncidentHandler(deps));
  return router;
}
