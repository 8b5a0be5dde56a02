import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { deleteIncident } from '../../services/incidents/delete-incident.js';

export function deleteIncidentHandler({ prisma }: ApiDeps): RequestHandler {
  return async (req, res) => {
    await deleteIncident(prisma, { ctx: ctxOf(res), id: String(req.params.id) });
    res.status(204).end();
  };
}
