// The latency histograms of the rollups (docs/adr/0019-latency-histograms.md): PostgreSQL's buckets are the ones the
// API reads percentiles from, and the worker's one statement (insertResultsWithRollups, several results per rollup row
// and a second group meeting the stored rows) keeps exactly what rebuildRollups computes from the results.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  hotTransaction,
  insertResultsWithRollups,
  LATENCY_BUCKET_BOUNDS,
  latencyBucket,
  rebuildRollups,
} from '@statusvane/shared';
import type { ResultRow } from '@statusvane/shared';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

/** A histogram as PostgreSQL prints it: `[first:last]={counts}`, NULL where a bucket between has none. */
function histogramText(values: number[]): string {
  const ks = values.map(latencyBucket);
  const first = Math.min(...ks);
  const last = Math.max(...ks);
  const counts = Array.from({ length: last - first + 1 }, (_, i) => ks.filter((k) => k === first + i).length);
  return `[${first}:${last}]={${counts.map((c) => (c === 0 ? 'NULL' : c)).join(',')}}`;
}

let h: Harness;
beforeAll(() => {
  h = makeHarness({ CHECK_REGIONS: 'local,eu-west' });
});
afterAll(() => h.close());

describe('latency buckets in PostgreSQL', () => {
  it('are the API’s: latency_bucket(ms) = latencyBucket(ms) for every ms up to 70 s', async () => {
    const [row] = await h.prisma.$queryRaw<[{ buckets: number[] }]>`
      SELECT array_agg(latency_bucket(ms) ORDER BY ms) AS buckets FROM generate_series(0, 70000) AS ms`;
    const expected = Array.from({ length: 70_001 }, (_, ms) => latencyBucket(ms));
    expect(row.buckets.length).toBe(expected.length);
    expect(row.buckets.findIndex((k, ms) => k !== expected[ms])).toBe(-1);
    expect(LATENCY_BUCKET_BOUNDS).toHaveLength(60);
  });

  it('histograms span only the buckets used, and add up across rows', async () => {
    const [row] = await h.prisma.$queryRaw<[{ one: string; merged: string; empty: string | null }]>`
      SELECT latency_hist(ms)::text AS one,
        latency_hist_merge(latency_hist(ms), '[2:3]={4,NULL}'::int[])::text AS merged,
        (SELECT latency_hist(x) FROM (VALUES (NULL::int)) AS v(x))::text AS empty
      FROM (VALUES (5), (5), (9), (NULL)) AS v(ms)`;
    // 5 ms is bucket 5, 9 ms bucket 8.
    expect(row).toEqual({ one: '[5:8]={2,NULL,NULL,1}', merged: '[2:8]={4,NULL,NULL,2,NULL,NULL,1}', empty: null });
  });
});

describe('rollups written by the worker’s statement', () => {
  it('equal the rollups rebuilt from the same results: counts, sums and histograms, hourly and daily', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const m = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body
      .data as { id: string };
    const row = (iso: string, over: Partial<ResultRow> = {}): ResultRow => ({
      monitorId: m.id,
      region: 'local',
      slot: new Date(iso),
      checkedAt: new Date(iso),
      outcome: 'up',
      responseMs: 120,
      statusCode: 200,
      reason: null,
      dnsMs: 3,
      connectMs: 5,
      tlsMs: null,
      waitingMs: 80,
      certificate: null,
      dnsAnswers: null,
      address: '127.0.0.1',
      ...over,
    });
    // Several results of one hour in one group (grouped before the insert), then groups meeting the stored rows (ON
    // CONFLICT: counters added), a failure without a response time, another region, another day, and a duplicate
    // (stored once, counted once).
    const groups: ResultRow[][] = [
      [
        row('2026-03-01T10:00:00Z', { responseMs: 40 }),
        row('2026-03-01T10:01:00Z', { responseMs: 41 }),
        row('2026-03-01T10:02:00Z', { responseMs: 900 }),
      ],
      [
        row('2026-03-01T10:03:00Z', { responseMs: 7 }),
        row('2026-03-01T10:04:00Z', {
          outcome: 'down',
          responseMs: null,
          dnsMs: null,
          connectMs: null,
          waitingMs: null,
        }),
      ],
      [row('2026-03-01T11:00:00Z', { responseMs: 30_000 }), row('2026-03-01T10:05:00Z', { region: 'eu-west' })],
      [row('2026-03-02T00:00:00Z', { responseMs: 0, outcome: 'degraded' }), row('2026-03-01T10:00:00Z')],
    ];
    for (const g of groups) await hotTransaction(h.prisma, (tx) => insertResultsWithRollups(tx, g));

    const read = () =>
      Promise.all([
        h.prisma.$queryRaw`
          SELECT region, hour, total, "downCount", "responseSum"::text, "responseCount", "dnsSum"::text, "dnsCount",
            "connectSum"::text, "connectCount", "tlsSum"::text, "tlsCount", "waitingSum"::text, "waitingCount",
            "latencyHist"::text
          FROM check_rollups_hourly WHERE "monitorId" = ${m.id}::uuid ORDER BY region, hour`,
        h.prisma.$queryRaw`
          SELECT region, day, total, "downCount", "degradedCount", "responseSum"::text, "responseCount", "dnsSum"::text,
            "dnsCount", "connectSum"::text, "connectCount", "tlsSum"::text, "tlsCount", "waitingSum"::text,
            "waitingCount", "latencyHist"::text
          FROM check_rollups_daily WHERE "monitorId" = ${m.id}::uuid ORDER BY region, day`,
      ]);
    const written = await read();
    await rebuildRollups(h.prisma, m.id);
    const rebuilt = await read();
    expect(written).toEqual(rebuilt);
    // And what they hold: the 10:00 hour of local has 40, 41, 900 and 7 ms, and a failure.
    const [hourly, daily] = written as [Array<Record<string, unknown>>, Array<Record<string, unknown>>];
    expect(hourly.find((r) => r.region === 'local')).toMatchObject({
      region: 'local',
      total: 5,
      downCount: 1,
      responseSum: '988',
      responseCount: 4,
      latencyHist: histogramText([40, 41, 900, 7]),
    });
    expect(hourly.map((r) => r.latencyHist)).toContain(histogramText([30_000]));
    expect(daily.map((r) => [r.region, r.total, r.degradedCount, r.responseCount])).toEqual([
      ['eu-west', 1, 0, 1],
      ['local', 6, 0, 5],
      ['local', 1, 1, 1],
    ]);
    expect(daily.at(-1)!.latencyHist).toBe('[0:0]={1}');
  });
});
