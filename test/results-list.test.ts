/**
 * GET /monitors/{id}/results reads the days of its page only (docs/decisions.md, "The results list reads only the days
 * of its page"): its order (slot, newest first, then region) and its total must hold for every filter and page while
 * results are raw, packed, or both, including a day that has packed and raw results at once and a packed day whose
 * arrays are not in slot order (a late result appended). Every answer is compared with the list computed here from the
 * rows written. On a scratch database of its own: packing drops partitions of check_results.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { packClosedResults, ensureResultPartitions } from '../apps/worker/src/result-partitions.js';
import { bearer, createMonitorNamed, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { scratchDatabaseBefore } from './support/scratch-db.js';

// Every migration applied: the name sorts after all of them.
const scratch = scratchDatabaseBefore('results_list', '99999999999999_after_all');
const q = scratch.query;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const now = new Date();
// "Today" is the UTC day of an hour ago, so that it always has results (at 00:05 the day just begun has none), and
// the days listed always hold more than two days of results.
const today = new Date(Math.floor((now.getTime() - HOUR) / DAY) * DAY);
const first = new Date(today.getTime() - 2 * DAY);

interface Result {
  region: string;
  slot: Date;
  checkedAt: Date;
  outcome: 'up' | 'degraded' | 'down' | 'missed';
}

let h: Harness;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let monitorId: string;
const written: Result[] = [];

/**
 * Every 20 minutes from 00:00 two days ago to now: eu on the slot, us on the same slot or (every third) 7 minutes
 * later, so that regions both tie and interleave. Some checked far later than their slot (their checkedAt after
 * later slots': a list by checkedAt would differ), some down, degraded or missed.
 */
function results(): Result[] {
  const rows: Result[] = [];
  for (let t = first.getTime(), i = 0; t <= now.getTime() - 10 * MINUTE; t += 20 * MINUTE, i++) {
    for (const region of ['eu', 'us']) {
      const slot = new Date(t + (region === 'us' && i % 3 === 0 ? 7 * MINUTE : 0));
      const late = i % 13 === 5 ? 3 * HOUR : i % 17 === 2 ? 26 * HOUR : 0;
      rows.push({
        region,
        slot,
        checkedAt: new Date(slot.getTime() + late + ((i * 37) % 900)),
        outcome: i % 29 === 7 ? 'missed' : i % 7 === 3 && region === 'us' ? 'down' : i % 5 === 1 ? 'degraded' : 'up',
      });
    }
  }
  return rows;
}

async function write(id: string, rows: Result[]): Promise<void> {
  await q(
    `INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, "statusCode", reason)
     SELECT $1, r, s, c, o::"CheckOutcome", CASE WHEN o = 'missed' THEN NULL ELSE 200 END,
       CASE WHEN o <> 'up' THEN o END
     FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[]) AS v(r, s, c, o)`,
    [id, rows.map((r) => r.region), rows.map((r) => r.slot), rows.map((r) => r.checkedAt), rows.map((r) => r.outcome)],
  );
}

beforeAll(async () => {
  h = makeHarness({ DATABASE_URL: scratch.url, CHECK_REGIONS: 'eu,us' });
  w = await makeWorkspace(h.prisma, { plan: 'solo' });
  const create = async (name: string) => (await createMonitorNamed(h, w, name)).id;
  monitorId = await create('listed');
  // The closed days in partitions of their own, as housekeeping makes them (packing drops them).
  await ensureResultPartitions(h.prisma, first, 5);
  written.push(...results());
  await write(monitorId, written);
  // Another monitor's results, on the same slots: never listed.
  await write(await create('other'), results().slice(0, 100));
}, 60_000);
afterAll(async () => {
  await h?.close();
});

interface Query {
  region?: string;
  status?: Result['outcome'][];
  since?: Date;
  page?: number;
  perPage?: number;
}

/** The list as documented: matching results, newest slot first, then by region; the page of it, and the total. */
function expected(query: Query): { data: Array<Record<string, string>>; total: number } {
  const page = query.page ?? 1;
  const perPage = query.perPage ?? 25;
  const matching = written
    .filter(
      (r) =>
        (!query.region || r.region === query.region) &&
        (!query.status || query.status.includes(r.outcome)) &&
        (!query.since || r.checkedAt >= query.since),
    )
    .sort((a, b) => b.slot.getTime() - a.slot.getTime() || a.region.localeCompare(b.region));
  return {
    total: matching.length,
    data: matching.slice((page - 1) * perPage, page * perPage).map((r) => ({
      slot: r.slot.toISOString(),
      region: r.region,
      checkedAt: r.checkedAt.toISOString(),
      status: r.outcome,
    })),
  };
}

