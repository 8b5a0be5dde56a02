import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { acknowledgeIncident } from '../../services/incidents/acknowledge-incident.js';

export function acknowledgeIncidentHandler({ prisma, escalations }: ApiDeps, clock: () => Date): RequestHandler {
  return async (req, res) => {
    res.json({
      data: await acknowledgeIncident(prisma, {
        ctx: ctxOf(res),
        id: String(req.params.id),
        body: req.body,
        escalations,
        now: clock(),
      }),
    });
  };
}
