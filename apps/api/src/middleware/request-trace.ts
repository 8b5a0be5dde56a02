import type { RequestHandler } from 'express';
import type { Tracing } from '@statusvane/shared';
import { routeOf } from './request-log.js';

/**
 * One server span per request (OTEL_EXPORTER_OTLP_ENDPOINT set: app.ts mounts this only then), named
 * `<METHOD> <route template>` when the answer is sent: the template the request log and the metrics use (routeOf),
 * never the URL, which can carry a ping secret, a feed token or an id. Attributes: method, route, status code.
 */
export function requestTrace(tracing: Tracing): RequestHandler {
  const { api, tracer } = tracing;
  return (req, res, next) => {
    const span = tracer.startSpan(
      req.method,
      { kind: api.SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
      api.ROOT_CONTEXT,
    );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const route = routeOf(req);
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end();
    };
    // `close` without `finish`: the client went away before the answer was sent.
    res.on('finish', end);
    res.on('close', end);
    next();
  };
}
