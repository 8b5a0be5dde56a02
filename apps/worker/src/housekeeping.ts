import {
  DEFAULT_RETENTION,
  EVENT_RETENTION_DAYS,
  recordMaintenanceTransitions,
  monitorSource,
  reconcileSchedules,
  type CheckScheduler,
  type Logger,
  type PrismaClient,
  type RedisClient,
  type RetentionDays,
  SESSION_IDLE_MS,
} from '@statusvane/shared';
import {
  CATCH_ALL_PARTITIONS,
  dropExpiredResultPartitions,
  ensureResultPartitions,
  listResultPartitions,
  PACK_AFTER_MS,
  packClosedResults,
} from './result-partitions.js';

const LOCK_KEY = 'sv:housekeeping:lock';

export interface PruneOptions {
  /** Rows per DELETE: each statement is short, so it holds its locks briefly and its WAL stays small. */
  batchSize?: number;
  /** DELETEs per table per round: a large backlog (retention just shortened) is worked off over several rounds. */
  maxBatches?: number;
  /** Told of an expired partition not dropped this round (its lock was busy): retried next round. */
  logger?: Pick<Logger, 'info'>;
}

export const PRUNE_BATCH_SIZE = 5000;
export const PRUNE_MAX_BATCHES = 100;

export interface PruneReport {
  /** Raw results deleted row by row (from the legacy and default partitions). */
  checkResults: number;
  /** Daily partitions of raw results dropped whole (docs/adr/0016-check-results-partitions.md). */
  resultPartitions: number;
  /** Packed days of results deleted, one row per monitor and region (docs/adr/0017-packed-results.md). */
  packedResultDays: number;
  hourlyRollups: number;
  dailyRollups: number;
  /** Uptime accounting's spans that ended before the daily counts' cutoff. */
  monitorSpans: number;
  /** Heartbeat pings, kept as long as raw results. */
  heartbeatPings: number;
  /** The event log and webhook deliveries, kept EVENT_RETENTION_DAYS. */
  events: number;
  webhookDeliveries: number;
  /** Audit events, kept `auditEventsDays`. */
  auditEvents: number;
}

const DAY_MS = 86_400_000;

/** Runs `deleteBatch` until it deletes fewer rows than a batch (nothing left) or the round's budget is spent. */
async function inBatches(
  deleteBatch: () => Promise<number>,
  { batchSize, maxBatches }: Required<Pick<PruneOptions, 'batchSize' | 'maxBatches'>>,
): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const n = await deleteBatch();
    total += n;
    if (n < batchSize) break;
  }
  return total;
}

/**
 * Deletes what is past retention: raw results by dropping each partition whose slots are all older than now minus
 * their retention, and row by row from the partitions that are not days (legacy, default) by `checkedAt`; packed
 * days of results once all of their day is past it (docs/adr/0017-packed-results.md); hourly rollups by `hour`,
 * daily rollups by `day`, heartbeat pings, the event log and webhook deliveries, and audit events by `at`, each
 * strictly older than now minus its retention. Each DELETE takes at most `batchSize` rows, found oldest
 * first through the index on that column (migrations 20261123121705_retention_indexes and
 * 20261126011105_audit_events_retention; the legacy and default partitions keep one on "checkedAt"), so no statement
 * scans a table or holds many row locks; the loop stops at the first short batch.
 */
