import type { Request, Response } from 'express';
import type { HttpMetrics } from '@statusvane/shared';

/**
 * Observes a request's duration by route template and status (requestLog calls it once the answer is sent). The label
 * is the template (`/ping/:secret`), never the path, which can carry a ping secret or ids: bounded cardinality and no
 * secrets in the metrics.
 */
export function observeRequest(
  metrics: HttpMetrics,
  req: Request,
  res: Response,
  route: string,
  seconds: number,
): void {
  metrics.requestDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
}
