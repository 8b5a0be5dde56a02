import { Worker } from 'bullmq';
import {
  CheckScheduler,
  ESCALATION_QUEUE,
  EscalationScheduler,
  checkQueueName,
  createLogger,
  createPrisma,
  createSsrfGuard,
  createWorkerRedis,
  loadConfigOrExit,
} from '@statusvane/shared';
import { DEFAULT_METRICS_PORTS, exposeMetrics } from '@statusvane/shared';
import { startHousekeeping } from './housekeeping.js';
import { countLostResults, createWorkerMetrics } from './metrics/worker-metrics.js';
import { checkProcessor } from './processors/check.processor.js';
import { createDeliverer } from './escalation/deliver/deliverer.js';
import { scheduleIncidentLadder, sweepEscalations, type EscalationDeps } from './escalation/engine.js';
import { escalationProcessor } from './processors/escalation.processor.js';
import { startSubscribers } from './subscribers/start.js';
import { createHttpProbe } from './probes/http.probe.js';
import { createTcpProbe } from './probes/tcp.probe.js';

const config = loadConfigOrExit();
const logger = createLogger({
  level: config.logLevel,
  json: config.env === 'production',
  service: `worker:${config.region}`,
});
const prisma = createPrisma(config.databaseUrl, { max: 20 });
const connection = createWorkerRedis(config.redisUrl);
connection.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));
const guard = createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });

// Escalation: one queue for all regions, so any worker pages (docs/escalation.md).
const escalations = new EscalationScheduler(connection, config.queuePrefix);
const deliverer = createDeliverer({ guard, encryptionKey: config.encryption.current.key, smtp: config.smtp });
const escalationDeps: EscalationDeps = {
  prisma,
  scheduler: escalations,
  deliverer,
  logger,
  keyring: config.encryption,
};
const escalationWorker = new Worker(ESCALATION_QUEUE, escalationProcessor(escalationDeps), {
  connection,
  prefix: config.queuePrefix,
  concurrency: 20,
});
escalationWorker.on('error', (err) => logger.error('escalation worker error', { error: err.message }));
escalationWorker.on('failed', (job, err) =>
  logger.warn('escalation job failed', { jobId: job?.id, attempts: job?.attemptsMade, error: err.message }),
);

// Status page subscribers: their own queue and worker (docs/maintenance-and-status-pages.md).
const subscribers = startSubscribers({ config, prisma, connection, guard, logger });

// Check schedules (housekeeping reconciles them) and heartbeat deadlines (armed after each heartbeat evaluation).
const scheduler = new CheckScheduler(config.checkRegions, connection, config.queuePrefix);

const metrics = createWorkerMetrics(config.region);
const worker = new Worker(
  checkQueueName(config.region),
  checkProcessor(
    {
      prisma,
      keyring: config.encryption,
      httpProbe: createHttpProbe({ guard }),
      tcpProbe: createTcpProbe({ guard }),
      logger,
      heartbeatDeadlines: scheduler,
      onIncidentOpened: (incidentId) => scheduleIncidentLadder(escalationDeps, incidentId),
    },
    metrics,
  ),
  // lockDuration/stalledInterval: how soon the running checks of a crashed worker go to another (docs/reliability.md).
  {
    connection,
    prefix: config.queuePrefix,
    concurrency: config.workerConcurrency,
    lockDuration: config.jobLockMs,
    stalledInterval: config.jobLockMs,
  },
);
worker.on('error', (err) => logger.error('worker error', { error: err.message }));
worker.on('failed', (job, err) =>
  logger.warn('check job failed', { jobId: job?.id, attempts: job?.attemptsMade, error: err.message }),
);
worker.on('ready', () => logger.info(`worker ready on queue ${checkQueueName(config.region)}`));
countLostResults(worker, metrics);
const metricsListener = exposeMetrics({
  registry: metrics.registry,
  config: config.metrics,
  defaultPort: DEFAULT_METRICS_PORTS.worker,
  logger,
});

// Any worker may run housekeeping; a Redis lock lets one per period do it.
const stopHousekeeping = startHousekeeping(
  {
    prisma,
    redis: connection,
    scheduler,
    logger,
    lockPrefix: config.queuePrefix,
    retention: config.retention,
    ensureLadders: () => sweepEscalations(escalationDeps),
  },
  config.housekeepingIntervalMs,
);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info(`${signal}: letting running checks finish`);
  const force = setTimeout(() => process.exit(1), 30_000).unref();
  stopHousekeeping();
  void metricsListener.then((m) => m.close());
  await Promise.allSettled([worker.close(), escalationWorker.close(), subscribers.close()]);
  deliverer.close();
  await Promise.allSettled([scheduler.close(), escalations.close(), prisma.$disconnect()]);
  await Promise.allSettled([connection.quit()]);
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
