import type { Request, Response } from 'express';

/** What Express's `type('application/json')` sets. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers `status` (a 2xx with a body) with `text`, whose full Content-Type (charset included) is `type`: what
 * `res.status(status).type(type).send(text)` writes, the same headers in the same order, without Express's status
 * validation, MIME lookups and charset reparsing, nor, for a text over 1,000 characters, its copy into a Buffer (which
 * also makes Node write the header and the body as two chunks). A conditional request goes through Express, whose
 * freshness check may make it a 304. The hot answers (the ping's, an operation's JSON) are written here.
 */
export function answerText(req: Request, res: Response, status: number, type: string, text: string): void {
  if (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) {
    res.status(status).type(type).send(text);
    return;
  }
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  if (req.method === 'HEAD') res.end();
  else res.end(text);
}
