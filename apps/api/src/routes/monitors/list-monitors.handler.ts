import type { RequestHandler } from 'express';
import { paginationQuerySchema, parseOrThrow } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { listMonitors } from '../../services/monitors/list-monitors.js';

export function listMonitorsHandler({ prisma, config }: ApiDeps): RequestHandler {
  return async (req, res) => {
    const query = parseOrThrow(paginationQuerySchema, req.query, 'query');
    res.json(await listMonitors({ prisma, ctx: ctxOf(res), query, publicBaseUrl: config.publicBaseUrl }));
  };
}
