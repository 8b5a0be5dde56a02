/**
 * check_results partitioned by slot (docs/adr/0016-check-results-partitions.md), on a scratch database of its own:
 * migrated to the state before partitioning, filled the way the old code filled it, then migrated to the end. The
 * rows must all still be there, per-slot uniqueness must hold across the old table and the new partitions, and
 * housekeeping's partition upkeep (create ahead, move rows out of the default partition, drop past retention) is
 * exercised here rather than in the shared test database, where dropping the legacy partition would take every other
 * suite's results with it.
 */
import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { insertResultsWithRollups, type PrismaClient, type ResultRow } from '@statusvane/shared';
import { applyMigrations } from '../scripts/migrate.js';
import { pruneExpired } from '../apps/worker/src/housekeeping.js';
import {
  dropExpiredResultPartitions,
  ensureResultPartitions,
  listResultPartitions,
  partitionName,
} from '../apps/worker/src/result-partitions.js';
import { scratchDatabaseBefore } from './support/scratch-db.js';

const MIGRATION = '20261125234800_check_results_partitioned';
const scratch = scratchDatabaseBefore('partmig', MIGRATION);
const scratchUrl = scratch.url;
/** Made after the migration, in the first test. */
let prisma: PrismaClient;

const DAY = 86_400_000;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const nextMidnight = (at: Date) => new Date(Math.floor(at.getTime() / DAY) * DAY + DAY);
const q = scratch.query;

/** Every stored result as comparable JSON, in key order. */
async function allResults() {
  const { rows } = await q(`
    SELECT "monitorId", region, slot, "checkedAt", outcome::text, "responseMs", "dnsMs", "connectMs", "tlsMs",
      "waitingMs", "statusCode", reason, certificate, "dnsAnswers"
    FROM check_results ORDER BY "monitorId", region, slot`);
  return rows.map((r) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>);
}
const partitionOf = async (monitorId: string, slot: Date) =>
  (
    await q(`SELECT tableoid::regclass::text AS p FROM check_results WHERE "monitorId" = $1 AND slot = $2`, [
      monitorId,
      slot,
    ])
  ).rows.map((r) => r.p as string);

const row = (monitorId: string, slot: Date, outcome: ResultRow['outcome'] = 'up'): ResultRow => ({
  monitorId,
  region: 'local',
  slot,
  checkedAt: new Date(slot.getTime() + 250),
  outcome,
  responseMs: 12,
  statusCode: 200,
  reason: null,
  dnsMs: 1,
  connectMs: 2,
  tlsMs: null,
  waitingMs: 8,
  certificate: null,
  dnsAnswers: null,
  address: '127.0.0.1',
});

