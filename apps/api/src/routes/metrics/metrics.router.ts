import { Router } from 'express';
import { serveMetrics, type Registry } from '@statusvane/shared';

/**
 * `GET /metrics` on the public API port, only when METRICS_TOKEN is set (and then only with that bearer token).
 * Without a token the metrics are served solely by the separate listener on METRICS_HOST:METRICS_PORT (loopback by
 * default), so they are never public by accident.
 */
export function metricsRouter(registry: Registry, token: string | null): Router {
  const router = Router();
  if (token) {
    const handle = serveMetrics(registry, token);
    router.get('/metrics', (req, res) => handle(req, res));
  }
  return router;
}
