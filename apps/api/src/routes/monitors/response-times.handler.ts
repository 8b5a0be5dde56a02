import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { getResponseTimes } from '../../services/monitors/response-times.js';

export function responseTimesHandler(deps: ApiDeps): RequestHandler {
  return async (req, res) => {
    res.json({
      data: await getResponseTimes(deps, { ctx: ctxOf(res), id: String(req.params.id), query: req.query }),
    });
  };
}
