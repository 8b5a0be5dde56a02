/**
 * The partitions of `check_results` (docs/adr/0016-check-results-partitions.md): the table is partitioned by `slot`
 * in UTC days. Housekeeping creates each day's partition ahead of time and drops whole partitions once all of their
 * slots are past retention. Two partitions are not days: `check_results_legacy` (the table as it was before
 * partitioning, every slot before the day after that migration ran) and `check_results_default` (rows of a day that
 * has no partition yet: tests, imports, or a worker that ran days without housekeeping). Both are pruned by batched
 * DELETEs through their own index on "checkedAt", as the whole table was before; legacy is dropped once all of its
 * range is past retention. Closed days are packed (docs/adr/0017-packed-results.md): each partition whose day ended
 * PACK_AFTER_MS ago becomes one row per monitor, region and day in check_results_packed, and is dropped.
 */
import { MAX_RESULT_LAG_MS, type Prisma, type PrismaClient } from '@statusvane/shared';

const DAY_MS = 86_400_000;
export const DEFAULT_PARTITION = 'check_results_default';
/** The partitions that are not days and keep an index on "checkedAt" for batched pruning. */
export const CATCH_ALL_PARTITIONS = ['check_results_legacy', DEFAULT_PARTITION] as const;
/** Days of partitions kept ahead of today (UTC): housekeeping runs every 30 s, so this survives a long outage. */
export const PARTITION_DAYS_AHEAD = 3;
/** DDL on check_results waits at most this long for its lock, then gives up until the next round. */
const LOCK_TIMEOUT = '3s';
/**
 * Dropping an expired partition waits at most this long for check_results' ACCESS EXCLUSIVE lock: while it waits,
 * every result insert queues behind it, so it gives up soon and the next round (30 s later) tries again.
 */
const DROP_LOCK_TIMEOUT = '200ms';

export interface ResultPartition {
  name: string;
  /** Inclusive lower bound; null for MINVALUE and for the default partition. */
  from: Date | null;
  /** Exclusive upper bound; null for the default partition. */
  to: Date | null;
}

type Db = PrismaClient | Prisma.TransactionClient;

/** Every partition of check_results with its bounds (read back as timestamptz in SQL: no time-zone parsing here). */
export async function listResultPartitions(prisma: Db): Promise<ResultPartition[]> {
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
 * daily ones, and legacy once all of it has expired. Returns the names dropped. Each DROP waits at most
 * DROP_LOCK_TIMEOUT for its lock (it takes the parent's ACCESS EXCLUSIVE lock for an instant, and result inserts queue
 * behind it while it waits); one that times out is told to `onBusy` and retried next round.
 */
export async function dropExpiredResultPartitions(
  prisma: PrismaClient,
  cutoff: Date,
  onBusy: (partition: string) => void = () => undefined,
): Promise<string[]> {
  const expired = (await listResultPartitions(prisma)).filter((p) => p.to !== null && p.to <= cutoff);
  const dropped: string[] = [];
  for (const p of expired) {
    if ((await withLockTimeout(prisma, DROP_LOCK_TIMEOUT, (tx) => dropPartition(tx, p.name))) === BUSY) onBusy(p.name);
    else dropped.push(p.name);
  }
  return dropped;
}

const BUSY = Symbol('busy');

/**
 * Runs `fn` in a transaction whose locks wait at most `lockTimeout`; BUSY when one was not had in time (55P03: a long
 * query on the table): the next round tries again.
 */
async function withLockTimeout<T>(
  prisma: PrismaClient,
  lockTimeout: string,
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
  txTimeoutMs?: number,
): Promise<T | typeof BUSY> {
  try {
    return await prisma.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${lockTimeout}'`);
        return fn(tx);
      },
      txTimeoutMs === undefined ? undefined : { timeout: txTimeoutMs },
    );
  } catch (err) {
    if (pgCode(err) !== '55P03' && !/lock timeout/.test(String(err))) throw err;
    return BUSY;
  }
}

/**
 * Drops a partition, locking the parent first: a result write locks the parent, then the partition it routes to, so
 * taking them in the same order cannot deadlock with one (DROP TABLE alone would lock the partition first).
 */
async function dropPartition(tx: Prisma.TransactionClient, name: string): Promise<void> {
  await tx.$executeRawUnsafe('LOCK TABLE ONLY check_results IN ACCESS EXCLUSIVE MODE');
  await tx.$executeRawUnsafe(`DROP TABLE IF EXISTS "${name}"`);
}

/** The SQLSTATE of an error from Prisma's raw queries (or from pg directly). */
function pgCode(err: unknown): string | undefined {
  const e = err as { meta?: { code?: string }; code?: string };
  return e.meta?.code ?? e.code;
}

// ---------------------------------------------------------------------------------------------------------------------
// Packing closed days (docs/adr/0017-packed-results.md)
// ---------------------------------------------------------------------------------------------------------------------

/**
 * A day is packed once its end is this far in the past: results are stored at most MAX_RESULT_LAG_MS after their
 * slot in normal operation. A later one still lands (in the default partition) and is added at the next round.
 */
