import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { storeAnswerInTransaction } from '../../middleware/idempotency.js';
import { createStatusPage } from '../../services/status-pages/create-status-page.js';
import type { StatusPageRecord } from '../../services/status-pages/status-page-record.js';

const envelope = (data: StatusPageRecord) => ({ data });

export function createStatusPageHandler({ prisma, config }: ApiDeps): RequestHandler {
  return async (req, res) => {
    // With an Idempotency-Key, the answer is stored in the transaction that creates the page.
    const inTransaction = storeAnswerInTransaction(res, 201, envelope);
    res
      .status(201)
      .json(
        envelope(
          await createStatusPage(
            { prisma, publicBaseUrl: config.publicBaseUrl },
            { ctx: ctxOf(res), input: req.body, inTransaction },
          ),
        ),
      );
  };
}
