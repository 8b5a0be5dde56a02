import {
  CheckScheduler,
  EscalationScheduler,
  SubscriberQueue,
  createApiRedis,
  createPrisma,
  createSsrfGuard,
  loadConfigOrExit,
  loggerFromConfig,
  monitorSource,
  reconcileSchedules,
  startTracing,
} from '@statusvane/shared';
import { DEFAULT_METRICS_PORTS, exposeMetrics } from '@statusvane/shared';
import { createApp } from './app.js';
import { createApiServer } from './http-server.js';
import { createApiMetrics } from './metrics/api-metrics.js';
import { createLifecycle } from './shutdown.js';

const config = loadConfigOrExit();
const logger = loggerFromConfig(config, 'api');
const prisma = createPrisma(config.databaseUrl);
const redis = createApiRedis(config.redis);
redis.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));
// The queues' own connection: BullMQ defines its 60-odd scripts on the connection it is given, and ioredis copies
// every defined script onto each pipeline it makes (with auto-pipelining, about one per command): 12 µs of client CPU
// a rate-limit check at four at once, 30-40 µs a command one at a time, that the request path's commands (rate
// limits, sign-in guards) would pay (docs/decisions.md, "Cost per check and per request").
const queueRedis = createApiRedis(config.redis);
queueRedis.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));
const scheduler = new CheckScheduler(config.checkRegions, queueRedis, config.queuePrefix);
const guard = createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });
const escalations = new EscalationScheduler(queueRedis, config.queuePrefix);
const subscribers = new SubscriberQueue(queueRedis, config.queuePrefix);

const metrics = createApiMetrics({ prisma, scheduler });
const metricsListener = exposeMetrics({
  registry: metrics.registry,
  config: config.metrics,
  defaultPort: DEFAULT_METRICS_PORTS.api,
  logger,
});
const lifecycle = createLifecycle(logger);
// Null unless OTEL_EXPORTER_OTLP_ENDPOINT is set; then the SDK is loaded here, and only here.
const tracing = await startTracing({ service: 'statusvane-api' });
const app = createApp({
  config,
  prisma,
  redis,
  logger,
  scheduler,
  guard,
  escalations,
  subscribers,
  metrics,
  lifecycle,
  tracing,
});
const server = createApiServer(app, logger).listen(config.port, () => {
  logger.info(`API listening on ${config.publicBaseUrl}/api/v1 (port ${config.port})`);
});
// A port already taken, say: one readable line and exit 1 (app.listen passed this error to its "listening" callback).
server.once('error', (err: Error) => {
  logger.error(`API cannot listen on port ${config.port}: ${err.message}`);
  process.exit(1);
});
server.keepAliveTimeout = 65_000;
lifecycle.track(server);

// PostgreSQL is the source of truth for schedules: bring Redis in line at start-up (workers keep doing it).
queueRedis.once('ready', () => {
  reconcileSchedules(scheduler, monitorSource(prisma)).then(
    (r) => logger.info('schedules reconciled', { ...r }),
    (err: Error) => logger.warn('schedule reconciliation failed; workers will retry', { error: err.message }),
  );
});

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info(`${signal}: closing the API`);
  // The drain window, then at most 10 s for the requests in flight (docs/reliability.md, "Deploy").
  const drainMs = config.shutdownDrainSeconds * 1000;
  const force = setTimeout(() => process.exit(1), drainMs + 10_000).unref();
  // Readiness 503 at once, serve through the drain window, then stop accepting and let the requests already accepted
  // finish; only then close what they use.
  await lifecycle.drain(drainMs);
  void metricsListener.then((m) => m.close());
  await Promise.allSettled([
    scheduler.close(),
    escalations.close(),
    subscribers.close(),
    prisma.$disconnect(),
    tracing?.shutdown(),
  ]);
  await Promise.allSettled([redis.quit(), queueRedis.quit()]);
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
