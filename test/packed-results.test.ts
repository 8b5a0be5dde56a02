/**
 * Packed results (docs/adr/0017-packed-results.md), on a scratch database of its own (packing drops partitions of
 * check_results, which the other suites' results live in): every read of results answers the same before and after
 * packing, packing again changes nothing (also from two workers at once), a result that arrives for a packed day is
 * stored once, and retention deletes packed days.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { insertResultsWithRollups, rebuildRollups, type PrismaClient, type ResultRow } from '@statusvane/shared';
import type { Express } from 'express';
import { createApp } from '../apps/api/src/app.js';
import { storeCheckResultAlone } from '../apps/worker/src/checks/store-result.js';
import { pruneExpired } from '../apps/worker/src/housekeeping.js';
import { listResultPartitions, packClosedResults, partitionName } from '../apps/worker/src/result-partitions.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, createMonitorNamed, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { scratchDatabaseBefore } from './support/scratch-db.js';

// Every migration applied: the name sorts after all of them.
const scratch = scratchDatabaseBefore('packed', '99999999999999_after_all');
const q = scratch.query;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = new Date();
const today = new Date(Math.floor(now.getTime() / DAY) * DAY);
const yesterday = new Date(today.getTime() - DAY);
/** A horizon that makes today and yesterday closed days. */
const packAll = new Date(today.getTime() + DAY);

let h: Harness;
/** The reads' app: its clock stands at `now`, so the hour's response times cover the same minutes in every test. */
let reader: Express;
let prisma: PrismaClient;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let monitorId: string;
let other: string;

const CERT = {
  subject: 'CN=example.test',
  issuer: 'CN=Test CA',
  validFrom: '2026-01-01T00:00:00.000Z',
  validTo: '2031-01-01T00:00:00.000Z',
  fingerprint256: 'AA:BB',
};

/** Results every 10 minutes from 00:00 yesterday to now, in two regions, with every kind of column filled somewhere. */
function results(id: string): ResultRow[] {
  const rows: ResultRow[] = [];
  for (let t = yesterday.getTime(), i = 0; t <= now.getTime() - 60_000; t += 10 * 60_000, i++) {
    for (const region of ['eu', 'us']) {
      const slot = new Date(t);
      const down = i % 7 === 3 && region === 'us';
      const degraded = i % 5 === 1;
      rows.push({
        monitorId: id,
        region,
        slot,
        // Taken a little after the slot; every 11th much later (a late check: its checkedAt in the next hour).
        checkedAt: new Date(t + (i % 11 === 0 ? 75 * 60_000 : (i * 37) % 900)),
        outcome: down ? 'down' : degraded ? 'degraded' : 'up',
        responseMs: down ? null : 20 + ((i * 13) % 400),
        statusCode: down ? (i % 2 ? 503 : null) : 200,
        reason: down ? 'status_code: 503' : degraded ? 'slow' : null,
        dnsMs: i % 3 ? 1 + (i % 4) : null,
        connectMs: down ? null : 2,
        tlsMs: region === 'eu' ? 5 + (i % 3) : null,
        waitingMs: down ? null : 10 + (i % 50),
        certificate: region === 'eu' && i % 4 === 0 ? CERT : null,
        dnsAnswers: i % 9 === 0 ? ['192.0.2.1', `192.0.2.${i % 200}`] : null,
        address: i % 6 === 0 ? null : region === 'eu' ? '2001:db8::1' : '127.0.0.1',
      });
    }
  }
  return rows;
}

