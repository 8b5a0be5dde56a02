import { Worker } from 'bullmq';
import {
  CheckScheduler,
  ESCALATION_QUEUE,
  EscalationScheduler,
  bullPrefix,
  checkQueueName,
  createDeliverer,
  workspaceSigningSecrets,
  createSsrfGuard,
  type Config,
  type Deliverer,
  type Logger,
  type PrismaClient,
  type RedisClient,
  type SsrfGuard,
} from '@statusvane/shared';
import type { CheckRunnerDeps } from './checks/run-check.js';
import { scheduleIncidentLadder, sweepEscalations, type EscalationDeps } from './escalation/engine.js';
import { startHousekeeping } from './housekeeping.js';
import { duePerSecond, LagWatch } from './metrics/lag-watch.js';
import { countLostResults, createWorkerMetrics, type WorkerMetrics } from './metrics/worker-metrics.js';
import { checkProcessor } from './processors/check.processor.js';
import { escalationProcessor } from './processors/escalation.processor.js';
import { createDnsProbe } from './probes/dns.probe.js';
import { createHttpProbe, probeUserAgent } from './probes/http.probe.js';
import { createTcpProbe } from './probes/tcp.probe.js';

export interface WorkerRuntimeDeps {
  config: Config;
  prisma: PrismaClient;
  /** A worker connection (createWorkerRedis: BullMQ blocks on it). The caller owns it and closes it after close(). */
  connection: RedisClient;
  logger: Logger;
  /**
   * Run housekeeping (schedule reconciliation, escalation ladders, pruning) every HOUSEKEEPING_INTERVAL_MS. Default
   * true. Tests that share one database with other suites turn it off: it reconciles every monitor it can see.
   */
  housekeeping?: boolean;
  /** Pages through this deliverer (the caller closes it) instead of one built from the config. */
  deliverer?: Deliverer;
  /** The SSRF guard of probes and pages; default: one from ALLOWED_TARGET_CIDRS with the system resolver. */
  guard?: SsrfGuard;
  /** The lag warning's window and least time between warnings (default a minute; tests shorten it). */
  lagWarnEveryMs?: number;
}

export interface WorkerRuntime {
  /** Checks of this worker's region (config.region). */
  checkWorker: Worker;
  /** Escalation steps: one queue for all regions, so any worker pages (docs/escalation.md). */
  escalationWorker: Worker;
  metrics: WorkerMetrics;
  /** Warns, at most once a window, when this worker's checks are behind (metrics/lag-watch.ts). */
  lagWatch: LagWatch;
  /** What the check processor runs with. */
  checkDeps: CheckRunnerDeps;
  /** The housekeeping timer (null when turned off); close() stops it too. `stop` waits for the round in flight. */
  housekeeping: { stop(): Promise<void> } | null;
  /** Stops housekeeping and the workers (running jobs finish first), then closes what the runtime opened. */
  close(): Promise<void>;
}

/**
 * The worker's composition root: everything a worker process runs, built from its config, database client, Redis
 * connection and logger. apps/worker/src/main.ts adds the process around it (config, signals, metrics listener, exit);
 * the tests build their workers with it too, so they run what production runs.
 */
export function createWorkerRuntime(deps: WorkerRuntimeDeps): WorkerRuntime {
  const { config, prisma, connection, logger } = deps;
  const guard = deps.guard ?? createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });

  const escalations = new EscalationScheduler(connection, config.queuePrefix);
  const deliverer =
    deps.deliverer ??
    createDeliverer({
      guard,
      signingSecret: workspaceSigningSecrets(prisma, config.encryption.current.key),
      smtp: config.smtp,
      providers: config.alertProviders,
    });
  const escalationDeps: EscalationDeps = {
    prisma,
    scheduler: escalations,
    deliverer,
    logger,
    keyring: config.encryption,
  };
  const escalationWorker = new Worker(ESCALATION_QUEUE, escalationProcessor(escalationDeps), {
    connection,
    prefix: bullPrefix(connection, config.queuePrefix, ESCALATION_QUEUE),
    concurrency: 20,
  });
  escalationWorker.on('error', (err) => logger.error('escalation worker error', { error: err.message }));
  escalationWorker.on('failed', (job, err) =>
    logger.warn('escalation job failed', { jobId: job?.id, attempts: job?.attemptsMade, error: err.message }),
  );

  // Check schedules (housekeeping reconciles them), heartbeat deadlines (armed after each heartbeat evaluation) and
  // re-checks (fast confirmation).
  const scheduler = new CheckScheduler(config.checkRegions, connection, config.queuePrefix);
  const metrics = createWorkerMetrics(config.region);
  const checkDeps: CheckRunnerDeps = {
    prisma,
    keyring: config.encryption,
    checkRegions: config.checkRegions,
    httpProbe: createHttpProbe({ guard, userAgent: probeUserAgent(config.region) }),
    tcpProbe: createTcpProbe({ guard }),
    dnsProbe: createDnsProbe({ guard }),
    logger,
    heartbeatDeadlines: scheduler,
    confirmations: scheduler,
    schedules: scheduler,
    onIncidentOpened: (incidentId) => scheduleIncidentLadder(escalationDeps, incidentId),
  };
  const lagWatch = new LagWatch({
    duePerSecond: () => duePerSecond(prisma, config.checkRegions, config.region),
    warn: (message, meta) => logger.warn(message, { region: config.region, ...meta }),
    setLag: (seconds) => metrics.lag.set({ region: config.region }, seconds),
    ...(deps.lagWarnEveryMs ? { everyMs: deps.lagWarnEveryMs } : {}),
  });
  const queueName = checkQueueName(config.region);
  // lockDuration/stalledInterval: how soon the running checks of a crashed worker go to another (docs/reliability.md).
  const checkWorker = new Worker(queueName, checkProcessor(checkDeps, metrics, lagWatch), {
    connection,
    prefix: bullPrefix(connection, config.queuePrefix, queueName),
    concurrency: config.workerConcurrency,
    lockDuration: config.jobLockMs,
    stalledInterval: config.jobLockMs,
  });
  checkWorker.on('error', (err) => logger.error('worker error', { error: err.message }));
  checkWorker.on('failed', (job, err) =>
    logger.warn('check job failed', { jobId: job?.id, attempts: job?.attemptsMade, error: err.message }),
  );
  checkWorker.on('ready', () => logger.info(`worker ready on queue ${queueName}`));
  countLostResults(checkWorker, metrics);

  // Any worker may run housekeeping; a Redis lock lets one per period do it.
  const housekeeping =
    deps.housekeeping === false
      ? null
      : {
          stop: startHousekeeping(
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
          ),
        };

  return {
    checkWorker,
    escalationWorker,
    metrics,
    lagWatch,
    checkDeps,
    housekeeping,
    async close() {
      // The round in flight finishes before anything it uses is closed.
      await housekeeping?.stop();
      await Promise.allSettled([checkWorker.close(), escalationWorker.close()]);
      if (!deps.deliverer) deliverer.close();
      await Promise.allSettled([scheduler.close(), escalations.close()]);
    },
  };
}
