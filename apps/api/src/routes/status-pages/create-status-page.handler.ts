import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { createStatusPage } from '../../services/status-pages/create-status-page.js';

export function createStatusPageHandler({ prisma, config }: ApiDeps): RequestHandler {
  return async (req, res) => {
    res.status(201).json({ data: await createStatusPage({ prisma, publicBaseUrl: config.publicBaseUrl }, { ctx: ctxOf(res), input: req.body }) });
  };
}
