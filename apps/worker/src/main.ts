import {
  DEFAULT_METRICS_PORTS,
  createPrisma,
  createWorkerRedis,
  exposeMetrics,
  loadConfigOrExit,
  loggerFromConfig,
  startTracing,
} from '@statusvane/shared';
import { probeUserAgent } from './probes/http.probe.js';
import { createWorkerRuntime } from './runtime.js';
import { warmUpHttpProbe } from './warm-up.js';

// The process around the worker runtime (runtime.ts): config, the clients it owns, the metrics listener, signals.
const config = loadConfigOrExit();
const logger = loggerFromConfig(config, `worker:${config.region}`);
const prisma = createPrisma(config.databaseUrl, { max: 20 });
const connection = createWorkerRedis(config.redis);
connection.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));

// Null unless OTEL_EXPORTER_OTLP_ENDPOINT is set; then the SDK is loaded here, and only here.
const tracing = await startTracing({ service: 'statusvane-worker' });
// Before any job: the probe's code compiled, not interpreted, when the first real checks come (warm-up.ts).
if (config.workerWarmUpChecks > 0) {
  // A warm-up that cannot run (no loopback to listen on) costs only the warm-up: the worker starts anyway.
  await warmUpHttpProbe(config.workerWarmUpChecks, probeUserAgent(config.region)).then(
    (warm) => logger.info('check path warmed up', { ...warm }),
    (err: Error) => logger.warn('check path not warmed up', { error: err.message }),
  );
}
const runtime = createWorkerRuntime({ config, prisma, connection, logger, tracing });
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
  await runtime.close();
  await tracing?.shutdown().catch(() => undefined);
  await Promise.allSettled([prisma.$disconnect()]);
  await Promise.allSettled([connection.quit()]);
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
