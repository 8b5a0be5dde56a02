import { Worker } from 'bullmq';
import { checkQueueName, createLogger, createPrisma, createWorkerRedis, loadConfigOrExit } from '@statusvane/shared';
import { checkProcessor } from './processors/check.processor.js';

const config = loadConfigOrExit();
const logger = createLogger({ level: config.logLevel, json: config.env === 'production', service: `worker:${config.region}` });
const prisma = createPrisma(config.databaseUrl);
const connection = createWorkerRedis(config.redisUrl);
connection.on('error', (err: Error) => logger.warn('redis connection error', { error: err.message }));

const worker = new Worker(checkQueueName(config.region), checkProcessor({ prisma, logger }), {
  connection,
  concurrency: 50,
});
worker.on('error', (err) => logger.error('worker error', { error: err.message }));
worker.on('ready', () => logger.info(`worker ready on queue ${checkQueueName(config.region)}`));

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  logger.info(`${signal}: letting running checks finish`);
  const force = setTimeout(() => process.exit(1), 30_000).unref();
  await worker.close();
  await Promise.allSettled([prisma.$disconnect(), connection.quit()]);
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
