import type { RequestHandler } from 'express';
import { paginationQuerySchema, parseOrThrow } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { listIncidents } from '../../services/incidents/list-incidents.js';

export function listIncidentsHandler({ prisma }: ApiDeps, clock: () => Date): RequestHandler {
  return async (req, res) => {
    const query = parseOrThrow(paginationQuerySchema, req.query, 'query');
    res.json(await listIncidents(prisma, { ctx: ctxOf(res), query, now: clock() }));
  };
}
