import express, { type Express } from 'express';
import type { ApiDeps } from './deps.js';
import { requireAuth } from './middleware/auth.js';
import { compressAnswers } from './middleware/compress.js';
import { corsFor } from './middleware/cors.js';
import { errorHandler, notFoundRoute } from './middleware/error-handler.js';
import { jsonBody } from './middleware/json-body.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestLog } from './middleware/request-log.js';
import { requestTrace } from './middleware/request-trace.js';
import { createApiMetrics } from './metrics/api-metrics.js';
import { API_ROUTES } from './routes/api-routes.js';
import { exceptOperations, labelRoutes, mountRoutes } from './routes/mount-routes.js';
import { queueDashboardRouter } from './routes/admin/queue-dashboard.router.js';
import { metricsRouter } from './routes/metrics/metrics.router.js';
import { apiIndexRouter } from './routes/docs/api-index.router.js';
import { docsRouter } from './routes/docs/docs.router.js';
import { healthRouter } from './routes/health/health.router.js';
import { PING_PREFIX, pingReceiver } from './routes/ping/ping.router.js';
import { publicPagesRouter } from './routes/public-pages/public-pages.router.js';
import { authorizeRouter, consoleRouter } from './console/console.router.js';
import { AUTHORIZE_PATH } from './console/pages/oauth.pages.js';
import { mcpRouter } from './routes/mcp/mcp.router.js';
import { oauthRouter } from './routes/oauth/oauth.router.js';
import { actionLinksRouter } from './routes/action-links/action-links.router.js';
import { calendarFeedsRouter } from './routes/calendar-feeds/calendar-feeds.router.js';

export const API_BASE = '/api/v1';

/** Builds the Express app from its dependencies; main.ts and the tests both call this. */
export function createApp(deps: ApiDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // No generated ETags: every answer here is computed per request, no API client revalidates, and Express would hash
  // every response body for one (a measurable share of a GET /monitors/{id}). The docs set their own.
  app.set('etag', false);
  // Whose X-Forwarded-For to believe (TRUST_PROXY, default none): req.ip is what the status page password limiter
  // counts per address and what request lines log, so behind a load balancer it must be the client, not the balancer.
  app.set('trust proxy', deps.config.trustProxy);
  app.set('query parser', 'simple');
  const metrics = deps.metrics ?? createApiMetrics(deps);
  // The request id, its log line and its duration metric: one layer.
  app.use(requestLog(deps.logger, metrics));
  // A span per request only when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT): otherwise not even mounted.
  if (deps.tracing) app.use(requestTrace(deps.tracing));
  app.use(compressAnswers(app));
  // Operator endpoints, mounted only when configured (every mounted router costs every request a pass): /metrics
  // on this port only with METRICS_TOKEN; Bull Board only with QUEUE_DASHBOARD and its token.
  if (deps.config.metrics.token) app.use(metricsRouter(metrics.registry, deps.config.metrics.token));
  if (deps.config.queueDashboard) {
    app.use(
      queueDashboardRouter(
        [...deps.scheduler.queues.values(), ...(deps.escalations ? [deps.escalations.queue] : [])],
        deps.config.queueDashboard.token,
      ),
    );
  }
  const api = express.Router();
  api.use(requireAuth(deps), rateLimit(deps.redis, deps.config.rateLimitPerMinute), jsonBody);
  mountRoutes(api, API_ROUTES, deps);
  // The heartbeat receiver first: the busiest public endpoint, and a single /ping prefix test for everything else.
  app.use(PING_PREFIX, pingReceiver(deps));
  // Public (no token): GET /api/v1/openapi.json and GET /docs, and the API's root, an index of where to read about it:
  // before the authenticated router, and passed by a request for an API operation (labelRoutes), which none of their
  // paths is.
  const index = apiIndexRouter(deps);
  const publicDocs = express.Router();
  publicDocs.use(docsRouter(), index.api);
  app.use(labelRoutes(API_ROUTES, API_BASE), exceptOperations(publicDocs));
  // CORS (CORS_ORIGINS) before the API's authentication and rate limit: a browser's preflight carries no token.
  const apiCors = corsFor(deps.config.corsOrigins);
  if (apiCors) app.use(API_BASE, apiCors);
  // The API before the routers of other paths: an API request (the hot path) then walks no route it cannot match.
  app.use(API_BASE, api);
  // The console (browser sessions, never a bearer token): /app/..., before the routers below (none of which serves a
  // path under /app), so that its pages pass none of their routes.
  app.use('/app', consoleRouter(deps));
  app.use(healthRouter(deps));
  // Public status pages (no token): GET /status/:slug, POST /status/:slug/login.
  app.use(publicPagesRouter(deps));
  // On-call (beyond-the-seed section 10): the acknowledge / resolve links of pages and the calendar feeds, whose
  // address is their credential.
  app.use(actionLinksRouter(deps));
  app.use(calendarFeedsRouter(deps));
  // `/` on the deployment's own host (a custom domain's `/` is its status page, above).
  app.use(index.root);
  // Connected apps (beyond-the-seed §11), at the service root in their own standards' terms: the OAuth metadata,
  // registration, token and revocation endpoints, and the consent page (a console page over the console's session).
  app.use(oauthRouter(deps));
  app.use(AUTHORIZE_PATH, authorizeRouter(deps));
  app.use(mcpRouter(deps));

  app.use(notFoundRoute);
  app.use(errorHandler(deps.logger));
  return app;
}
