import type { Request, RequestHandler } from 'express';
import { writeLogLine, type HttpMetrics, type Logger } from '@statusvane/shared';
import { observeRequest } from './http-metrics.js';
import { assignRequestId } from './request-id.js';

/** The API's mount point (app.ts API_BASE): requests under it can be answered before any route matches. */
const API_SCOPE = '/api/v1';
/** A mount path made of fixed words only (never an id or secret), usable as a label as it is. */
const STATIC_MOUNT = /^(\/([a-z]+(-[a-z]+)*|v[0-9]+))+$/;

/** Where routes/mount-routes.ts labelRoutes puts a declared operation's template, before anything can answer. */
export const ROUTE_LABEL = 'routeLabel';

/**
 * The route template, never the raw path: paths can carry secrets (the heartbeat ping secret) and ids. A declared
 * API operation's request carries its template whoever answers it (labelRoutes: the 401 of authentication, a 429, an
 * error answered by the error middleware). Any other request answered before a route matched gets a bounded label:
 * its router's mount path when it was answered inside one (the queue dashboard's 401), `/api/v1 (unrouted)` for an
 * unknown path under the API, and `(unmatched)` otherwise.
 */
export function routeOf(req: Request): string {
  const label: unknown = req.res?.locals[ROUTE_LABEL];
  if (typeof label === 'string') return label;
  const route = req.route as { path?: unknown } | undefined;
  if (typeof route?.path === 'string')
    return route.path === '/' && req.baseUrl ? req.baseUrl : `${req.baseUrl}${route.path}`;
  // An error passed to next() leaves the routers before the error middleware runs, which resets baseUrl. Routing
  // ignores case, and so do these labels.
  const mount = req.baseUrl.toLowerCase();
  if (mount && STATIC_MOUNT.test(mount)) return `${mount} (unrouted)`;
  const path = req.originalUrl.split('?')[0]!.toLowerCase();
  if (path === API_SCOPE || path.startsWith(`${API_SCOPE}/`)) return `${API_SCOPE} (unrouted)`;
  return '(unmatched)';
}

/**
 * Request lines are `info`: the default level in production and development (LOG_LEVEL unset) writes them, as
 * issue 2 requires; `LOG_LEVEL=warn` turns them off.
 */
export const REQUEST_LOG_LEVEL = 'info';

/**
 * The first layer of every request: its id (X-Request-Id), and once it is answered its duration metric and one log
 * line: id, method, route, status, duration, client address. Never a token, header value or body. One layer, one
 * clock and one `finish` listener for the three (each layer and listener is paid on every request).
 */
export function requestLog(logger: Logger, metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    assignRequestId(req, res);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const elapsed = Number(process.hrtime.bigint() - started);
      const route = routeOf(req);
      observeRequest(metrics, req, res, route, elapsed / 1e9);
      // Skipped unless enabled: winston builds and streams every entry before filtering it by level, and writeLogLine
      // leaves the level to its caller.
      if (!logger.isLevelEnabled(REQUEST_LOG_LEVEL)) return;
      const durationMs = elapsed / 1e6;
      writeLogLine(logger, REQUEST_LOG_LEVEL, 'request', {
        requestId: res.locals.requestId,
        method: req.method,
        route,
        status: res.statusCode,
        // The client address (behind a load balancer, from X-Forwarded-For when TRUST_PROXY says whose to believe).
        ip: req.ip,
        durationMs: Math.round(durationMs * 10) / 10,
      });
    });
    next();
  };
}