export const PACK_AFTER_MS = MAX_RESULT_LAG_MS;
/** Serialises packing across workers (a round may outlive the housekeeping lock); `pg_try_advisory_xact_lock`. */
const PACK_LOCK_KEY = 5_387_223_017;
/**
 * Rows of a partition packed per statement, about: each stays well within the statement timeout (10 s). There is no
 * cap on the number of statements: capped, a large fleet's day made statements of half a million rows and more, which
 * ran past the timeout under load, so the day was never packed (bench:packed measures 40,000 to 100,000 results a
 * second).
 */
const PACK_CHUNK_ROWS = 100_000;
/** Chunks are ranges of the first 32 bits of monitor ids: this many leaves a few monitors in each at most. */
const PACK_MAX_CHUNKS = 1 << 20;
/**
 * A packing transaction may take this long: a day of 100,000 monitors checked every minute from one region is 144
 * million results, about 25 to 60 minutes at the measured rates (docs/adr/0017-packed-results.md).
 */
const PACK_TX_TIMEOUT_MS = 4 * 60 * 60_000;

const DAY = `date_bin('1 day', slot, TIMESTAMPTZ 'epoch')`;

/**
 * The arrays of a packed row and the check_results expression each element comes from. `nullable`: the array is null
 * when every element would be (no certificates on an http check, no reason while up), which saves its header.
 */
const PACKED_ARRAYS: ReadonlyArray<{ column: string; expr: string; type: string; nullable: boolean }> = [
  { column: 'slotOffsetMs', expr: `(extract(epoch FROM slot - ${DAY}) * 1000)::int`, type: 'int', nullable: false },
  {
    column: 'checkedAfterMs',
    expr: `(extract(epoch FROM "checkedAt" - slot) * 1000)::bigint`,
    type: 'bigint',
    nullable: false,
  },
  { column: 'outcome', expr: 'outcome', type: '"CheckOutcome"', nullable: false },
  { column: 'responseMs', expr: '"responseMs"', type: 'int', nullable: true },
  { column: 'dnsMs', expr: '"dnsMs"', type: 'int', nullable: true },
  { column: 'connectMs', expr: '"connectMs"', type: 'int', nullable: true },
  { column: 'tlsMs', expr: '"tlsMs"', type: 'int', nullable: true },
  { column: 'waitingMs', expr: '"waitingMs"', type: 'int', nullable: true },
  { column: 'statusCode', expr: '"statusCode"::smallint', type: 'smallint', nullable: true },
  { column: 'reason', expr: 'reason::text', type: 'text', nullable: true },
  { column: 'certificate', expr: 'certificate', type: 'jsonb', nullable: true },
  { column: 'dnsAnswers', expr: '"dnsAnswers"', type: 'jsonb', nullable: true },
  { column: 'address', expr: 'address', type: 'inet', nullable: true },
];

/**
 * INSERT ... SELECT of the rows of `table` matching `where` into their packed days; answers `n`, the results packed. A
 * day that has a packed row already (a late result added to a packed day) gets the new results appended to each
 * array; an array that was null (all nulls) is filled out with nulls first, so that element i stays result i in every
 * array.
 */
function packStatement(table: string, where: string): string {
  const cols = PACKED_ARRAYS.map((a) => `"${a.column}"`).join(', ');
  const aggs = PACKED_ARRAYS.map((a) => {
    const agg = `array_agg(${a.expr} ORDER BY slot)`;
    return a.nullable ? `CASE WHEN count(${a.expr}) > 0 THEN ${agg} END` : agg;
  }).join(',\n      ');
  const merges = PACKED_ARRAYS.map(({ column, type, nullable }) => {
    const c = `"${column}"`;
    if (!nullable) return `${c} = p.${c} || EXCLUDED.${c}`;
    const filled = (row: string) => `coalesce(${row}.${c}, array_fill(NULL::${type}, ARRAY[${row}.count]))`;
    return `${c} = CASE WHEN p.${c} IS NULL AND EXCLUDED.${c} IS NULL THEN NULL ELSE ${filled('p')} || ${filled('EXCLUDED')} END`;
  }).join(',\n      ');
  return `
    WITH src AS MATERIALIZED (SELECT * FROM "${table}" WHERE ${where}), ins AS (
    INSERT INTO check_results_packed AS p (day, "monitorId", count, region, ${cols})
    SELECT ${DAY}, "monitorId", count(*)::int, region,
      ${aggs}
    FROM src
    GROUP BY 1, 2, 4
    ON CONFLICT ("monitorId", region, day) DO UPDATE SET
      count = p.count + EXCLUDED.count,
      ${merges})
    SELECT count(*)::int AS n FROM src`;
}

/** How many statements pack a partition of about `rows` rows, `chunkRows` each at most (as far as ids spread evenly). */
export function packChunkCount(rows: number, chunkRows = PACK_CHUNK_ROWS): number {
  return Math.min(PACK_MAX_CHUNKS, Math.max(1, Math.ceil(rows / chunkRows)));
}

