import type { Request, RequestHandler } from 'express';
import type { Logger } from '@statusvane/shared';

/** The route template, never the raw path: paths can carry secrets (the heartbeat ping secret). */
export function routeOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (typeof route?.path !== 'string') return '(unmatched)';
  return route.path === '/' && req.baseUrl ? req.baseUrl : `${req.baseUrl}${route.path}`;
}

/** One line per request: id, method, route, status, duration. Never a token, header value or body. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // Skipped unless enabled: winston builds and streams every entry before filtering it by level.
      if (!logger.isLevelEnabled('http')) return;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.http('request', {
        requestId: res.locals.requestId,
        method: req.method,
        route: routeOf(req),
        status: res.statusCode,
        durationMs: Math.round(durationMs * 10) / 10,
      });
    });
    next();
  };
}