export async function pruneExpired(
  prisma: PrismaClient,
  retention: RetentionDays,
  now: Date,
  options: PruneOptions = {},
): Promise<PruneReport> {
  const opts = {
    batchSize: options.batchSize ?? PRUNE_BATCH_SIZE,
    maxBatches: options.maxBatches ?? PRUNE_MAX_BATCHES,
  };
  const n = opts.batchSize;
  const resultsCutoff = new Date(now.getTime() - retention.checkResultsDays * DAY_MS);
  const hourlyCutoff = new Date(now.getTime() - retention.hourlyRollupsDays * DAY_MS);
  // `day` is a UTC date: a day is deleted once all of it is older than the cutoff.
  const dailyCutoff = new Date(now.getTime() - retention.dailyRollupsDays * DAY_MS).toISOString().slice(0, 10);

  const resultPartitions = (
    await dropExpiredResultPartitions(prisma, resultsCutoff, (partition) =>
      options.logger?.info('expired result partition busy; dropping it next round', { partition }),
    )
  ).length;
  const present = new Set((await listResultPartitions(prisma)).map((p) => p.name));
  let checkResults = 0;
  for (const table of CATCH_ALL_PARTITIONS.filter((t) => present.has(t))) {
    checkResults += await inBatches(
      () =>
        prisma.$executeRawUnsafe(
          `DELETE FROM "${table}" WHERE ctid = ANY(ARRAY(
            SELECT ctid FROM "${table}" WHERE "checkedAt" < $1 ORDER BY "checkedAt" LIMIT $2::int))`,
          resultsCutoff,
          n,
        ),
      opts,
    );
  }
  // A packed day goes once all of its slots are past retention, as a day partition does.
  const packedCutoff = new Date(resultsCutoff.getTime() - DAY_MS);
  const packedResultDays = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM check_results_packed WHERE ("monitorId", region, day) IN (
        SELECT "monitorId", region, day FROM check_results_packed WHERE day <= ${packedCutoff} ORDER BY day LIMIT ${n}::int)`,
    opts,
  );
  const hourlyRollups = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM check_rollups_hourly WHERE ("monitorId", region, hour) IN (
        SELECT "monitorId", region, hour FROM check_rollups_hourly WHERE hour < ${hourlyCutoff} ORDER BY hour LIMIT ${n}::int)`,
    opts,
  );
  const dailyRollups = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM check_rollups_daily WHERE ("monitorId", region, day) IN (
        SELECT "monitorId", region, day FROM check_rollups_daily WHERE day < ${dailyCutoff}::date ORDER BY day LIMIT ${n}::int)`,
    opts,
  );
  // Uptime accounting's spans, as long as daily counts (400 days at least): an open span stays whatever its age.
  const spansCutoff = new Date(now.getTime() - retention.dailyRollupsDays * DAY_MS);
  const monitorSpans = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM monitor_spans WHERE id IN (
        SELECT id FROM monitor_spans WHERE "endedAt" < ${spansCutoff} ORDER BY "endedAt" LIMIT ${n}::int)`,
    opts,
  );
  const heartbeatPings = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM heartbeat_pings WHERE ("monitorId", at, id) IN (
        SELECT "monitorId", at, id FROM heartbeat_pings WHERE at < ${resultsCutoff} ORDER BY at LIMIT ${n}::int)`,
    opts,
  );
  const eventsCutoff = new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS);
  const events = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM events WHERE seq IN (
        SELECT seq FROM events WHERE time < ${eventsCutoff} ORDER BY time LIMIT ${n}::int)`,
    opts,
  );
  const webhookDeliveries = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE "createdAt" < ${eventsCutoff} ORDER BY "createdAt" LIMIT ${n}::int)`,
    opts,
  );
  const auditCutoff = new Date(now.getTime() - retention.auditEventsDays * DAY_MS);
  const auditEvents = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM audit_events WHERE id IN (
        SELECT id FROM audit_events WHERE at < ${auditCutoff} ORDER BY at LIMIT ${n}::int)`,
    opts,
  );
  return {
    checkResults,
    resultPartitions,
    packedResultDays,
    hourlyRollups,
    dailyRollups,
    monitorSpans,
    heartbeatPings,
    events,
    webhookDeliveries,
    auditEvents,
  };
}

/**
 * Deletes console sign-ins that can no longer be used: sessions past their absolute or idle timeout (pending
 * second-factor sign-ins expire like sessions) and invitation and reset links past their expiry. The console reads
 * them as none already; this only frees the rows of users who never sign in again (a user's own dead sessions also go
 * at their next sign-in). Batched and index-driven like pruneExpired.
 */
export async function pruneSignIns(
  prisma: PrismaClient,
  now: Date,
  options: Pick<PruneOptions, 'batchSize' | 'maxBatches'> = {},
): Promise<{ consoleSessions: number; passwordLinks: number }> {
  const opts = {
    batchSize: options.batchSize ?? PRUNE_BATCH_SIZE,
    maxBatches: options.maxBatches ?? PRUNE_MAX_BATCHES,
  };
  const n = opts.batchSize;
  const idleCutoff = new Date(now.getTime() - SESSION_IDLE_MS);
  const expired = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM console_sessions WHERE id IN (
        SELECT id FROM console_sessions WHERE "expiresAt" <= ${now} ORDER BY "expiresAt" LIMIT ${n}::int)`,
    opts,
  );
  const idle = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM console_sessions WHERE id IN (
        SELECT id FROM console_sessions WHERE "lastSeenAt" <= ${idleCutoff} ORDER BY "lastSeenAt" LIMIT ${n}::int)`,
    opts,
  );
  const passwordLinks = await inBatches(
    () => prisma.$executeRaw`
      DELETE FROM password_links WHERE id IN (
        SELECT id FROM password_links WHERE "expiresAt" <= ${now} ORDER BY "expiresAt" LIMIT ${n}::int)`,
    opts,
  );
  return { consoleSessions: expired + idle, passwordLinks };
}

/** How far back housekeeping looks for maintenance windows that started or ended (their events are keyed). */
const MAINTENANCE_LOOKBACK_MS = DAY_MS;

/**
 * maintenance.started and maintenance.completed when the clock reaches a window's start or end (the API records
 * them at once for an action or an edit to the past; the keys make both paths record each once). Only the windows
 * whose event is still missing are read (the unique index on the events' workspace and key answers that), so a
 * round opens a transaction only for a window that has something to record. Returns how many.
 */
