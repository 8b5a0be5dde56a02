/**
 * The partitions of `check_results` (docs/adr/0016-check-results-partitions.md): the table is partitioned by `slot`
 * in UTC days. Housekeeping creates each day's partition ahead of time and drops whole partitions once all of their
 * slots are past retention. Two partitions are not days: `check_results_legacy` (the table as it was before
 * partitioning, every slot before the day after that migration ran) and `check_results_default` (rows of a day that
 * has no partition yet: tests, imports, or a worker that ran days without housekeeping). Both are pruned by batched
 * DELETEs through their own index on "checkedAt", as the whole table was before; legacy is dropped once all of its
 * range is past retention.
 */
import type { PrismaClient } from '@statusvane/shared';

const DAY_MS = 86_400_000;
export const DEFAULT_PARTITION = 'check_results_default';
/** The partitions that are not days and keep an index on "checkedAt" for batched pruning. */
export const CATCH_ALL_PARTITIONS = ['check_results_legacy', DEFAULT_PARTITION] as const;
/** Days of partitions kept ahead of today (UTC): housekeeping runs every 30 s, so this survives a long outage. */
export const PARTITION_DAYS_AHEAD = 3;
/** DDL on check_results waits at most this long for its lock, then gives up until the next round. */
const LOCK_TIMEOUT = '3s';

export interface ResultPartition {
  name: string;
  /** Inclusive lower bound; null for MINVALUE and for the default partition. */
  from: Date | null;
  /** Exclusive upper bound; null for the default partition. */
  to: Date | null;
}

/** Every partition of check_results with its bounds (read back as timestamptz in SQL: no time-zone parsing here). */
export async function listResultPartitions(prisma: PrismaClient): Promise<ResultPartition[]> {
  return prisma.$queryRaw<ResultPartition[]>`
    SELECT c.relname AS name,
      (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS "from",
      (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS "to"
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'check_results'::regclass
    ORDER BY "to" NULLS LAST`;
}

const utcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
export const partitionName = (day: Date) => `check_results_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;

/**
 * Creates the partitions of the UTC days from `now`'s through `daysAhead` days later that no partition covers yet.
 * Rows already in the default partition for such a day move into it, in the same transaction (the partition is
 * built as a plain table, filled, then attached, which locks the parent only in SHARE UPDATE EXCLUSIVE mode: result
 * writes go on meanwhile). Returns the names created. Safe to run concurrently: a partition created by someone else
 * in the meantime is skipped.
 */
export async function ensureResultPartitions(
  prisma: PrismaClient,
  now: Date,
  daysAhead = PARTITION_DAYS_AHEAD,
): Promise<string[]> {
  const partitions = await listResultPartitions(prisma);
  const covered = (day: Date) =>
    partitions.some((p) => p.to !== null && (p.from === null || p.from <= day) && day < p.to);
  const created: string[] = [];
  const first = utcDay(now);
  for (let i = 0; i <= daysAhead; i++) {
    const day = new Date(first.getTime() + i * DAY_MS);
    if (covered(day)) continue;
    if (await createDayPartition(prisma, day)) created.push(partitionName(day));
  }
  return created;
}

async function createDayPartition(prisma: PrismaClient, day: Date): Promise<boolean> {
  const name = partitionName(day);
  const from = day.toISOString();
  const to = new Date(day.getTime() + DAY_MS).toISOString();
  try {
    await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await tx.$executeRawUnsafe(`CREATE TABLE "${name}" (LIKE check_results INCLUDING DEFAULTS)`);
      await tx.$executeRawUnsafe(
        `WITH moved AS (DELETE FROM "${DEFAULT_PARTITION}" WHERE slot >= '${from}' AND slot < '${to}' RETURNING *)
         INSERT INTO "${name}" SELECT * FROM moved`,
      );
      await tx.$executeRawUnsafe(
        `ALTER TABLE check_results ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`,
      );
    });
    return true;
  } catch (err) {
    // 42P07: created meanwhile by another caller; 42P17: it now overlaps a partition created meanwhile.
    const code = pgCode(err);
    if (code === '42P07' || code === '42P17' || /already exists|would overlap/.test(String(err))) return false;
    throw err;
  }
}

/**
 * Drops every partition whose whole range is older than `cutoff` (its exclusive upper bound at or before it): the
 * daily ones, and legacy once all of it has expired. Returns the names dropped. Each DROP waits at most LOCK_TIMEOUT
 * for its lock (it takes the parent's ACCESS EXCLUSIVE lock for an instant); one that times out is retried next round.
 */
export async function dropExpiredResultPartitions(prisma: PrismaClient, cutoff: Date): Promise<string[]> {
  const expired = (await listResultPartitions(prisma)).filter((p) => p.to !== null && p.to <= cutoff);
  const dropped: string[] = [];
  for (const p of expired) {
    try {
      await prisma.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        await tx.$executeRawUnsafe(`DROP TABLE IF EXISTS "${p.name}"`);
      });
      dropped.push(p.name);
    } catch (err) {
      // 55P03: the lock was not had in time (a long query on the table); the next round tries again.
      if (pgCode(err) !== '55P03' && !/lock timeout/.test(String(err))) throw err;
    }
  }
  return dropped;
}

/** The SQLSTATE of an error from Prisma's raw queries (or from pg directly). */
function pgCode(err: unknown): string | undefined {
  const e = err as { meta?: { code?: string }; code?: string };
  return e.meta?.code ?? e.code;
}
