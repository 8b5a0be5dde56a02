import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { resolveIncident } from '../../services/incidents/resolve-incident.js';

export function resolveIncidentHandler({ prisma, escalations }: ApiDeps, clock: () => Date): RequestHandler {
  return async (req, res) => {
    res.json({
      data: await resolveIncident(prisma, {
        ctx: ctxOf(res),
        id: String(req.params.id),
        body: req.body,
        escalations,
        now: clock(),
      }),
    });
  };
}
