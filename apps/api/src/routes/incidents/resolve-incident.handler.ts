import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { resolveIncident } from '../../services/incidents/resolve-incident.js';
import { assertNoBody } from './no-body.js';

export function resolveIncidentHandler({ prisma, escalations }: ApiDeps): RequestHandler {
  return async (req, res) => {
    assertNoBody(req.body);
    res.json({ data: await resolveIncident(prisma, { ctx: ctxOf(res), id: String(req.params.id), escalations }) });
  };
}
