import type { Worker } from 'bullmq';
import {
  ResponseSchemaCache,
  CheckScheduler,
  ESCALATION_QUEUE,
  EscalationScheduler,
  REPORT_QUEUE,
  SUBSCRIBER_QUEUE,
  SubscriberQueue,
  UptimeReportQueue,
  WEBHOOK_QUEUE,
  WebhookQueue,
  checkQueueName,
  partitionQueueName,
  createDeliverer,
  createEmailSender,
  workspaceSigningSecrets,
  createSsrfGuard,
  webhookRetryDelayMs,
  type Config,
  type Deliverer,
  type Logger,
  type PrismaClient,
  type RedisClient,
  type SsrfGuard,
  type Tracing,
} from '@statusvane/shared';
import { createMissedSlotWriter } from './checks/missed-slots.js';
import { createDomainLookups } from './checks/domain-lookups.js';
import type { CheckRunnerDeps } from './checks/run-check.js';
import { createResultWriter } from './checks/store-result.js';
import { scheduleIncidentLadder, sweepEscalations, type EscalationDeps } from './escalation/engine.js';
import { startHousekeeping } from './housekeeping.js';
import { duePerSecond, LagWatch } from './metrics/lag-watch.js';
import { countLostResults, createWorkerMetrics, type WorkerMetrics } from './metrics/worker-metrics.js';
import { checksProcessor, createLimit } from './processors/check.processor.js';
import { escalationProcessor } from './processors/escalation.processor.js';
import { reportProcessor } from './processors/report.processor.js';
import { subscriberProcessor } from './processors/subscriber.processor.js';
import { webhookProcessor } from './processors/webhook.processor.js';
import { createDnsProbe } from './probes/dns.probe.js';
import { createHttpProbe, probeUserAgent } from './probes/http.probe.js';
import { createApiProbe } from './probes/api.probe.js';
import { createRdapClient } from './probes/rdap.probe.js';
import { createTcpProbe } from './probes/tcp.probe.js';
import { startQueueWorker } from './queue-worker.js';
import { RetryWebhookError } from './webhooks/deliver.js';
import { dispatchWebhooks } from './webhooks/dispatch.js';
import { startWebhookListener, type WebhookListener } from './webhooks/listen.js';

/** The queues a worker process consumes. */
export interface WorkerParts {
  /** Checks of this worker's region (config.region). */
  checks: boolean;
  /** Escalation steps and notices: one queue for all regions, so any worker pages (docs/escalation.md). */
  escalations: boolean;
  /** Status page subscribers: the sweep and the deliveries (docs/maintenance-and-status-pages.md). */
  subscribers: boolean;
  /** Event webhooks: the dispatch from the event log and the signed deliveries (docs/events.md). */
  webhooks: boolean;
  /** The monthly uptime report mails (docs/decisions.md, "Monthly report"). */
  reports: boolean;
}

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
  /**
   * The parts that run (default: all). A test switches off what its suite does not exercise: on a database shared
   * with other suites, a subscriber sweep or a webhook dispatch reads every workspace, as housekeeping does.
   */
  parts?: Partial<WorkerParts>;
  /** Pages through this deliverer (the caller closes it) instead of one built from the config. */
  deliverer?: Deliverer;
  /** OpenTelemetry (startTracing): a span per check and per api step; null or absent when not configured. */
  tracing?: Tracing | null;
  /** The SSRF guard of probes, pages, subscriber and event webhooks; default: one from ALLOWED_TARGET_CIDRS. */
  guard?: SsrfGuard;
  /** Production's periods and waits, shortened by tests. */
  timing?: {
    /** The lag warning's window and least time between warnings (default a minute). */
    lagWarnEveryMs?: number;
    /** EscalationDeps.maintenanceRecheckMs (default a minute). */
    maintenanceRecheckMs?: number;
    /** The subscriber sweep's period (SUBSCRIBER_SWEEP_MS); `false`: not scheduled (a test that sweeps itself). */
    subscriberSweepMs?: number | false;
    /**
     * The webhook sweep's period (WEBHOOK_DISPATCH_MS); `false`: neither the sweep nor the dispatch on commit
     * (webhooks/listen.ts) runs (a test that dispatches itself).
     */
    webhookDispatchMs?: number | false;
    /** The first webhook retry's wait (webhookRetryDelayMs). */
    webhookRetryBaseMs?: number;
    /** The report sweep's period (REPORT_SWEEP_MS); `false`: not scheduled. */
    reportSweepMs?: number | false;
    /** The report sweep's clock (a test stands on the 1st of a month). */
    reportClock?: () => Date;
  };
}

