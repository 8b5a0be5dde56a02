import {
  DEFAULT_METRICS_PORTS,
  createPrisma,
  createSsrfGuard,
  createWorkerRedis,
  exposeMetrics,
  loadConfigOrExit,
  loggerFromConfig,
} from '@statusvane/shared';
import { createWorkerRuntime } from './runtime.js';
import { startSubscribers } from './subscribers/start.js';
import { startWebhooks } from './webhooks/start.js';

// The process around the worker runtime (runtime.ts): config, the clients it owns, the metrics listener, signals.
const config = loadConfigOrExit();
const logger = loggerFromConfig(config, `worker:${config.region}`);
const prisma = createPrisma(config.databaseUrl, { max: 20 });
const connection = createWorkerRedis(config.redis);
connection.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));

const runtime = createWorkerRuntime({ config, prisma, connection, logger });
// Status page subscribers: their own queue and worker (docs/maintenance-and-status-pages.md).
const guard = createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });
const subscribers = startSubscribers({ config, prisma, connection, guard, logger });
// Event webhooks: the dispatch from the event log and the signed deliveries (docs/events.md).
const webhooks = startWebhooks({ config, prisma, connection, guard, logger });
const metricsListener = exposeMetrics({
  registry: runtime.metrics.registry,
  config: config.metrics,
  defaultPort: DEFAULT_METRICS_PORTS.worker,
  logger,
});

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info(`${signal}: letting running checks finish`);
  const force = setTimeout(() => process.exit(1), 30_000).unref();
  void metricsListener.then((m) => m.close());
  await Promise.allSettled([runtime.close(), subscribers.close(), webhooks.close()]);
  await Promise.allSettled([prisma.$disconnect()]);
  await Promise.allSettled([connection.quit()]);
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
