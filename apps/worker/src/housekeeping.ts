import type { Redis } from 'ioredis';
import { monitorSource, reconcileSchedules, type CheckScheduler, type Logger, type PrismaClient } from '@statusvane/shared';

const LOCK_KEY = 'sv:housekeeping:lock';
/** Daily counts outlive raw results: status pages show 90 days of uptime bars, with room for a yearly view. */
export const DAILY_ROLLUP_DAYS = 400;
/** Raw results and hourly rollups: the longest response-time period (month, 30 days) plus margin. */
export const RAW_RETENTION_DAYS = 35;

export interface HousekeepingDeps {
  prisma: PrismaClient;
  redis: Redis;
  scheduler: CheckScheduler;
  logger: Logger;
  /** The deployment's queue prefix (QUEUE_PREFIX): deployments sharing one Redis each get their own lock. */
  lockPrefix?: string;
  /** Raw check results and hourly rollups older than this are deleted (docs/adr/0005-check-results-retention.md). */
  retentionDays?: number;
  /** Re-adds the step jobs of open incidents' ladders (escalation engine's ensureOpenLadders). */
  ensureLadders?: () => Promise<{ incidents: number; scheduled: number }>;
}

/**
 * One round of housekeeping, run by whichever worker takes the lock first: make Redis schedules match PostgreSQL
 * (so a Redis restart or FLUSHALL loses no schedule for longer than one period), make sure every open incident's
 * escalation ladder has its jobs, and delete expired safe-retry records and raw results past retention.
 */
export async function housekeepingRound(deps: HousekeepingDeps, periodMs: number, now = new Date()): Promise<boolean> {
  const token = `${process.pid}:${now.getTime()}`;
  const lockKey = deps.lockPrefix && deps.lockPrefix !== 'bull' ? `${deps.lockPrefix}:housekeeping:lock` : LOCK_KEY;
  const got = await deps.redis.set(lockKey, token, 'PX', Math.max(1000, periodMs - 1000), 'NX');
  if (got !== 'OK') return false;
  const report = await reconcileSchedules(deps.scheduler, monitorSource(deps.prisma));
  if (report.added || report.updated || report.removed) deps.logger.info('schedules reconciled', { ...report });
  if (deps.ensureLadders) await deps.ensureLadders();
  const expired = await deps.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
  const cutoff = new Date(now.getTime() - (deps.retentionDays ?? RAW_RETENTION_DAYS) * 86_400_000);
  const old = await deps.prisma.checkResult.deleteMany({ where: { checkedAt: { lt: cutoff } } });
  const hourly = await deps.prisma.checkRollupHourly.deleteMany({ where: { hour: { lt: cutoff } } });
  const daily = await deps.prisma.checkRollupDaily.deleteMany({ where: { day: { lt: new Date(now.getTime() - DAILY_ROLLUP_DAYS * 86_400_000) } } });
  if (expired.count || old.count || hourly.count || daily.count) {
    deps.logger.info('housekeeping', { idempotencyRecords: expired.count, checkResults: old.count, hourlyRollups: hourly.count, dailyRollups: daily.count });
  }
  return true;
}

/** Runs housekeeping now and then every `periodMs`; failures are logged and retried next period. */
export function startHousekeeping(deps: HousekeepingDeps, periodMs = 30_000): () => void {
  const tick = () =>
    housekeepingRound(deps, periodMs).catch((err: Error) => deps.logger.warn('housekeeping failed; retrying next period', { error: err.message }));
  void tick();
  const timer = setInterval(tick, periodMs);
  timer.unref();
  return () => clearInterval(timer);
}
