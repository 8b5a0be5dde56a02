import { Worker } from 'bullmq';
import {
  CheckScheduler,
  checkQueueName,
  createLogger,
  createPrisma,
  createSsrfGuard,
  createWorkerRedis,
  loadConfigOrExit,
} from '@statusvane/shared';
import { startHousekeeping } from './housekeeping.js';
import { checkProcessor } from './processors/check.processor.js';
import { createHttpProbe } from './probes/http.probe.js';
import { createTcpProbe } from './probes/tcp.probe.js';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, json: config.env === 'production', service: `worker:${config.region}` });
const prisma = createPrisma(config.databaseUrl, { max: 20 });
const connection = createWorkerRedis(config.redisUrl);
connection.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));
const guard = createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });

const worker = new Worker(
  checkQueueName(config.region),
  checkProcessor({ prisma, keyring: config.encryption, httpProbe: createHttpProbe({ guard }), tcpProbe: createTcpProbe({ guard }), logger }),
  { connection, concurrency: 50 },
);
worker.on('error', (err) => logger.error('worker error', { error: err.message }));
worker.on('failed', (job, err) => logger.warn('check job failed', { jobId: job?.id, attempts: job?.attemptsMade, error: err.message }));
worker.on('ready', () => logger.info(`worker ready on queue ${checkQueueName(config.region)}`));

// Any worker may run housekeeping; a Redis lock lets one per period do it.
const scheduler = new CheckScheduler(config.checkRegions, connection);
const stopHousekeeping = startHousekeeping({ prisma, redis: connection, scheduler, logger });

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info(`${signal}: letting running checks finish`);
  const force = setTimeout(() => process.exit(1), 30_000).unref();
  stopHousekeeping();
  await worker.close();
  await Promise.allSettled([scheduler.close(), prisma.$disconnect()]);
  await Promise.allSettled([connection.quit()]);
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
