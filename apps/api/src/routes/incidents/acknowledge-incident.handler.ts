import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { acknowledgeIncident } from '../../services/incidents/acknowledge-incident.js';
import { assertNoBody } from './no-body.js';

export function acknowledgeIncidentHandler({ prisma, escalations }: ApiDeps): RequestHandler {
  return async (req, res) => {
    assertNoBody(req.body);
    res.json({ data: await acknowledgeIncident(prisma, { ctx: ctxOf(res), id: String(req.params.id), escalations }) });
  };
}