describe(`migration ${MIGRATION}`, () => {
  const now = new Date();
  const bound = nextMidnight(now);
  const [ws, monitor, other] = [id(1), id(2), id(3)];
  const slots = [new Date(now.getTime() - 40 * DAY), new Date(now.getTime() - DAY), new Date(now.getTime() - 60_000)];

  it('keeps every row of the old table, in a legacy partition, and partitions check_results by slot', async () => {
    await q(`INSERT INTO workspaces (id, slug, name) VALUES ($1, 'part', 'Part')`, [ws]);
    await q(`INSERT INTO components (id, "workspaceId", name) VALUES ($1, $3, 'A'), ($2, $3, 'B')`, [id(4), id(5), ws]);
    await q(
      `INSERT INTO monitors (id, "workspaceId", "componentId", name, "updatedAt") VALUES ($1, $3, $4, 'A', now()), ($2, $3, $5, 'B', now())`,
      [monitor, other, ws, id(4), id(5)],
    );
    // As the old code wrote them: a bigserial id, every kind of column filled somewhere.
    await q(
      `INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, "responseMs", "dnsMs", "connectMs",
         "tlsMs", "waitingMs", "statusCode", reason, certificate, "dnsAnswers") VALUES
       ($1, 'local', $3, $3, 'up', 40, 1, 2, 3, 30, 200, NULL, '{"subject":"example.test","daysLeft":20}', NULL),
       ($1, 'local', $4, $4, 'down', NULL, NULL, NULL, NULL, NULL, 503, 'status 503', NULL, NULL),
       ($1, 'eu', $5, $5, 'degraded', 900, NULL, NULL, NULL, NULL, 200, 'slow', NULL, NULL),
       ($2, 'local', $5, $5, 'up', 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '["192.0.2.1"]')`,
      [monitor, other, ...slots],
    );
    const before = await allResults();
    expect(before).toHaveLength(4);

    expect((await applyMigrations(scratchUrl)).applied).toContain(MIGRATION);
    prisma = scratch.prisma();

    expect(await allResults()).toEqual(before);
    const { rows: kind } = await q(`SELECT relkind FROM pg_class WHERE oid = 'check_results'::regclass`);
    expect(kind).toEqual([{ relkind: 'p' }]);
    const partitions = await listResultPartitions(prisma);
    const days = [0, 1, 2].map((i) => new Date(bound.getTime() + i * DAY));
    expect(partitions).toEqual([
      { name: 'check_results_legacy', from: null, to: bound },
      ...days.map((d) => ({ name: partitionName(d), from: d, to: new Date(d.getTime() + DAY) })),
      { name: 'check_results_default', from: null, to: null },
    ]);
    for (const slot of slots) expect(await partitionOf(monitor, slot)).toEqual(['check_results_legacy']);
    // One index on the parent: the per-slot key.
    const { rows: indexes } = await q(`SELECT indexname FROM pg_indexes WHERE tablename = 'check_results'`);
    expect(indexes).toEqual([{ indexname: 'check_results_monitorId_region_slot_key' }]);
  });

  it('stores a slot once, whichever partition holds it, and a deleted monitor takes its rows from every one', async () => {
    // Already in the legacy partition: skipped, counted nowhere.
    expect(await insertResultsWithRollups(prisma, [row(monitor, slots[1]!)])).toEqual([]);
    // Tomorrow's partition: stored once.
    const tomorrow = new Date(bound.getTime() + 3_600_000);
    expect(await insertResultsWithRollups(prisma, [row(monitor, tomorrow), row(monitor, tomorrow)])).toHaveLength(1);
    expect(await insertResultsWithRollups(prisma, [row(monitor, tomorrow, 'down')])).toEqual([]);
    expect(await partitionOf(monitor, tomorrow)).toEqual([partitionName(bound)]);
    await expect(
      q(`INSERT INTO check_results ("monitorId", region, slot, outcome) VALUES ($1, 'local', $2, 'up')`, [
        monitor,
        tomorrow,
      ]),
    ).rejects.toThrow(/duplicate key/);

    await q(`DELETE FROM monitors WHERE id = $1`, [other]);
    expect((await allResults()).filter((r) => r.monitorId === other)).toEqual([]);
  });

  it('a day with no partition yet goes to the default partition, and moves to its own when housekeeping creates it', async () => {
    const later = new Date(bound.getTime() + 10 * DAY + 5 * 60_000);
    expect(await insertResultsWithRollups(prisma, [row(monitor, later)])).toHaveLength(1);
    expect(await partitionOf(monitor, later)).toEqual(['check_results_default']);

    const day = new Date(bound.getTime() + 10 * DAY);
    // Today and the days ahead already exist; only the later day is created, with its row moved into it.
    expect(await ensureResultPartitions(prisma, now)).toEqual([]);
    expect(await ensureResultPartitions(prisma, day, 0)).toEqual([partitionName(day)]);
    expect(await ensureResultPartitions(prisma, day, 0)).toEqual([]);
    expect(await partitionOf(monitor, later)).toEqual([partitionName(day)]);
    expect(await insertResultsWithRollups(prisma, [row(monitor, later)])).toEqual([]);
  });

  it('retention drops whole partitions past it, legacy included, and deletes expired rows of the default one', async () => {
    const farDay = new Date(bound.getTime() + 30 * DAY);
    expect(await insertResultsWithRollups(prisma, [row(monitor, farDay)])).toHaveLength(1);
    const retention = { checkResultsDays: 35, hourlyRollupsDays: 35, dailyRollupsDays: 400, auditEventsDays: 400 };

    // Cutoff at bound + 2 days: legacy and the first two days go; the third day and later stay.
    const report = await pruneExpired(prisma, retention, new Date(bound.getTime() + 37 * DAY));
    expect(report).toMatchObject({ resultPartitions: 3, checkResults: 0 });
    const names = (await listResultPartitions(prisma)).map((p) => p.name);
    expect(names).toEqual([
      partitionName(new Date(bound.getTime() + 2 * DAY)),
      partitionName(new Date(bound.getTime() + 10 * DAY)),
      'check_results_default',
    ]);
    expect((await allResults()).map((r) => r.slot)).toEqual([
      new Date(bound.getTime() + 10 * DAY + 5 * 60_000).toISOString(),
      farDay.toISOString(),
    ]);

    // The default partition's row (no partition for its day) goes row by row once its checkedAt is past retention.
    const again = await pruneExpired(prisma, retention, new Date(farDay.getTime() + 36 * DAY));
    expect(again).toMatchObject({ resultPartitions: 2, checkResults: 1 });
    expect(await allResults()).toEqual([]);
    expect((await listResultPartitions(prisma)).map((p) => p.name)).toEqual(['check_results_default']);
  });
});

describe('dropping a partition', () => {
  it('gives up after its short lock timeout while a long query holds the partition, and drops it next time', async () => {
    const day = new Date(nextMidnight(new Date()).getTime() + 100 * DAY);
    expect(await ensureResultPartitions(prisma, day, 0)).toEqual([partitionName(day)]);
    const reader = new pg.Client({ connectionString: scratchUrl });
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM "${partitionName(day)}"`);
      const cutoff = new Date(day.getTime() + DAY);
      const busy: string[] = [];
      const started = Date.now();
      expect(await dropExpiredResultPartitions(prisma, cutoff, (p) => busy.push(p))).toEqual([]);
      // A short lock timeout (result inserts queue behind the waiting DROP), and the partition is told as busy.
      expect(Date.now() - started).toBeLessThan(1500);
      expect(busy).toEqual([partitionName(day)]);
      await reader.query('COMMIT');
      expect(await dropExpiredResultPartitions(prisma, cutoff)).toEqual([partitionName(day)]);
    } finally {
      await reader.end();
    }
  }, 20_000);
});

describe('a database migrated without results (the test database)', () => {
  it('has no legacy partition: today and the days after it have daily partitions from the start', async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      const today = partitionName(new Date(Math.floor(Date.now() / DAY) * DAY));
      const { rows } = await client.query(
        `SELECT to_regclass('check_results_legacy') AS legacy, to_regclass($1) AS today, to_regclass('check_results_default') AS fallback`,
        [today],
      );
      expect(rows).toEqual([{ legacy: null, today, fallback: 'check_results_default' }]);
    } finally {
      await client.end();
    }
  });
});
