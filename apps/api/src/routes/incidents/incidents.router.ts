import { Router } from 'express';
import type { ApiDeps } from '../../deps.js';
import { acknowledgeIncidentHandler } from './acknowledge-incident.handler.js';
import { deleteIncidentHandler } from './delete-incident.handler.js';
import { getEscalationHandler } from './get-escalation.handler.js';
import { listIncidentsHandler } from './list-incidents.handler.js';
import { resolveIncidentHandler } from './resolve-incident.handler.js';

/** `clock` is injectable so tests can move time through a ladder (due, elapsedMinutes, acknowledgedAt). */
export function incidentsRouter(deps: ApiDeps, clock: () => Date = () => new Date()): Router {
  const router = Router();
  router.get('/', listIncidentsHandler(deps, clock));
  router.get('/:id/escalation', getEscalationHandler(deps, clock));
  router.post('/:id/acknowledge', acknowledgeIncidentHandler(deps, clock));
  router.post('/:id/resolve', resolveIncidentHandler(deps, clock));
  router.delete('/:id', deleteIncidentHandler(deps));
  return router;
}
