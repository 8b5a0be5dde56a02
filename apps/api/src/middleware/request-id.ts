import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-Id; a safe one from the client is echoed, otherwise a fresh uuid. */
export function assignRequestId(req: Request, res: Response): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
}

/** assignRequestId as a middleware of its own (the app runs it inside requestLog, its first layer). */
export const requestId: RequestHandler = (req, res, next) => {
  assignRequestId(req, res);
  next();
};