async function list(query: Query): Promise<{ data: Array<Record<string, string>>; total: number }> {
  const params = new URLSearchParams();
  if (query.region) params.set('region', query.region);
  if (query.status) params.set('status', query.status.join(','));
  if (query.since) params.set('since', query.since.toISOString());
  if (query.page) params.set('page', String(query.page));
  if (query.perPage) params.set('perPage', String(query.perPage));
  const res = await request(h.app).get(`/api/v1/monitors/${monitorId}/results?${params}`).set(bearer(w.tokens.viewer));
  expect(res.status).toBe(200);
  const body = res.body as {
    data: Array<Record<string, string>>;
    pagination: { page: number; perPage: number; total: number; totalPages: number };
  };
  expect(body.pagination.totalPages).toBe(Math.ceil(body.pagination.total / (query.perPage ?? 25)));
  return {
    total: body.pagination.total,
    data: body.data.map(({ slot, region, checkedAt, status }) => ({ slot, region, checkedAt, status }) as never),
  };
}

/** Every page of each filter (perPage 50: pages end inside days and across their boundaries), and beyond the end. */
async function expectEveryListAsWritten(): Promise<void> {
  const filters: Query[] = [
    {},
    { region: 'us' },
    { status: ['down', 'missed'] },
    { status: ['degraded'], region: 'eu' },
    // Checked at or after: two days back (late checks of the first day), yesterday's midnight, an hour ago.
    { since: new Date(first.getTime() + 30 * MINUTE) },
    { since: new Date(today.getTime() - DAY) },
    { since: new Date(now.getTime() - HOUR), status: ['up', 'degraded'] },
    { since: new Date(today.getTime()), region: 'eu' },
    { region: 'nowhere' },
  ];
  for (const filter of filters) {
    const { total } = expected(filter);
    for (let page = 1; page <= Math.ceil(total / 50) + 1; page++) {
      const query = { ...filter, page, perPage: 50 };
      expect({ query, ...(await list(query)) }).toEqual({ query, ...expected(query) });
    }
  }
  // Default page size, one that splits a slot's two regions, and a page far past the end.
  for (const query of [{}, { perPage: 7, page: 23 }, { page: 9_007_199_254_740_991, perPage: 250 }] as Query[])
    expect({ query, ...(await list(query)) }).toEqual({ query, ...expected(query) });
}

describe('GET /monitors/{id}/results across raw and packed days', () => {
  it('lists newest slot first with the right totals while every day is raw', async () => {
    expect(written.length).toBeGreaterThan(2 * 72 * 2);
    await expectEveryListAsWritten();
  });

  it('lists the same with the closed days packed and today raw', async () => {
    const report = await packClosedResults(h.prisma, today);
    expect(report.partitions).toHaveLength(2);
    expect(
      (await q(`SELECT count(*)::int AS n FROM check_results WHERE "monitorId" = $1`, [monitorId])).rows[0].n,
    ).toBeGreaterThan(0);
    await expectEveryListAsWritten();
  });

  it('lists a late result of a packed day in its place, raw and once appended to the day', async () => {
    // Slots that day has no result for: one near its start and one at its end (each lands in the default partition,
    // since the day's partition is gone), so that once appended the day's arrays are out of slot order.
    const late: Result[] = [
      { region: 'us', slot: new Date(first.getTime() + DAY + 3 * MINUTE), checkedAt: now, outcome: 'down' },
      { region: 'eu', slot: new Date(first.getTime() + 2 * DAY - 1), checkedAt: now, outcome: 'up' },
    ];
    await write(monitorId, late);
    written.push(...late);
    await expectEveryListAsWritten();

    expect((await packClosedResults(h.prisma, today)).results).toBe(2);
    const { rows } = await q(
      `SELECT "slotOffsetMs" FROM check_results_packed WHERE "monitorId" = $1 AND region = 'us' AND day = $2`,
      [monitorId, new Date(first.getTime() + DAY)],
    );
    const offsets = rows[0].slotOffsetMs as number[];
    expect(offsets.at(-1)).toBe(3 * MINUTE);
    expect(offsets).not.toEqual([...offsets].sort((a, b) => a - b));
    await expectEveryListAsWritten();
  });

  it('lists the same with every day packed', async () => {
    // The day after "today" may have begun (an hour ago at most): pack it too.
    await packClosedResults(h.prisma, new Date(today.getTime() + 2 * DAY));
    expect((await q(`SELECT count(*)::int AS n FROM check_results`)).rows[0].n).toBe(0);
    await expectEveryListAsWritten();
  });
});
