import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { createMonitor } from '../../services/monitors/create-monitor.js';

export function createMonitorHandler(deps: ApiDeps): RequestHandler {
  return async (req, res) => {
    res.status(201).json({ data: await createMonitor(deps, { ctx: ctxOf(res), input: req.body }) });
  };
}