export interface WorkerRuntime {
  /** The BullMQ worker of each part; null when the part is switched off. */
  checkWorker: Worker | null;
  /** The checks' second queue, of partition jobs (docs/adr/0020-partitioned-scheduling.md); null with checks off. */
  partitionWorker: Worker | null;
  escalationWorker: Worker | null;
  subscriberWorker: Worker | null;
  webhookWorker: Worker | null;
  reportWorker: Worker | null;
  /** The webhook deliveries' queue (null with webhooks off). */
  webhookQueue: WebhookQueue | null;
  metrics: WorkerMetrics;
  /** Warns, at most once a window, when this worker's checks are behind (metrics/lag-watch.ts). */
  lagWatch: LagWatch;
  /** What the check processor runs with. */
  checkDeps: CheckRunnerDeps;
  /** What the escalation processor runs with. */
  escalationDeps: EscalationDeps;
  /** The housekeeping timer (null when turned off); close() stops it too. `stop` waits for the round in flight. */
  housekeeping: { stop(): Promise<void> } | null;
  /** Stops housekeeping and the workers (running jobs finish first), then closes what the runtime opened. */
  close(): Promise<void>;
}

/**
 * What runCheck runs with, short of the queues (heartbeat deadlines, re-checks, skipped slots, ladders: the runtime
 * adds them): the probes behind `guard`, the keyring, the regions and the group writers of results and missed slots,
 * one of each per database client. Tests that run checks by hand build theirs here too; `extraCa`: certificates the
 * http probe trusts besides Node's (their self-signed targets; a deployment sets NODE_EXTRA_CA_CERTS).
 */
export function createCheckRunnerDeps(deps: {
  config: Pick<Config, 'encryption' | 'checkRegions' | 'region'>;
  prisma: PrismaClient;
  logger: Logger;
  guard: SsrfGuard;
  extraCa?: readonly string[];
}): CheckRunnerDeps {
  const { config, prisma, guard } = deps;
  const httpProbe = createHttpProbe({
    guard,
    userAgent: probeUserAgent(config.region),
    ...(deps.extraCa ? { extraCa: deps.extraCa } : {}),
  });
  return {
    prisma,
    keyring: config.encryption,
    checkRegions: config.checkRegions,
    httpProbe,
    apiProbe: createApiProbe({ http: httpProbe }),
    schemas: new ResponseSchemaCache(),
    tcpProbe: createTcpProbe({ guard }),
    dnsProbe: createDnsProbe({ guard }),
    logger: deps.logger,
    results: createResultWriter(prisma),
    missedSlots: createMissedSlotWriter(prisma),
  };
}

/**
 * Partition jobs a worker runs at once. Their members share the WORKER_CONCURRENCY limit, so more would only queue
 * checks behind it that another worker could run; fewer than two would leave the limit idle while one partition's last
 * slow checks finish.
 */
const PARTITION_JOBS_AT_ONCE = 4;

/**
 * Schedules a delivery queue's repeating job (idempotent: one scheduler id, so every worker may) unless a test turned
 * it off; a failure is logged, and the next worker start schedules it.
 */
function ensureRepeating(
  logger: Logger,
  what: string,
  everyMs: number | false | undefined,
  ensure: (everyMs?: number) => Promise<void>,
): void {
  if (everyMs === false) return;
  void ensure(everyMs).catch((err: Error) => logger.warn(`${what} not scheduled`, { error: err.message }));
}

/**
 * The worker's composition root: everything a worker process runs, built from its config, database client, Redis
 * connection and logger, with one SSRF guard for every outgoing request. apps/worker/src/main.ts adds the process
 * around it (config, signals, metrics listener, exit); the tests build their workers with it too, so they run what
 * production runs.
 */