export async function recordDueMaintenanceEvents(prisma: PrismaClient, now: Date): Promise<number> {
  const since = new Date(now.getTime() - MAINTENANCE_LOOKBACK_MS);
  const due = await prisma.$queryRaw<Array<{ id: string }>>`
    SELECT w.id FROM maintenance_windows w
    WHERE w."cancelledAt" IS NULL AND (
      (w."startsAt" > ${since} AND w."startsAt" <= ${now} AND w."startsAt" < w."endsAt" AND NOT EXISTS (
        SELECT 1 FROM events e WHERE e."workspaceId" = w."workspaceId" AND e.key = 'maintenance:' || w.id || ':started'))
      OR (w."endsAt" > ${since} AND w."endsAt" <= ${now} AND NOT EXISTS (
        SELECT 1 FROM events e WHERE e."workspaceId" = w."workspaceId" AND e.key = 'maintenance:' || w.id || ':completed')))`;
  if (due.length === 0) return 0;
  const windows = await prisma.maintenanceWindow.findMany({
    where: { id: { in: due.map((w) => w.id) } },
    // One order every time (the log's order follows it): the windows in the order they were created.
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      workspaceId: true,
      title: true,
      startsAt: true,
      endsAt: true,
      cancelledAt: true,
      components: { select: { componentId: true } },
    },
  });
  for (const w of windows) {
    await prisma.$transaction((tx) =>
      recordMaintenanceTransitions(tx, { ...w, componentIds: w.components.map((c) => c.componentId) }, now),
    );
  }
  return windows.length;
}

export interface HousekeepingDeps {
  prisma: PrismaClient;
  redis: RedisClient;
  scheduler: CheckScheduler;
  logger: Logger;
  /** The deployment's queue prefix (QUEUE_PREFIX): deployments sharing one Redis each get their own lock. */
  lockPrefix?: string;
  /** What to keep (docs/adr/0005-check-results-retention.md); DEFAULT_RETENTION when absent. */
  retention?: RetentionDays;
  /** Batch sizes of the pruning DELETEs (tests make them small). */
  prune?: PruneOptions;
  /** Re-adds the step jobs of open incidents' ladders (escalation engine's ensureOpenLadders). */
  ensureLadders?: () => Promise<{ incidents: number; scheduled: number }>;
}

/**
 * One round of housekeeping, run by whichever worker takes the lock first: make Redis schedules match PostgreSQL
 * (so a Redis restart or FLUSHALL loses no schedule for longer than one period), make sure every open incident's
 * escalation ladder has its jobs, and delete expired safe-retry records, check data past retention and console
 * sign-ins that can no longer be used.
 */
export async function housekeepingRound(deps: HousekeepingDeps, periodMs: number, now = new Date()): Promise<boolean> {
  const token = `${process.pid}:${now.getTime()}`;
  const lockKey = deps.lockPrefix && deps.lockPrefix !== 'bull' ? `${deps.lockPrefix}:housekeeping:lock` : LOCK_KEY;
  const got = await deps.redis.set(lockKey, token, 'PX', Math.max(1000, periodMs - 1000), 'NX');
  if (got !== 'OK') return false;
  const report = await reconcileSchedules(deps.scheduler, monitorSource(deps.prisma));
  if (report.added || report.removed || report.legacyRemoved || report.corrected)
    deps.logger.info('schedules reconciled', { ...report });
  if (deps.ensureLadders) await deps.ensureLadders();
  // A failure here (a lock not had in time) must not hold up the rest of the round: the days ahead leave time.
  const partitions = await ensureResultPartitions(deps.prisma, now).catch((err: Error) => {
    deps.logger.warn('result partitions not created; retrying next round', { error: err.message });
    return [];
  });
  if (partitions.length) deps.logger.info('result partitions created', { partitions });
  const expired = await deps.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
  await recordDueMaintenanceEvents(deps.prisma, now);
  const pruned = await pruneExpired(deps.prisma, deps.retention ?? DEFAULT_RETENTION, now, {
    ...deps.prune,
    logger: deps.logger,
  });
  const signIns = await pruneSignIns(deps.prisma, now, deps.prune);
  if (expired.count || [...Object.values(pruned), ...Object.values(signIns)].some((n) => n > 0)) {
    deps.logger.info('housekeeping', { idempotencyRecords: expired.count, ...pruned, ...signIns });
  }
  // Closed days of results into packed rows (docs/adr/0017-packed-results.md); a failure is retried next round.
  const packed = await packClosedResults(deps.prisma, new Date(now.getTime() - PACK_AFTER_MS)).catch((err: Error) => {
    deps.logger.warn('results not packed; retrying next round', { error: err.message });
    return null;
  });
  if (packed && (packed.partitions.length || packed.results)) deps.logger.info('results packed', { ...packed });
  return true;
}

/**
 * Runs housekeeping now and then every `periodMs`; failures are logged and retried next period. Returns `stop`: no
 * round starts after it, and it resolves once the round in flight (if any) is over, so that the caller may then close
 * the connections that round uses.
 */
export function startHousekeeping(deps: HousekeepingDeps, periodMs = 30_000): () => Promise<void> {
  let inFlight: Promise<void> | null = null;
  const tick = () => {
    const round = housekeepingRound(deps, periodMs).then(
      () => undefined,
      (err: Error) => {
        deps.logger.warn('housekeeping failed; retrying next period', { error: err.message });
      },
    );
    inFlight = round;
    void round.finally(() => {
      if (inFlight === round) inFlight = null;
    });
  };
  tick();
  const timer = setInterval(tick, periodMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await inFlight;
  };
}
