import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { getMonitor } from '../../services/monitors/get-monitor.js';

export function getMonitorHandler({ prisma, config }: ApiDeps): RequestHandler {
  return async (req, res) => {
    res.json({
      data: await getMonitor(
        { prisma, publicBaseUrl: config.publicBaseUrl },
        { ctx: ctxOf(res), id: String(req.params.id) },
      ),
    });
  };
}
