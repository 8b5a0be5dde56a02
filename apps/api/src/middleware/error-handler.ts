import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, isUnavailableError, UnavailableError, ValidationError, type Logger } from '@statusvane/shared';
import { BearerError } from '../services/auth/bearer-error.js';
import { routeOf } from './request-log.js';

/** How much of an unknown path a 404 repeats: the path comes from the client (it can be kilobytes long). */
const ECHOED_PATH_MAX = 100;

/** Unknown routes answer the same envelope as everything else; the path is echoed bounded (it is percent-encoded). */
export const notFoundRoute: RequestHandler = (req, _res, next) => {
  const path = req.path.length > ECHOED_PATH_MAX ? `${req.path.slice(0, ECHOED_PATH_MAX)}...` : req.path;
  next(new AppError('not_found', `No route for ${req.method} ${path}`));
};

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
}

/**
 * Maps body-parser's errors to invalid_request with details.issues, as the decisions ask of malformed JSON and a
 * wrong content type: 400, except a body over the limit, which may be 413. (body-parser's own 415 for an unknown
 * charset or content encoding is a wrong content type too.)
 */
function fromBodyParser(err: BodyParserError): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new ValidationError('The request body is not valid JSON', [
        { path: '(body)', message: 'is not valid JSON' },
      ]);
    case 'entity.verify.failed':
      return new ValidationError('The request body is not valid UTF-8', [
        { path: '(body)', message: 'is not valid UTF-8' },
      ]);
    case 'entity.too.large':
      return new AppError(
        'invalid_request',
        'The request body is larger than 256 KiB',
        { issues: [{ path: '(body)', message: 'is larger than 256 KiB' }] },
        413,
      );
    case 'encoding.unsupported':
      return new ValidationError('Unsupported Content-Encoding', [
        { path: 'Content-Encoding', message: 'must be identity, gzip, deflate or br' },
      ]);
    case 'charset.unsupported':
      return new ValidationError('Unsupported charset', [
        { path: 'Content-Type', message: 'must be application/json with charset utf-8 (or no charset)' },
      ]);
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new ValidationError('The request body could not be read', [
        { path: '(body)', message: 'could not be read' },
      ]);
    default:
      return null;
  }
}

/**
 * The one error middleware: AppError -> its envelope; dependency outages -> 503 `internal`; anything else is a
 * bug, logged once with the request id, answered 500 without internals.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    let appError: AppError;
    if (err instanceof AppError) appError = err;
    else if (err && typeof err === 'object' && fromBodyParser(err as BodyParserError))
      appError = fromBodyParser(err as BodyParserError)!;
    else if (isUnavailableError(err)) {
      appError = new UnavailableError('a dependency is unreachable');
      logger.warn('dependency unavailable', { requestId: res.locals.requestId, error: (err as Error)?.message });
    } else if (err && typeof err === 'object' && (err as { status?: number }).status === 400) {
      appError = new AppError('invalid_request', 'The request is malformed');
    } else {
      appError = new AppError('internal', 'Something went wrong on our side; the request id identifies it');
      const e = err instanceof Error ? err : new Error(String(err));
      logger.error('unhandled error', {
        requestId: res.locals.requestId,
        method: req.method,
        route: routeOf(req),
        error: e.message,
        stack: e.stack,
      });
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (appError instanceof BearerError) res.setHeader('WWW-Authenticate', appError.challenge());
    else if (appError.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer');
    if (appError.httpStatus === 503) res.setHeader('Retry-After', '5');
    res.status(appError.httpStatus).json(appError.toEnvelope());
  };
}
