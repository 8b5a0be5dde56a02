import { createHash, timingSafeEqual } from 'node:crypto';
import type { createBullBoard } from '@bull-board/api';
import { Router, type RequestHandler } from 'express';
import type { Queue } from 'bullmq';
import { bearerMatches, UnauthorizedError } from '@statusvane/shared';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** HTTP Basic with the token as password (any user name): what a browser can send for a dashboard. */
function basicPasswordMatches(header: string | undefined, token: string): boolean {
  const m = header ? /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m) return false;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && timingSafeEqual(digest(decoded.slice(colon + 1)), digest(token));
}

/** Operators only: `Authorization: Bearer <QUEUE_DASHBOARD_TOKEN>`, or Basic auth with it as the password. */
export function requireDashboardToken(token: string): RequestHandler {
  return (req, res, next) => {
    const header = req.get('authorization');
    if (bearerMatches(header, token) || basicPasswordMatches(header, token)) return next();
    // Answered here rather than thrown: the error middleware would offer Bearer only, and a browser needs the Basic
    // challenge to show its login prompt.
    const err = new UnauthorizedError(
      'The queue dashboard needs QUEUE_DASHBOARD_TOKEN (Bearer, or Basic auth password)',
    );
    res.setHeader('WWW-Authenticate', 'Basic realm="Statusvane queues", charset="UTF-8"');
    res.status(err.httpStatus).json(err.toEnvelope());
  };
}

/** Bull Board's Express router for `queues`. Its packages are loaded here, on first use (about 0.5 s of CPU). */
async function boardRouter(queues: readonly Queue[]): Promise<RequestHandler> {
  const [{ createBullBoard: create }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
  ]);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  create({
    // Bull Board's typings are built against BullMQ 5; the Queue API it calls is the same in 6.
    queues: queues.map((q) => new BullMQAdapter(q as never)),
    // @bull-board/express pins its own copy of @bull-board/api (9.10.1 vs 9.10.2): same shape, separate declarations.
    serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'Statusvane queues' } },
  });
  return serverAdapter.getRouter() as RequestHandler;
}

/**
 * Bull Board for the check (and escalation) queues at /admin/queues, mounted only when QUEUE_DASHBOARD=true; the
 * configuration refuses to start without QUEUE_DASHBOARD_TOKEN, so it is never open. It can retry, promote and
 * delete jobs: operators' tool, not users'. Built by the first request that passes the token, so that an API (or a
 * test) that never shows it never loads it.
 */
export function queueDashboardRouter(queues: readonly Queue[], token: string | null): Router {
  const router = Router();
  if (!token) return router;
  let board: Promise<RequestHandler> | undefined;
  router.use(QUEUE_DASHBOARD_PATH, requireDashboardToken(token), async (req, res, next) => {
    (await (board ??= boardRouter(queues)))(req, res, next);
  });
  return router;
}
