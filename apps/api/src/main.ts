import { CheckScheduler, createApiRedis, createLogger, createPrisma, createSsrfGuard, enabledMonitorBatches, loadConfigOrExit, reconcileSchedules } from '@statusvane/shared';
import { createApp } from './app.js';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, json: config.env === 'production', service: 'api' });
const prisma = createPrisma(config.databaseUrl);
const redis = createApiRedis(config.redisUrl);
redis.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));
const scheduler = new CheckScheduler(config.checkRegions, redis);
const guard = createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });

const app = createApp({ config, prisma, redis, logger, scheduler, guard });
const server = app.listen(config.port, () => {
  logger.info(`API listening on ${config.publicBaseUrl}/api/v1 (port ${config.port})`);
});
server.keepAliveTimeout = 65_000;

// PostgreSQL is the source of truth for schedules: bring Redis in line at start-up (workers keep doing it).
redis.once('ready', () => {
  reconcileSchedules(scheduler, enabledMonitorBatches(prisma)).then(
    (r) => logger.info('schedules reconciled', { ...r }),
    (err: Error) => logger.warn('schedule reconciliation failed; workers will retry', { error: err.message }),
  );
});

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info(`${signal}: closing the API`);
  const force = setTimeout(() => process.exit(1), 10_000).unref();
  server.close();
  server.closeIdleConnections();
  await Promise.allSettled([scheduler.close(), prisma.$disconnect()]);
  await Promise.allSettled([redis.quit()]);
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
