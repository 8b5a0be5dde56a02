import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { updateMonitor } from '../../services/monitors/update-monitor.js';

export function updateMonitorHandler(deps: ApiDeps): RequestHandler {
  return async (req, res) => {
    res.json({ data: await updateMonitor(deps, { ctx: ctxOf(res), id: String(req.params.id), input: req.body }) });
  };
}