/** `n` ranges of monitor ids covering them all (by the first 32 bits), as SQL conditions. */
function monitorRanges(n: number): string[] {
  const bound = (i: number) =>
    `'${Math.floor((i * 2 ** 32) / n)
      .toString(16)
      .padStart(8, '0')}-0000-0000-0000-000000000000'`;
  return Array.from(
    { length: n },
    (_, i) =>
      [i > 0 ? `"monitorId" >= ${bound(i)}` : null, i < n - 1 ? `"monitorId" < ${bound(i + 1)}` : null]
        .filter(Boolean)
        .join(' AND ') || 'true',
  );
}

/** Runs packStatement; answers the results packed. */
async function pack(tx: Prisma.TransactionClient, table: string, where: string): Promise<number> {
  const [row] = await tx.$queryRawUnsafe<Array<{ n: number }>>(packStatement(table, where));
  return row?.n ?? 0;
}

/** Takes the packing lock for the transaction; false when another worker holds it (it is packing). */
async function tryPackLock(tx: Prisma.TransactionClient): Promise<boolean> {
  const [row] = await tx.$queryRaw<
    Array<{ ok: boolean }>
  >`SELECT pg_try_advisory_xact_lock(${PACK_LOCK_KEY}::bigint) AS ok`;
  return row?.ok === true;
}

/**
 * Packs a whole partition (a closed day, or legacy) into check_results_packed and drops it, in the caller's
 * transaction: readers see either its rows or their packed form, never both. Its rows are read under a SHARE lock (a
 * write to the day meanwhile waits, then lands in the default partition and is checked against the packed row), in
 * chunks of monitor ids so that no statement runs long. Answers the rows packed; null when another worker is packing
 * or the partition is gone (packed or dropped meanwhile).
 */
export async function packPartition(
  tx: Prisma.TransactionClient,
  name: string,
  chunkRows = PACK_CHUNK_ROWS,
): Promise<number | null> {
  if (!(await tryPackLock(tx))) return null;
  // Its rows, about: the planner's estimate, or its size at about 120 bytes a row when never analysed.
  const [part] = await tx.$queryRaw<Array<{ rows: number }>>`
    SELECT greatest(c.reltuples, pg_relation_size(c.oid) / 120)::float8 AS rows
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'check_results'::regclass AND c.relname = ${name}`;
  if (!part) return null;
  await tx.$executeRawUnsafe(`LOCK TABLE "${name}" IN SHARE MODE`);
  let packed = 0;
  for (const range of monitorRanges(packChunkCount(part.rows, chunkRows))) packed += await pack(tx, name, range);
  await dropPartition(tx, name);
  return packed;
}

/**
 * Packs the rows of the default partition whose slot is before `before` (results of days without a partition: late
 * ones for a packed day, imports, tests) and deletes them, in the caller's transaction. Null when another worker is
 * packing.
 */
export async function packDefaultPartition(tx: Prisma.TransactionClient, before: Date): Promise<number | null> {
  if (!(await tryPackLock(tx))) return null;
  await tx.$executeRawUnsafe(`LOCK TABLE "${DEFAULT_PARTITION}" IN SHARE MODE`);
  const where = `slot < '${before.toISOString()}'`;
  const packed = await pack(tx, DEFAULT_PARTITION, where);
  await tx.$executeRawUnsafe(`DELETE FROM "${DEFAULT_PARTITION}" WHERE ${where}`);
  return packed;
}

export interface PackReport {
  /** Partitions packed and dropped. */
  partitions: string[];
  /** Raw results packed (the partitions' and the default partition's). */
  results: number;
}

/**
 * Packs every partition whose whole range is before `before` (each in a transaction of its own), then the default
 * partition's rows before it. Housekeeping passes now - PACK_AFTER_MS. Safe to run from several workers at once: one
 * packs, the others skip; and again and again: what is packed is gone from check_results. A partition whose lock is
 * not had in time (a long query on check_results) is left for the next round.
 */
export async function packClosedResults(
  prisma: PrismaClient,
  before: Date,
  { chunkRows = PACK_CHUNK_ROWS }: { chunkRows?: number } = {},
): Promise<PackReport> {
  const report: PackReport = { partitions: [], results: 0 };
  const closed = (await listResultPartitions(prisma)).filter((p) => p.to !== null && p.to <= before);
  const inTx = <T>(fn: (tx: Prisma.TransactionClient) => Promise<T>) =>
    withLockTimeout(prisma, LOCK_TIMEOUT, fn, PACK_TX_TIMEOUT_MS);
  for (const p of closed) {
    const n = await inTx((tx) => packPartition(tx, p.name, chunkRows));
    if (n === null || n === BUSY) continue;
    report.partitions.push(p.name);
    report.results += n;
  }
  const n = await inTx((tx) => packDefaultPartition(tx, before));
  if (n !== null && n !== BUSY) report.results += n;
  return report;
}
