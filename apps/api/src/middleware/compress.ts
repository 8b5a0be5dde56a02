import type { ServerResponse } from 'node:http';
import compression from 'compression';
import type { Express, Request, RequestHandler, Response } from 'express';

/** Answers smaller than this go as they are: gzip's own framing would eat most of the saving. */
export const COMPRESS_MIN_BYTES = 1024;

/** Whether an answer of this Content-Type may be encoded: a compressible text type, never a server-sent event stream. */
const verdictOf = (req: Request, res: Response) => {
  const type = String(res.getHeader('Content-Type') ?? '');
  if (type.startsWith('text/event-stream')) return false;
  return compression.filter(req, res);
};

/** verdictOf by Content-Type, a pure function of it asked on every answer (a MIME database lookup each time). */
const verdicts = new Map<string, boolean>();
/** Bounds the map whatever types the routes set (they answer with a handful). */
const MAX_VERDICTS = 64;

/** What compression may encode (verdictOf), the verdicts on the usual string Content-Types kept. */
const compressible = (req: Request, res: Response) => {
  const type = res.getHeader('Content-Type');
  if (typeof type !== 'string') return verdictOf(req, res);
  let verdict = verdicts.get(type);
  if (verdict === undefined) {
    verdict = verdictOf(req, res);
    if (verdicts.size < MAX_VERDICTS) verdicts.set(type, verdict);
  }
  return verdict;
};

/** `Cache-Control: no-transform` forbids encoding an answer (compression leaves it alone, Vary included). */
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/;

/** Sets the headers handed to `writeHead` itself (an object, `[[k, v]]` or `[k, v, ...]`) as `on-headers` does. */
function setGivenHeaders(res: Response, headers: unknown): void {
  if (Array.isArray(headers)) {
    if (headers.length && Array.isArray(headers[0])) {
      for (const [k, v] of headers as Array<[string, string]>) if (k) res.setHeader(k, v);
      return;
    }
    if (headers.length % 2 !== 0) throw new TypeError('headers array is malformed');
    for (let i = 0; i < headers.length; i += 2) res.removeHeader(String(headers[i]));
    for (let i = 0; i < headers.length; i += 2) if (headers[i]) res.appendHeader(String(headers[i]), headers[i + 1]);
  } else if (headers && typeof headers === 'object') {
    for (const [k, v] of Object.entries(headers)) if (k) res.setHeader(k, v as string);
  }
}

/** What a request without Accept-Encoding gets on a compressible answer that `compression` would have encoded. */
function varyOnEncoding(req: Request, res: Response): void {
  if (!compressible(req, res)) return;
  const cacheControl = res.getHeader('Cache-Control');
  if (cacheControl && NO_TRANSFORM.test(String(cacheControl))) return;
  // res.vary's parse and merge, for the usual answer that has no Vary yet.
  if (res.getHeader('Vary') === undefined) res.setHeader('Vary', 'Accept-Encoding');
  else res.vary('Accept-Encoding');
}

/**
 * Every text answer over 1 KB (JSON, HTML, feeds, CSV, SVG) is gzipped (or deflated, or brotli-compressed) when the
 * client says it accepts it, with `Vary: Accept-Encoding`. Answers that arrive already encoded (the pages and assets
 * that keep encoded copies of what they render once: rendered-answer.ts) are sent as they are; a server-sent event
 * stream is never held back to be compressed.
 *
 * A request without Accept-Encoding (most API clients) is never encoded: the `compression` package would wrap the
 * response's write, end and on, and negotiate `identity`, for nothing but the `Vary: Accept-Encoding` it adds to a
 * compressible answer. That header alone is added here, at the same moment (just before the headers are written, with
 * every header set, those handed to `writeHead` included: when `compression`'s own hook decides) and on the same
 * answers: by `app`'s response prototype's writeHead, for every answer of the app to such a request, rather than by a
 * hook wrapped around each response (two closures a request).
 */
export function compressAnswers(app: Express): RequestHandler {
  const compress = compression({ threshold: COMPRESS_MIN_BYTES, filter: compressible });
  const proto = app.response as Response;
  const writeHead = proto.writeHead as (this: Response, ...args: unknown[]) => ServerResponse;
  proto.writeHead = function (this: Response, statusCode: number, reasonOrHeaders?: unknown, headers?: unknown) {
    // With Accept-Encoding, `compression` (its hook wraps this one) decides; Node calls writeHead only once.
    if (this.req.headers['accept-encoding'] !== undefined)
      return writeHead.call(this, statusCode, reasonOrHeaders, headers);
    const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
    this.statusCode = statusCode;
    setGivenHeaders(this, reason === undefined ? reasonOrHeaders : headers);
    varyOnEncoding(this.req, this);
    return reason === undefined ? writeHead.call(this, this.statusCode) : writeHead.call(this, this.statusCode, reason);
  } as Response['writeHead'];
  return (req, res, next) => {
    if (req.headers['accept-encoding'] !== undefined) return compress(req, res, next);
    next();
  };
}
