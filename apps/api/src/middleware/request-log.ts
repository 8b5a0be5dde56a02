import type { Request, RequestHandler } from 'express';
import type { Logger } from '@statusvane/shared';

/** The route template, never the raw path: paths can carry secrets (the heartbeat ping secret). */
export function routeOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (typeof route?.path !== 'string') return '(unmatched)';
  return route.path === '/' && req.baseUrl ? req.baseUrl : `${req.baseUrl}${route.path}`;
}

/**
 * Request lines are `info`: the default level in production and development (LOG_LEVEL unset) writes them, as
 * issue 2 requires; `LOG_LEVEL=warn` turns them off.
 */
export const REQUEST_LOG_LEVEL = 'info';

/** One line per request: id, method, route, status, duration, client address. Never a token, header value or body. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // Skipped unless enabled: winston builds and streams every entry before filtering it by level.
      if (!logger.isLevelEnabled(REQUEST_LOG_LEVEL)) return;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.log(REQUEST_LOG_LEVEL, 'request', {
        requestId: res.locals.requestId,
        method: req.method,
        route: routeOf(req),
        status: res.statusCode,
        // The client address (behind a load balancer, from X-Forwarded-For when TRUST_PROXY says whose to believe).
        ip: req.ip,
        durationMs: Math.round(durationMs * 10) / 10,
      });
    });
    next();
  };
}
