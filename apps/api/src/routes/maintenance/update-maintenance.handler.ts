import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { updateMaintenance } from '../../services/maintenance/update-maintenance.js';

export function updateMaintenanceHandler({ prisma }: ApiDeps, clock: () => Date): RequestHandler {
  return async (req, res) => {
    res.json({
      data: await updateMaintenance(
        { prisma },
        { ctx: ctxOf(res), id: String(req.params.id), input: req.body, now: clock() },
      ),
    });
  };
}