beforeAll(async () => {
  h = makeHarness({ DATABASE_URL: scratch.url, CHECK_REGIONS: 'eu,us' });
  prisma = h.prisma;
  reader = createApp({ ...h.deps, clock: () => now });
  w = await makeWorkspace(prisma, { plan: 'solo' });
  const create = async (name: string) => (await createMonitorNamed(h, w, name)).id;
  monitorId = await create('packed');
  other = await create('other');
  await insertResultsWithRollups(prisma, results(monitorId));
  await insertResultsWithRollups(prisma, results(other).slice(0, 40));
  // Missed slots (no data), as the over-capacity path writes them: late, no rollup.
  await q(
    `INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, reason)
     VALUES ($1, 'eu', $2, $3, 'missed', 'checks_behind: not run'), ($1, 'us', $2, $3, 'missed', 'checks_behind: not run')`,
    [monitorId, new Date(yesterday.getTime() + 5 * 60_000), new Date(yesterday.getTime() + 25 * 60_000)],
  );
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const get = (path: string) => request(reader).get(`/api/v1/monitors/${monitorId}${path}`).set(bearer(w.tokens.viewer));

/** Every read of results: the list with its filters and pages, response times in every period and region. */
async function readEverything() {
  const out: Record<string, unknown> = {};
  const paths = [
    '/results?perPage=100',
    '/results?perPage=7&page=1',
    '/results?perPage=7&page=2',
    '/results?perPage=7&page=40',
    '/results?perPage=100&page=3',
    '/results?region=eu&perPage=50&page=2',
    '/results?status=down,missed&perPage=100',
    '/results?status=degraded&region=us&perPage=100',
    `/results?since=${encodeURIComponent(new Date(today.getTime() - 3 * HOUR).toISOString())}&perPage=100`,
    `/results?since=${encodeURIComponent(new Date(now.getTime() - 2 * HOUR).toISOString())}&status=up&perPage=5&page=2`,
    // Pages across the midnight between the two days, per region and checked since yesterday's midday.
    `/results?region=us&perPage=30&page=${Math.max(1, Math.ceil((now.getTime() - today.getTime()) / (10 * 60_000) / 30))}`,
    `/results?since=${encodeURIComponent(new Date(yesterday.getTime() + 12 * HOUR).toISOString())}&region=eu&perPage=40&page=2`,
    '/results?page=1000',
  ];
  for (const period of ['hour', 'day', 'week', 'month']) {
    for (const region of ['', '&region=eu', '&region=us', '&region=all'])
      paths.push(`/response-times?period=${period}${region}`);
  }
  for (const path of paths) {
    const res = await get(path);
    expect(res.status).toBe(200);
    out[path] = res.body;
  }
  return out;
}

/** What the view shows, in key order: every column of every result. */
const viewRows = async () =>
  (
    await q(`SELECT "monitorId", region, slot, "checkedAt", outcome::text, "responseMs", "dnsMs", "connectMs", "tlsMs",
      "waitingMs", "statusCode", reason, certificate, "dnsAnswers", host(address) AS address
      FROM check_results_all ORDER BY "monitorId", region, slot`)
  ).rows;

const rollups = async () => ({
  hourly: (await q(`SELECT * FROM check_rollups_hourly ORDER BY "monitorId", region, hour`)).rows,
  daily: (await q(`SELECT * FROM check_rollups_daily ORDER BY "monitorId", region, day`)).rows,
});

describe('packing closed days of results', () => {
  let before: Record<string, unknown>;
  let rowsBefore: unknown[];

  it('answers every read the same before and after packing', async () => {
    const raw = (await q(`SELECT count(*)::int AS n FROM check_results`)).rows[0].n as number;
    expect(raw).toBeGreaterThan(300);
    before = await readEverything();
    rowsBefore = await viewRows();
    expect(rowsBefore).toHaveLength(raw);
    // The answers hold results of both days (not only what is left raw after packing).
    const all = before['/results?perPage=100&page=3'] as { pagination: { total: number } };
    expect(all.pagination.total).toBe(raw - 40);
    const rollupsBefore = await rollups();

    // In chunks of a few rows: the partition is packed by ranges of monitor ids, one statement each.
    const report = await packClosedResults(prisma, packAll, { chunkRows: 20 });
    // Today's partition (the migration made it); yesterday's results were in the default partition (it had none).
    expect(report.partitions).toEqual([partitionName(today)]);
    expect(report.results).toBe(raw);
    expect((await q(`SELECT count(*)::int AS n FROM check_results`)).rows[0].n).toBe(0);
    const packed = (await q(`SELECT count(*)::int AS rows, sum(count)::int AS results FROM check_results_packed`))
      .rows[0];
    expect(packed.results).toBe(raw);
    expect(packed.rows).toBeLessThan(raw / 4);

    expect(await viewRows()).toEqual(rowsBefore);
    expect(await readEverything()).toEqual(before);
    // Rollups are not touched, and rebuilding them from packed results gives the same.
    expect(await rollups()).toEqual(rollupsBefore);
    await rebuildRollups(prisma, monitorId);
    await rebuildRollups(prisma, other);
    expect(await rollups()).toEqual(rollupsBefore);
  });

  it('is idempotent: packing again, from two workers at once, changes nothing', async () => {
    const packedBefore = (await q(`SELECT * FROM check_results_packed ORDER BY "monitorId", region, day`)).rows;
    const reports = await Promise.all([packClosedResults(prisma, packAll), packClosedResults(prisma, packAll)]);
    expect(reports).toEqual([
      { partitions: [], results: 0 },
      { partitions: [], results: 0 },
    ]);
    expect((await q(`SELECT * FROM check_results_packed ORDER BY "monitorId", region, day`)).rows).toEqual(
      packedBefore,
    );
    expect(await readEverything()).toEqual(before);
  });

  it('stores a result that arrives for a packed day once: a new slot is added, a stored one skipped', async () => {
    const rollupsBefore = await rollups();
    const [first] = results(monitorId);
    // Already packed: not stored, counted nowhere (as a job that ran twice).
    expect(await insertResultsWithRollups(prisma, [{ ...first!, outcome: 'down' }])).toEqual([]);
    expect(await rollups()).toEqual(rollupsBefore);
    expect(await viewRows()).toEqual(rowsBefore);

    // A slot the day has no result for: stored (in the default partition: the day's is gone), then packed into its
    // day's row by the next round.
    const late: ResultRow = {
      ...first!,
      slot: new Date(yesterday.getTime() + 5 * 60_000 + 1),
      checkedAt: new Date(now.getTime() - 1000),
      outcome: 'down',
      certificate: CERT,
      dnsAnswers: null,
      address: null,
      tlsMs: null,
    };
    expect(await insertResultsWithRollups(prisma, [late])).toHaveLength(1);
    expect(await insertResultsWithRollups(prisma, [late])).toEqual([]);
    const withLate = await viewRows();
    expect(withLate).toHaveLength(rowsBefore.length + 1);
    const listed = await readEverything();

    expect(await packClosedResults(prisma, packAll)).toEqual({ partitions: [], results: 1 });
    expect((await q(`SELECT count(*)::int AS n FROM check_results`)).rows[0].n).toBe(0);
    expect(await viewRows()).toEqual(withLate);
    expect(await readEverything()).toEqual(listed);
    // Still stored once after packing, and counted once: the rollups as the write path kept them are what
    // rebuilding them from the packed results gives.
    expect(await insertResultsWithRollups(prisma, [late])).toEqual([]);
    const kept = await rollups();
    expect(kept).not.toEqual(rollupsBefore);
    await rebuildRollups(prisma, monitorId);
    expect(await rollups()).toEqual(kept);
  });

  it('gives an incident the last result of each region as evidence, packed or not', async () => {
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send(
        makeMonitorInput({
          name: 'evidence',
          regions: ['eu', 'us'],
          quorum: 1,
          openThreshold: 1,
          resolveThreshold: 1,
          confirmAfterSeconds: 0,
        }),
      );
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    const yesterdays = results(id).filter((r) => r.slot < today);
    await insertResultsWithRollups(prisma, yesterdays);
    expect((await packClosedResults(prisma, today)).results).toBe(yesterdays.length);
    // The us region's latest by checkedAt (not by slot: some were checked late).
    const last = yesterdays.filter((r) => r.region === 'us').sort((a, b) => +b.checkedAt - +a.checkedAt)[0]!;

    const monitor = { ...(await prisma.monitor.findUniqueOrThrow({ where: { id } })), regions: ['eu', 'us'] };
    const stored = await storeCheckResultAlone(prisma, {
      monitor,
      region: 'eu',
      slot: new Date(now.getTime() - 1000),
      checkedAt: now,
      result: {
        outcome: 'down',
        reason: 'status_code',
        responseMs: 12,
        statusCode: 503,
        phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 10 },
        address: '127.0.0.1',
      },
    });
    expect(stored.opened).not.toBeNull();
    const incident = await prisma.incident.findUniqueOrThrow({ where: { id: stored.opened! } });
    expect(incident.evidence).toEqual([
      {
        region: 'eu',
        failing: true,
        lastResult: {
          checkedAt: now.toISOString(),
          status: 'down',
          reason: 'status_code',
          statusCode: 503,
          totalMs: 12,
          address: '127.0.0.1',
        },
      },
      {
        region: 'us',
        failing: expect.any(Boolean),
        lastResult: {
          checkedAt: last.checkedAt.toISOString(),
          status: last.outcome,
          reason: last.reason,
          statusCode: last.statusCode,
          totalMs: last.responseMs,
          address: last.address,
        },
      },
    ]);
  });

  it('deletes a monitor’s packed results with it', async () => {
    const count = async () =>
      (await q(`SELECT count(*)::int AS n FROM check_results_packed WHERE "monitorId" = $1`, [other])).rows[0].n;
    expect(await count()).toBeGreaterThan(0);
    await prisma.monitor.delete({ where: { id: other } });
    expect(await count()).toBe(0);
  });

  it('retention deletes packed days once all of the day is past it', async () => {
    const days = async () =>
      (
        await q(`SELECT day, region FROM check_results_packed WHERE "monitorId" = $1 ORDER BY day, region`, [monitorId])
      ).rows.map((r) => `${(r.day as Date).toISOString().slice(0, 10)} ${r.region as string}`);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    expect(await days()).toEqual([
      `${day(yesterday)} eu`,
      `${day(yesterday)} us`,
      `${day(today)} eu`,
      `${day(today)} us`,
    ]);
    const retention = { checkResultsDays: 1, hourlyRollupsDays: 400, dailyRollupsDays: 400, auditEventsDays: 400 };
    // A millisecond before all of yesterday is past the retention of 1 day: kept.
    const at = new Date(today.getTime() + DAY);
    expect((await pruneExpired(prisma, retention, new Date(at.getTime() - 1))).packedResultDays).toBe(0);
    const report = await pruneExpired(prisma, retention, at, { batchSize: 1 });
    // Yesterday's of the two monitors left (the evidence monitor's too), in batches of 1.
    expect(report.packedResultDays).toBe(4);
    expect(await days()).toEqual([`${day(today)} eu`, `${day(today)} us`]);
    // Nothing raw was left to drop.
    expect(report.resultPartitions).toBe(0);
    expect((await listResultPartitions(prisma)).map((p) => p.name)).toContain('check_results_default');
  });
});
