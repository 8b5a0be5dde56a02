import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { getIncidentEscalation } from '../../services/incidents/get-escalation.js';

export function getEscalationHandler({ prisma }: ApiDeps, clock: () => Date): RequestHandler {
  return async (req, res) => {
    res.json({
      data: await getIncidentEscalation(prisma, { ctx: ctxOf(res), id: String(req.params.id), now: clock() }),
    });
  };
}
