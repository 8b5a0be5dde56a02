import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { getStatusPageLayout } from '../../services/status-pages/get-status-page-layout.js';

export function getStatusPageLayoutHandler({ prisma }: ApiDeps): RequestHandler {
  return async (req, res) => {
    res.json({ data: await getStatusPageLayout({ prisma }, { ctx: ctxOf(res), id: String(req.params.id) }) });
  };
}
