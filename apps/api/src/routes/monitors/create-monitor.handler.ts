import type { RequestHandler } from 'express';
import type { ApiDeps } from '../../deps.js';
import { ctxOf } from '../../middleware/auth.js';
import { storeAnswerInTransaction } from '../../middleware/idempotency.js';
import { createMonitor } from '../../services/monitors/create-monitor.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';

const envelope = (data: MonitorRecord) => ({ data });

export function createMonitorHandler(deps: ApiDeps): RequestHandler {
  return async (req, res) => {
    // With an Idempotency-Key, the answer is stored in the transaction that creates the monitor.
    const inTransaction = storeAnswerInTransaction(res, 201, envelope);
    res.status(201).json(envelope(await createMonitor(deps, { ctx: ctxOf(res), input: req.body, inTransaction })));
  };
}
