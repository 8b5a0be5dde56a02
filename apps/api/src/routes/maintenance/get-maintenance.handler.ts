import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { getMaintenance } from '../../services/maintenance/get-maintenance.js';

export function getMaintenanceHandler({ prisma }: ApiDeps, clock: () => Date): RequestHandler {
  return async (req, res) => {
    res.json({ data: await getMaintenance({ prisma }, { ctx: ctxOf(res), id: String(req.params.id), now: clock() }) });
  };
}
