import type { RequestHandler } from 'express';
import type { HttpMetrics } from '@statusvane/shared';
import { routeOf } from './request-log.js';

/**
 * Observes every request's duration by route template and status. The label is the template (`/ping/:secret`),
 * never the path, which can carry a ping secret or ids: bounded cardinality and no secrets in the metrics.
 */
export function httpMetrics(metrics: HttpMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.requestDuration.observe(
        { method: req.method, route: routeOf(req), status: String(res.statusCode) },
        seconds,
      );
    });
    next();
  };
}
