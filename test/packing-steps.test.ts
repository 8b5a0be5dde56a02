/**
 * Packing commits each range of monitor ids on its own (docs/adr/0017-packed-results.md): between two ranges no
 * transaction is left open (the event log shows only what committed before the oldest one still running), readers
 * see every result once, a second copy of a moved result is skipped, and a result written meanwhile ends up packed.
 * A partition left detached by a worker that stopped is swept and dropped by the next round. On a scratch database of
 * its own: packing drops partitions of check_results.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertResultsWithRollups, type PrismaClient, type ResultRow } from '@statusvane/shared';
import {
  ensureResultPartitions,
  listResultPartitions,
  packClosedResults,
  partitionName,
} from '../apps/worker/src/result-partitions.js';
import { scratchDatabaseBefore } from './support/scratch-db.js';

const scratch = scratchDatabaseBefore('packing_steps', '99999999999999_after_all');
const q = scratch.query;

const DAY = 86_400_000;
const today = new Date(Math.floor(Date.now() / DAY) * DAY);
const yesterday = new Date(today.getTime() - DAY);
const twoDaysAgo = new Date(today.getTime() - 2 * DAY);

let prisma: PrismaClient;
let monitors: string[];

/** A result every 10 minutes of `day` for each monitor, in two regions. */
function dayOfResults(day: Date): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const [m, monitorId] of monitors.entries()) {
    for (let t = day.getTime(), i = 0; t < day.getTime() + DAY; t += 10 * 60_000, i++) {
      for (const region of ['eu', 'us']) {
        const down = (i + m) % 9 === 0;
        rows.push({
          monitorId,
          region,
          slot: new Date(t),
          checkedAt: new Date(t + 40 + i),
          outcome: down ? 'down' : 'up',
          responseMs: down ? null : 20 + ((i * 7) % 300),
          statusCode: down ? 503 : 200,
          reason: down ? 'status_code: 503' : null,
          dnsMs: null,
          connectMs: 2,
          tlsMs: null,
          waitingMs: 10,
          certificate: null,
          dnsAnswers: null,
          address: '127.0.0.1',
        });
      }
    }
  }
  return rows;
}

const viewRows = async () =>
  (
    await q(`SELECT "monitorId", region, slot, "checkedAt", outcome::text, "responseMs", "statusCode", reason,
      host(address) AS address FROM check_results_all ORDER BY "monitorId", region, slot`)
  ).rows;

const rollups = async () => ({
  hourly: (await q(`SELECT * FROM check_rollups_hourly ORDER BY "monitorId", region, hour`)).rows,
  daily: (await q(`SELECT * FROM check_rollups_daily ORDER BY "monitorId", region, day`)).rows,
});

/** Other clients of this database in a transaction that holds a transaction id (one that writes; not autovacuum). */
const openWriters = async () =>
  (
    await q(`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL
        AND backend_type = 'client backend'`)
  ).rows[0].n as number;

const tableExists = async (name: string) =>
  (await q(`SELECT count(*)::int AS n FROM pg_class WHERE relname = $1`, [name])).rows[0].n === 1;

beforeAll(async () => {
  prisma = scratch.prisma();
  const { rows } = await q(`
    WITH ws AS (INSERT INTO workspaces (id, slug, name) VALUES (gen_random_uuid(), 'steps', 'Steps') RETURNING id),
         c AS (INSERT INTO components (id, "workspaceId", name)
               SELECT gen_random_uuid(), id, 'c' || i FROM ws, generate_series(1, 12) AS i
               RETURNING id, "workspaceId", name)
    INSERT INTO monitors (id, "workspaceId", "componentId", name, "updatedAt")
    SELECT gen_random_uuid(), "workspaceId", id, name, now() FROM c RETURNING id`);
  monitors = rows.map((r: { id: string }) => r.id).sort();
  // Yesterday's partition (the migration made today's only): packing works on day partitions.
  await ensureResultPartitions(prisma, yesterday, 0);
  await insertResultsWithRollups(prisma, dayOfResults(yesterday));
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
});

