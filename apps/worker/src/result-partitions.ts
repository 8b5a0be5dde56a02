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
 * A packing transaction may take this long: one range of monitor ids or of heap blocks, a few statements of about
 * PACK_CHUNK_ROWS rows (the bench packs whole days in one, then rolls it back: packPartition).
 */
const PACK_TX_TIMEOUT_MS = 5 * 60_000;

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
  { column: 'steps', expr: 'steps', type: 'jsonb', nullable: true },
  { column: 'traceId', expr: '"traceId"::text', type: 'text', nullable: true },
];

/**
 * Moves the rows of `table` matching `where` into their packed days in one statement (DELETE ... RETURNING feeds the
 * INSERT: one pass over them); answers `n`, the results packed. A day that has a packed row already (a late result
 * added to a packed day) gets the new results appended to each array; an array that was null (all nulls) is filled
 * out with nulls first, so that element i stays result i in every array. `skipPacked`: rows whose slot the packed row
 * holds already are deleted without being added (a result stored twice, each copy where it could land: see
 * sweepDetached).
 */
function packStatement(table: string, where: string, skipPacked: boolean): string {
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
  const fresh = skipPacked
    ? `WHERE NOT EXISTS (SELECT 1 FROM check_results_packed k
         WHERE k."monitorId" = src."monitorId" AND k.region = src.region AND k.day = ${DAY}
           AND (extract(epoch FROM src.slot - k.day) * 1000)::int = ANY (k."slotOffsetMs"))`
    : '';
  return `
    WITH src AS MATERIALIZED (DELETE FROM "${table}" WHERE ${where} RETURNING *), ins AS (
    INSERT INTO check_results_packed AS p (day, "monitorId", count, region, ${cols})
    SELECT ${DAY}, "monitorId", count(*)::int, region,
      ${aggs}
    FROM src ${fresh}
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

/** Takes the packing lock for the transaction; false when another worker holds it (it is packing). */
async function tryPackLock(tx: Prisma.TransactionClient): Promise<boolean> {
  const [row] = await tx.$queryRaw<
    Array<{ ok: boolean }>
  >`SELECT pg_try_advisory_xact_lock(${PACK_LOCK_KEY}::bigint) AS ok`;
  return row?.ok === true;
}

/**
 * Packs the rows of `table` matching `where` (packStatement) under the packing lock, in the caller's transaction;
 * null when another worker holds the lock.
 */
async function packRows(
  tx: Prisma.TransactionClient,
  table: string,
  where: string,
  skipPacked = false,
): Promise<number | null> {
  if (!(await tryPackLock(tx))) return null;
  // Gone: packed and dropped by another worker since this one listed it.
  const [found] = await tx.$queryRaw<Array<{ ok: boolean }>>`SELECT to_regclass(${`"${table}"`}) IS NOT NULL AS ok`;
  if (found?.ok !== true) return null;
  const [row] = await tx.$queryRawUnsafe<Array<{ n: number }>>(packStatement(table, where, skipPacked));
  return row?.n ?? 0;
}

/** A partition's rows, about: the planner's estimate, or its size at about 120 bytes a row when never analysed. */
async function estimatedRows(prisma: Db, name: string): Promise<number> {
  const [part] = await prisma.$queryRaw<Array<{ rows: number }>>`
    SELECT greatest(c.reltuples, pg_relation_size(c.oid) / 120)::float8 AS rows
    FROM pg_class c WHERE c.relname = ${name} AND c.relkind = 'r'`;
  return part?.rows ?? 0;
}

/** The ranges of monitor ids that pack a partition of `name`'s size in statements of about `chunkRows` rows. */
async function packRanges(prisma: Db, name: string, chunkRows: number): Promise<string[]> {
  return monitorRanges(packChunkCount(await estimatedRows(prisma, name), chunkRows));
}

/**
 * Packs a whole partition and drops it, all in the caller's transaction (the bench measures bytes so, then rolls
 * back). Housekeeping commits each range instead (packClosedResults). Null when another worker is packing.
 */
export async function packPartition(
  tx: Prisma.TransactionClient,
  name: string,
  chunkRows = PACK_CHUNK_ROWS,
): Promise<number | null> {
  let packed = 0;
  for (const range of await packRanges(tx, name, chunkRows)) {
    const n = await packRows(tx, name, range);
    if (n === null) return null;
    packed += n;
  }
  await dropPartition(tx, name);
  return packed;
}

/**
 * Packs the rows of the default partition whose slot is before `before` (results of days without a partition: late
 * ones for a packed day, imports, tests), in the caller's transaction. Null when another worker is packing.
 */
export async function packDefaultPartition(tx: Prisma.TransactionClient, before: Date): Promise<number | null> {
  return packRows(tx, DEFAULT_PARTITION, `slot < '${before.toISOString()}'`, true);
}

/** Blocks of a detached partition swept per statement: 64 MB of heap, most of it the dead rows packing left. */
const SWEEP_BLOCKS = 8192;

/**
 * Packs what is left in a detached partition (results written to it while its ranges were packed: none in normal
 * operation) by ranges of heap blocks, each range in a transaction of its own, then drops it. Answers the results
 * packed; null when another worker held the packing lock (the next round goes on where this one stopped).
 */
async function sweepDetached(prisma: PrismaClient, name: string): Promise<number | null> {
  const [size] = await prisma.$queryRaw<Array<{ blocks: number }>>`
    SELECT (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS blocks
    FROM pg_class c WHERE c.relname = ${name} AND c.relkind = 'r'`;
  if (!size) return null;
  let packed = 0;
  for (let from = 0; from < size.blocks; from += SWEEP_BLOCKS) {
    const tids = `ctid >= '(${from},0)'::tid AND ctid < '(${from + SWEEP_BLOCKS},0)'::tid`;
    const n = await packInTx(prisma, (tx) => packRows(tx, name, tids, true));
    if (n === null || n === BUSY) return null;
    packed += n;
  }
  // Detached: dropping it locks nothing else.
  await prisma.$executeRawUnsafe(`DROP TABLE IF EXISTS "${name}"`);
  return packed;
}

/**
 * Arms a partition for packing: the trigger the default partition has (check_results_skip_packed) skips a result
 * written to it for a slot that is packed already, as a duplicate. Rows are deleted from the partition as their range
 * is packed, so its unique key no longer stops a second copy of such a result (none arrive in normal operation).
 */
async function armPartition(tx: Prisma.TransactionClient, name: string): Promise<boolean> {
  if (!(await tryPackLock(tx)) || !(await isAttached(tx, name))) return false;
  await tx.$executeRawUnsafe(
    `CREATE OR REPLACE TRIGGER "${name}_skip_packed" BEFORE INSERT ON "${name}"
     FOR EACH ROW EXECUTE FUNCTION check_results_skip_packed()`,
  );
  return true;
}

/**
 * Detaches a packed partition from check_results (the lock order of dropPartition: the parent first), so that no
 * result can land in it any more: a late one goes to the default partition, and the next round adds it.
 */
async function detachPartition(tx: Prisma.TransactionClient, name: string): Promise<boolean> {
  if (!(await tryPackLock(tx)) || !(await isAttached(tx, name))) return false;
  await tx.$executeRawUnsafe('LOCK TABLE ONLY check_results IN ACCESS EXCLUSIVE MODE');
  await tx.$executeRawUnsafe(`ALTER TABLE check_results DETACH PARTITION "${name}"`);
  return true;
}

/** Whether `name` is still a partition of check_results (another worker may have detached or dropped it meanwhile). */
async function isAttached(tx: Prisma.TransactionClient, name: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<Array<{ ok: boolean }>>`
    SELECT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'check_results'::regclass AND c.relname = ${name}) AS ok`;
  return row?.ok === true;
}

/** Partitions (days, or legacy) detached by packing and not dropped yet (a worker that stopped between the two). */
async function listDetachedPartitions(prisma: PrismaClient): Promise<string[]> {
  const rows = await prisma.$queryRaw<Array<{ name: string }>>`
    SELECT c.relname AS name FROM pg_class c
    WHERE c.relkind = 'r' AND c.relname ~ '^check_results_(p[0-9]{8}|legacy)$' AND c.relnamespace = current_schema()::regnamespace
      AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)
    ORDER BY 1`;
  return rows.map((r) => r.name);
}

/** A packing transaction: its locks wait at most LOCK_TIMEOUT, and it may run PACK_TX_TIMEOUT_MS. */
function packInTx<T>(prisma: PrismaClient, fn: (tx: Prisma.TransactionClient) => Promise<T>) {
  return withLockTimeout(prisma, LOCK_TIMEOUT, fn, PACK_TX_TIMEOUT_MS);
}

export interface PackReport {
  /** Partitions packed and dropped. */
  partitions: string[];
  /** Raw results packed (the partitions' and the default partition's). */
  results: number;
}

/**
 * Packs every partition whose whole range is before `before`, then the default partition's rows before it. A partition
 * is packed by ranges of monitor ids, each range moved (packed and deleted) in a transaction of its own: readers see
 * each result raw or packed, never both and never neither, and no transaction runs long. A long one would hold back
 * the event log, which shows only what committed before the oldest transaction still running, and vacuum. Then it is
 * detached (no result lands in it any more), what was written to it meanwhile is swept into the packed rows, and it
 * is dropped. Safe to run from several workers at once (one packs, the others skip) and to stop anywhere: the next
 * round goes on where it stopped, a detached partition included. A lock not had in time leaves the rest for the next
 * round.
 */
export async function packClosedResults(
  prisma: PrismaClient,
  before: Date,
  {
    chunkRows = PACK_CHUNK_ROWS,
    afterRange = async () => undefined,
  }: {
    chunkRows?: number;
    /** Called after each range of a partition is committed (tests look at the database between two). */
    afterRange?: (partition: string) => Promise<void>;
  } = {},
): Promise<PackReport> {
  const report: PackReport = { partitions: [], results: 0 };
  const add = (n: number | null | typeof BUSY): boolean => {
    if (n === null || n === BUSY) return false;
    report.results += n;
    return true;
  };
  for (const name of await listDetachedPartitions(prisma)) {
    if (add(await sweepDetached(prisma, name))) report.partitions.push(name);
  }
  const closed = (await listResultPartitions(prisma)).filter((p) => p.to !== null && p.to <= before);
  next: for (const p of closed) {
    if ((await withLockTimeout(prisma, DROP_LOCK_TIMEOUT, (tx) => armPartition(tx, p.name))) !== true) continue;
    for (const range of await packRanges(prisma, p.name, chunkRows)) {
      if (!add(await packInTx(prisma, (tx) => packRows(tx, p.name, range)))) continue next;
      await afterRange(p.name);
    }
    if ((await withLockTimeout(prisma, DROP_LOCK_TIMEOUT, (tx) => detachPartition(tx, p.name))) !== true) continue;
    if (add(await sweepDetached(prisma, p.name))) report.partitions.push(p.name);
  }
  add(await packInTx(prisma, (tx) => packDefaultPartition(tx, before)));
  return report;
}
