import { Histogram, type Registry } from 'prom-client';

export interface HttpMetrics {
  /** Labels: method, route (the route template, never the raw path), status. */
  requestDuration: Histogram<'method' | 'route' | 'status'>;
}

/** Request duration by route template and status code. */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  return {
    requestDuration: new Histogram({
      name: 'statusvane_http_request_duration_seconds',
      help: 'API request duration by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}