describe('packing a day range by range', () => {
  it('commits each range: readers see each result once, a copy of a moved one is skipped, a late one is kept', async () => {
    const name = partitionName(yesterday);
    const before = await viewRows();
    expect(before).toHaveLength(12 * 144 * 2);
    const rollupsBefore = await rollups();
    let steps = 0;
    let late: ResultRow | null = null;

    const report = await packClosedResults(prisma, today, {
      chunkRows: 500,
      afterRange: async () => {
        steps++;
        // Nothing of packing's is open between two ranges: the event log's horizon moves on.
        expect(await openWriters()).toBe(0);
        // Once, after the first range that moved anything (ranges of ids: the first may hold no monitor).
        if (late !== null) return;
        const { rows } = await q(`SELECT "monitorId", region, day + "slotOffsetMs"[1] * interval '1 ms' AS slot
          FROM check_results_packed ORDER BY "monitorId", region LIMIT 1`);
        if (rows.length === 0) return;
        expect(await viewRows()).toEqual(before);
        // A result of a range already moved: its raw row is gone from the partition, so its unique key cannot stop
        // a second copy; the trigger packing armed does, as a duplicate (no rollup counts it).
        const moved = before.find((r) => r.monitorId === rows[0].monitorId && r.region === rows[0].region)!;
        const copy: ResultRow = {
          ...dayOfResults(yesterday).find((r) => r.monitorId === moved.monitorId && r.region === moved.region)!,
          outcome: 'down',
        };
        expect(copy.slot).toEqual(rows[0].slot);
        expect(await insertResultsWithRollups(prisma, [copy])).toEqual([]);
        expect(await rollups()).toEqual(rollupsBefore);
        // A slot of that monitor the day has no result for: stored in the partition, after its range was moved.
        late = { ...copy, slot: new Date(yesterday.getTime() + 5 * 60_000 + 1), checkedAt: new Date() };
        expect(await insertResultsWithRollups(prisma, [late])).toHaveLength(1);
      },
    });

    expect(steps).toBeGreaterThan(3);
    expect(late).not.toBeNull();
    expect(report).toEqual({ partitions: [name], results: before.length + 1 });
    expect(await tableExists(name)).toBe(false);
    expect((await listResultPartitions(prisma)).map((p) => p.name)).not.toContain(name);
    expect((await q(`SELECT count(*)::int AS n FROM check_results`)).rows[0].n).toBe(0);
    // Every result once, the late one included (swept from the detached partition into its day's packed row).
    const after = await viewRows();
    expect(after).toHaveLength(before.length + 1);
    expect(after.filter((r) => r.slot.getTime() === late!.slot.getTime())).toHaveLength(1);
    expect(after.filter((r) => !(r.slot.getTime() === late!.slot.getTime()))).toEqual(before);
  });

  it('packs a day once when two workers pack it at once, and neither fails', async () => {
    const day = new Date(today.getTime() - 3 * DAY);
    const name = partitionName(day);
    await ensureResultPartitions(prisma, day, 0);
    await insertResultsWithRollups(prisma, dayOfResults(day));
    const before = await viewRows();
    // Each skips what the other holds the packing lock for (the next round goes on): rounds until it is done. Started
    // together, the two can collide round after round on a loaded machine (one packs the default partition, holding
    // the lock, while the other tries its first range): once, in a full suite, ten rounds packed nothing.
    let packed = 0;
    for (let round = 0; round < 100 && (await tableExists(name)); round++) {
      const reports = await Promise.all([
        packClosedResults(prisma, twoDaysAgo, { chunkRows: 300 }),
        packClosedResults(prisma, twoDaysAgo, { chunkRows: 300 }),
      ]);
      packed += reports[0]!.results + reports[1]!.results;
    }
    expect(packed).toBe(12 * 144 * 2);
    expect(await tableExists(name)).toBe(false);
    expect(await viewRows()).toEqual(before);
    const { rows } = await q(
      `SELECT sum(count)::int AS n, count(*)::int AS packed FROM check_results_packed
      WHERE day = $1`,
      [day],
    );
    expect(rows[0]).toEqual({ n: 12 * 144 * 2, packed: 12 * 2 });
  });

  it('sweeps and drops a partition a stopped worker left detached', async () => {
    const name = partitionName(twoDaysAgo);
    await ensureResultPartitions(prisma, twoDaysAgo, 0);
    await insertResultsWithRollups(prisma, dayOfResults(twoDaysAgo));
    const before = await viewRows();
    const ofTheDay = 12 * 144 * 2;
    // As packing leaves it between detaching and dropping (its results are not read meanwhile).
    await q(`ALTER TABLE check_results DETACH PARTITION "${name}"`);
    expect(await viewRows()).toHaveLength(before.length - ofTheDay);

    // Before: nothing is closed but that day (already detached); the sweep still finds it.
    expect(await packClosedResults(prisma, twoDaysAgo, { chunkRows: 500 })).toEqual({
      partitions: [name],
      results: ofTheDay,
    });
    expect(await tableExists(name)).toBe(false);
    expect(await viewRows()).toEqual(before);
  });

  it('sweeps the legacy partition too when a stopped worker left it detached', async () => {
    const day = new Date(today.getTime() - 5 * DAY);
    const rows = dayOfResults(day).filter((r) => r.slot.getTime() < day.getTime() + 3_600_000);
    const before = await viewRows();
    await q(`CREATE TABLE check_results_legacy (LIKE check_results INCLUDING DEFAULTS)`);
    await q(
      `INSERT INTO check_results_legacy ("monitorId", region, slot, "checkedAt", outcome, "responseMs", "statusCode",
         reason, "connectMs", "waitingMs", address)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r("monitorId" uuid, region text, slot timestamptz,
         "checkedAt" timestamptz, outcome "CheckOutcome", "responseMs" int, "statusCode" int, reason text,
         "connectMs" int, "waitingMs" int, address inet)`,
      [JSON.stringify(rows)],
    );
    expect(await packClosedResults(prisma, twoDaysAgo)).toEqual({
      partitions: ['check_results_legacy'],
      results: rows.length,
    });
    expect(await tableExists('check_results_legacy')).toBe(false);
    expect(await viewRows()).toHaveLength(before.length + rows.length);
  });
});