export function createWorkerRuntime(deps: WorkerRuntimeDeps): WorkerRuntime {
  const { config, prisma, connection, logger } = deps;
  const parts: WorkerParts = {
    checks: true,
    escalations: true,
    subscribers: true,
    webhooks: true,
    reports: true,
    ...deps.parts,
  };
  const timing = deps.timing ?? {};
  const guard = deps.guard ?? createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });
  const queues = { connection, queuePrefix: config.queuePrefix, logger };

  // Escalations. The deps are built whatever runs here: a check that opens an incident schedules its ladder.
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
    publicBaseUrl: config.publicBaseUrl,
    ...(timing.maintenanceRecheckMs !== undefined ? { maintenanceRecheckMs: timing.maintenanceRecheckMs } : {}),
  };
  const escalationWorker = parts.escalations
    ? startQueueWorker(queues, ESCALATION_QUEUE, escalationProcessor(escalationDeps), {
        label: 'escalation',
        concurrency: 20,
      })
    : null;

  // Checks. Check schedules (housekeeping reconciles them), heartbeat deadlines (armed after each heartbeat
  // evaluation) and re-checks (fast confirmation).
  const scheduler = new CheckScheduler(config.checkRegions, connection, config.queuePrefix);
  const metrics = createWorkerMetrics(config.region);
  const checkDeps: CheckRunnerDeps = {
    ...createCheckRunnerDeps({ config, prisma, logger, guard }),
    domainLookups: createDomainLookups({
      redis: connection,
      prefix: config.queuePrefix,
      rdap: createRdapClient({
        bootstrapUrl: config.rdap.bootstrapUrl,
        baseUrl: config.rdap.baseUrl,
        guard,
        userAgent: probeUserAgent(config.region),
      }),
    }),
    tracing: deps.tracing ?? null,
    heartbeatDeadlines: scheduler,
    confirmations: scheduler,
    schedules: scheduler,
    onIncidentOpened: (incidentId) => scheduleIncidentLadder(escalationDeps, incidentId),
  };
  const lagWatch = new LagWatch({
    duePerSecond: () => duePerSecond(prisma, config.checkRegions, config.region),
    warn: (message, meta) => logger.warn(message, { region: config.region, ...meta }),
    setLag: (seconds) => metrics.lag.set({ region: config.region }, seconds),
    ...(timing.lagWarnEveryMs ? { everyMs: timing.lagWarnEveryMs } : {}),
  });
  let checkWorker: Worker | null = null;
  let partitionWorker: Worker | null = null;
  if (parts.checks) {
    // lockDuration/stalledInterval: how soon the running checks of a crashed worker go to another (docs/reliability.md).
    const checkOptions = {
      lockDuration: config.jobLockMs,
      stalledInterval: config.jobLockMs,
      // A check whose worker crashed, then whose next worker stalled too (a blocked event loop misses its lock
      // renewal), still runs: storing is exactly-once per slot, so running it again costs a probe, never a duplicate.
      maxStalledCount: 3,
    };
    // The partitions' members run under this limit of checks at once, as one-off jobs run under the queue's own
    // concurrency; a few partition jobs at once, so that a worker takes the next partition while it still has room
    // and an idle worker takes it otherwise, rather than one worker queuing several partitions' checks behind its limit.
    const limit = createLimit(config.workerConcurrency);
    const processor = checksProcessor(checkDeps, limit, metrics, lagWatch);
    const queueName = checkQueueName(config.region);
    checkWorker = startQueueWorker(queues, queueName, processor, {
      label: 'check',
      concurrency: config.workerConcurrency,
      ...checkOptions,
    });
    checkWorker.on('ready', () => logger.info(`worker ready on queue ${queueName}`));
    countLostResults(checkWorker, metrics);
    const partitionQueue = partitionQueueName(config.region);
    partitionWorker = startQueueWorker(queues, partitionQueue, processor, {
      label: 'partition',
      concurrency: PARTITION_JOBS_AT_ONCE,
      ...checkOptions,
    });
    partitionWorker.on('ready', () => logger.info(`worker ready on queue ${partitionQueue}`));
    countLostResults(partitionWorker, metrics);
  }

  // Status page subscribers: the sweep and the deliveries.
  const subscriberQueue = parts.subscribers ? new SubscriberQueue(connection, config.queuePrefix) : null;
  const email = (subscriberQueue || parts.reports) && config.smtp ? createEmailSender(config.smtp) : null;
  let subscriberWorker: Worker | null = null;
  if (subscriberQueue) {
    ensureRepeating(logger, 'subscriber sweep', timing.subscriberSweepMs, (ms) => subscriberQueue.ensureSweep(ms));
    subscriberWorker = startQueueWorker(
      queues,
      SUBSCRIBER_QUEUE,
      subscriberProcessor({
        prisma,
        keyring: config.encryption,
        guard,
        email,
        publicBaseUrl: config.publicBaseUrl,
        queue: subscriberQueue,
        logger,
      }),
      { label: 'subscriber', concurrency: 10 },
    );
  }

  // Event webhooks: the dispatch and the deliveries. Running jobs of a killed worker go to another once their lock
  // (JOB_LOCK_MS) expires, as checks do.
  const webhookQueue = parts.webhooks ? new WebhookQueue(connection, config.queuePrefix) : null;
  let webhookWorker: Worker | null = null;
  let webhookListener: WebhookListener | null = null;
  if (webhookQueue) {
    ensureRepeating(logger, 'webhook dispatch', timing.webhookDispatchMs, (ms) => webhookQueue.ensureDispatch(ms));
    if (timing.webhookDispatchMs !== false)
      webhookListener = startWebhookListener({
        databaseUrl: config.databaseUrl,
        logger,
        dispatch: () => dispatchWebhooks({ prisma, queue: webhookQueue, logger }, { overdue: false }),
      });
    const retryBaseMs = timing.webhookRetryBaseMs;
    webhookWorker = startQueueWorker(
      queues,
      WEBHOOK_QUEUE,
      webhookProcessor({
        prisma,
        keyring: config.encryption,
        guard,
        queue: webhookQueue,
        logger,
        ...(retryBaseMs !== undefined ? { retryBaseMs } : {}),
      }),
      {
        label: 'webhook',
        expectedFailure: (err) => err instanceof RetryWebhookError,
        concurrency: 20,
        lockDuration: config.jobLockMs,
        stalledInterval: config.jobLockMs,
        // A delivery whose worker died is run again (at least once); a job stalled more often than this fails and is
        // removed, and the dispatch's overdue sweep enqueues its still-pending delivery again.
        maxStalledCount: 5,
        settings: { backoffStrategy: (attemptsMade: number) => webhookRetryDelayMs(attemptsMade, retryBaseMs) },
      },
    );
  }

  // Monthly uptime reports: the sweep queues the mails due (a unique row per workspace and month) and sends them.
  const reportQueue = parts.reports ? new UptimeReportQueue(connection, config.queuePrefix) : null;
  let reportWorker: Worker | null = null;
  if (reportQueue) {
    ensureRepeating(logger, 'uptime report sweep', timing.reportSweepMs, (ms) => reportQueue.ensureSweep(ms));
    reportWorker = startQueueWorker(
      queues,
      REPORT_QUEUE,
      reportProcessor({
        prisma,
        email,
        checkRegions: config.checkRegions,
        logger,
        ...(timing.reportClock ? { now: timing.reportClock } : {}),
      }),
      { label: 'report', concurrency: 1 },
    );
  }

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
    partitionWorker,
    escalationWorker,
    subscriberWorker,
    webhookWorker,
    reportWorker,
    webhookQueue,
    metrics,
    lagWatch,
    checkDeps,
    escalationDeps,
    housekeeping,
    async close() {
      // The round in flight finishes before anything it uses is closed.
      await Promise.all([housekeeping?.stop(), webhookListener?.close()]);
      const workers = [checkWorker, partitionWorker, escalationWorker, subscriberWorker, webhookWorker, reportWorker];
      await Promise.allSettled(workers.map((w) => w?.close()));
      if (!deps.deliverer) deliverer.close();
      email?.close();
      await Promise.allSettled(
        [scheduler, escalations, subscriberQueue, webhookQueue, reportQueue].map((q) => q?.close()),
      );
    },
  };
}
