import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { createMaintenance } from '../../services/maintenance/create-maintenance.js';

export function createMaintenanceHandler({ prisma }: ApiDeps, clock: () => Date): RequestHandler {
  return async (req, res) => {
    res
      .status(201)
      .json({ data: await createMaintenance({ prisma }, { ctx: ctxOf(res), input: req.body, now: clock() }) });
  };
}
