import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bucketEstimate, latencyBucket, rebuildRollups, responseTimesQuerySchema } from '@statusvane/shared';
import { getResponseTimes } from '../apps/api/src/services/monitors/get-response-times.js';
import type { RequestContext } from '../apps/api/src/services/auth/context.js';
import { authenticate } from '../apps/api/src/services/auth/authenticate.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

/** The service as its route calls it: the query parsed by the route's schema, `now` in the context. */
const times = (ctx: RequestContext, id: string, query: Record<string, string>, now: Date) =>
  getResponseTimes(h.deps, { ctx: { ...ctx, now }, input: { id, query: responseTimesQuerySchema.parse(query) } });

/** What a percentile of `ms` is reported as: the middle of its latency bucket (docs/adr/0019-latency-histograms.md). */
const est = (ms: number) => bucketEstimate(latencyBucket(ms));

let h: Harness;
beforeAll(() => {
  // The regions the results below come from: a region outside CHECK_REGIONS is refused.
  h = makeHarness({ CHECK_REGIONS: 'local,eu-west' });
});
afterAll(async () => {
  await h.close();
});

async function setup(plan: 'free' | 'solo') {
  const { tokens } = await makeWorkspace(h.prisma, { plan });
  const m = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body
    .data;
  const ctx = await authenticate(h.deps, { authorization: `Bearer ${tokens.viewer}`, workspaceHeader: undefined });
  return { tokens, m, ctx };
}

function result(monitorId: string, at: Date, over: Record<string, unknown> = {}) {
  return {
    monitorId,
    region: 'local',
    slot: at,
    checkedAt: at,
    outcome: 'up' as const,
    responseMs: 100,
    dnsMs: 10,
    connectMs: 20,
    tlsMs: 30,
    waitingMs: 40,
    ...over,
  };
}

describe('GET /monitors/{id}/response-times', () => {
  it('returns every bucket of the day with averages, down counts and phases (solo plan)', async () => {
    const { m, ctx } = await setup('solo');
    const now = new Date('2026-05-01T10:30:00Z');
    await h.prisma.checkResult.createMany({
      data: [
        result(m.id, new Date('2026-05-01T10:05:00Z'), { responseMs: 100 }),
        result(m.id, new Date('2026-05-01T10:06:00Z'), { responseMs: 300, dnsMs: 30 }),
        result(m.id, new Date('2026-05-01T10:07:00Z'), {
          outcome: 'down',
          responseMs: null,
          dnsMs: null,
          connectMs: null,
          tlsMs: null,
          waitingMs: null,
        }),
        result(m.id, new Date('2026-05-01T10:08:00Z'), { region: 'eu-west', responseMs: 900 }),
        result(m.id, new Date('2026-04-30T11:00:00Z'), { responseMs: 50 }),
        // Outside the window: 24 buckets end with the 10:00 bucket, so 2026-04-30T10:59 is out.
        result(m.id, new Date('2026-04-30T10:59:00Z'), { responseMs: 5000 }),
      ],
    });
    await rebuildRollups(h.prisma, m.id);
    const all = await times(ctx, m.id, {}, now);
    expect(all.period).toBe('day');
    expect(all.region).toBe('all');
    expect(all.buckets).toHaveLength(24);
    expect(all.buckets[0]).toEqual({
      bucketStart: '2026-04-30T11:00:00.000Z',
      avgMs: 50,
      p50Ms: est(50),
      p95Ms: est(50),
      downCount: 0,
      total: 1,
      phases: { dnsMs: 10, connectMs: 20, tlsMs: 30, waitingMs: 40 },
    });
    expect(all.buckets[1]).toEqual({
      bucketStart: '2026-04-30T12:00:00.000Z',
      avgMs: null,
      p50Ms: null,
      p95Ms: null,
      downCount: 0,
      total: 0,
      phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
    });
    expect(all.buckets[23]).toEqual({
      bucketStart: '2026-05-01T10:00:00.000Z',
      avgMs: 433,
      // 100, 300 and 900 ms answered (the failure had no response time): the median is 300, the 95th 900.
      p50Ms: est(300),
      p95Ms: est(900),
      downCount: 1,
      total: 4,
      phases: { dnsMs: 17, connectMs: 20, tlsMs: 30, waitingMs: 40 },
    });
    const local = await times(ctx, m.id, { region: 'local' }, now);
    expect(local.region).toBe('local');
    expect(local.buckets[23]).toMatchObject({ avgMs: 200, p50Ms: est(100), p95Ms: est(300), downCount: 1, total: 3 });
  });

  it('week: 28 buckets of 6 h (00, 06, 12, 18 UTC) summed from the hourly rollups, averages weighted by count', async () => {
    const { m, ctx } = await setup('solo');
    const now = new Date('2026-05-01T10:30:00Z');
    const at = (iso: string, over: Record<string, unknown> = {}) => result(m.id, new Date(iso), over);
    await h.prisma.checkResult.createMany({
      data: [
        // Before the window (it starts 27 buckets before 2026-05-01T06:00, at 2026-04-24T12:00): left out.
        at('2026-04-24T11:59:59Z', { responseMs: 9999 }),
        at('2026-04-24T12:00:00Z', { responseMs: 50 }),
        // One 6-hour bucket from two hours: 3 x 100 ms at 18:xx and 1 x 500 ms at 23:xx. Weighted: 200 (not 300).
        at('2026-04-30T18:00:00Z', { responseMs: 100, dnsMs: 10 }),
        at('2026-04-30T18:20:00Z', { responseMs: 100, dnsMs: 10 }),
        at('2026-04-30T18:40:00Z', { responseMs: 100, dnsMs: 10 }),
        at('2026-04-30T23:59:00Z', { responseMs: 500, dnsMs: 50 }),
        at('2026-05-01T05:59:00Z', { responseMs: 1000 }),
        // The current bucket (06:00-12:00), with a failure (no response time) and another region.
        at('2026-05-01T06:00:00Z', { responseMs: 100 }),
        at('2026-05-01T10:15:00Z', {
          outcome: 'down',
          responseMs: null,
          dnsMs: null,
          connectMs: null,
          tlsMs: null,
          waitingMs: null,
        }),
        at('2026-05-01T10:29:00Z', { responseMs: 300, region: 'eu-west' }),
      ],
    });
    await rebuildRollups(h.prisma, m.id);
    const week = await times(ctx, m.id, { period: 'week' }, now);
    expect(week.buckets).toHaveLength(28);
    const starts = week.buckets.map((b) => b.bucketStart);
    expect(starts[0]).toBe('2026-04-24T12:00:00.000Z');
    expect(starts[27]).toBe('2026-05-01T06:00:00.000Z');
    for (let i = 1; i < 28; i++) expect(Date.parse(starts[i]!) - Date.parse(starts[i - 1]!)).toBe(6 * 3_600_000);
    const byStart = new Map(week.buckets.map((b) => [b.bucketStart, b]));
    expect(byStart.get('2026-04-24T12:00:00.000Z')).toMatchObject({ avgMs: 50, total: 1, downCount: 0 });
    expect(byStart.get('2026-04-30T18:00:00.000Z')).toEqual({
      bucketStart: '2026-04-30T18:00:00.000Z',
      avgMs: 200,
      p50Ms: est(100),
      p95Ms: est(500),
      downCount: 0,
      total: 4,
      phases: { dnsMs: 20, connectMs: 20, tlsMs: 30, waitingMs: 40 },
    });
    expect(byStart.get('2026-05-01T00:00:00.000Z')).toMatchObject({ avgMs: 1000, total: 1 });
    expect(byStart.get('2026-05-01T06:00:00.000Z')).toMatchObject({ avgMs: 200, total: 3, downCount: 1 });
    // Everything else is an empty bucket; the result before the window counts nowhere.
    expect(week.buckets.reduce((n, b) => n + b.total, 0)).toBe(9);
    expect(week.buckets.filter((b) => b.total === 0).every((b) => b.avgMs === null && b.downCount === 0)).toBe(true);
    const local = await times(ctx, m.id, { period: 'week', region: 'local' }, now);
    expect(local.buckets.at(-1)).toMatchObject({ avgMs: 100, total: 2, downCount: 1 });
  });

  it('month: 30 daily buckets (UTC days) from the daily rollups, averages weighted by count', async () => {
    const { m, ctx } = await setup('solo');
    const now = new Date('2026-05-01T10:30:00Z');
    const at = (iso: string, over: Record<string, unknown> = {}) => result(m.id, new Date(iso), over);
    await h.prisma.checkResult.createMany({
      data: [
        at('2026-04-01T23:59:59Z', { responseMs: 9999 }), // the day before the window
        at('2026-04-02T00:00:00Z', { responseMs: 40 }),
        // One day from three hours: 3 x 100 ms, 1 x 500 ms and a failure. Weighted: 200 over 4 responses.
        at('2026-04-15T00:00:00Z', { responseMs: 100, waitingMs: 10 }),
        at('2026-04-15T10:00:00Z', { responseMs: 100, waitingMs: 10 }),
        at('2026-04-15T10:30:00Z', { responseMs: 100, waitingMs: 10 }),
        at('2026-04-15T23:59:59Z', { responseMs: 500, waitingMs: 50 }),
        at('2026-04-15T12:00:00Z', {
          outcome: 'down',
          responseMs: null,
          dnsMs: null,
          connectMs: null,
          tlsMs: null,
          waitingMs: null,
        }),
        at('2026-05-01T00:00:00Z', { responseMs: 300 }),
        at('2026-05-01T10:00:00Z', { responseMs: 100 }),
      ],
    });
    await rebuildRollups(h.prisma, m.id);
    const month = await times(ctx, m.id, { period: 'month' }, now);
    expect(month.buckets).toHaveLength(30);
    expect(month.buckets[0]!.bucketStart).toBe('2026-04-02T00:00:00.000Z');
    expect(month.buckets[29]!.bucketStart).toBe('2026-05-01T00:00:00.000Z');
    for (let i = 1; i < 30; i++)
      expect(Date.parse(month.buckets[i]!.bucketStart) - Date.parse(month.buckets[i - 1]!.bucketStart)).toBe(
        86_400_000,
      );
    expect(month.buckets[0]).toMatchObject({ avgMs: 40, total: 1, downCount: 0 });
    expect(month.buckets[13]).toEqual({
      bucketStart: '2026-04-15T00:00:00.000Z',
      avgMs: 200,
      p50Ms: est(100),
      p95Ms: est(500),
      downCount: 1,
      total: 5,
      phases: { dnsMs: 10, connectMs: 20, tlsMs: 30, waitingMs: 20 },
    });
    expect(month.buckets[29]).toMatchObject({ avgMs: 200, total: 2, downCount: 0 });
    expect(month.buckets.reduce((n, b) => n + b.total, 0)).toBe(8);
  });

  it('quarter: 90 daily buckets read from the daily rollups alone, p50 and p95 per region and over all of them', async () => {
    const { m, ctx } = await setup('solo');
    const now = new Date('2026-05-01T10:30:00Z');
    const at = (iso: string, over: Record<string, unknown> = {}) => result(m.id, new Date(iso), over);
    // 2026-02-01 opens the window (89 days before 2026-05-01); the day before it is out.
    const early = [20, 20, 20, 20, 20, 20, 20, 20, 20, 2000].map((ms, i) =>
      at(`2026-02-01T0${i}:00:00Z`, { responseMs: ms }),
    );
    await h.prisma.checkResult.createMany({
      data: [
        at('2026-01-31T23:59:59Z', { responseMs: 9999 }),
        ...early,
        at('2026-02-01T12:00:00Z', { responseMs: 700, region: 'eu-west' }),
        at('2026-05-01T09:00:00Z', { responseMs: 150 }),
      ],
    });
    await rebuildRollups(h.prisma, m.id);
    // Hourly rollups are kept 35 days: the quarter never reads them (nor the raw results).
    await h.prisma.checkRollupHourly.deleteMany({ where: { monitorId: m.id } });
    const quarter = await times(ctx, m.id, { period: 'quarter' }, now);
    expect(quarter.period).toBe('quarter');
    expect(quarter.buckets).toHaveLength(90);
    expect([quarter.buckets[0]!.bucketStart, quarter.buckets[89]!.bucketStart]).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-05-01T00:00:00.000Z',
    ]);
    // Nine checks at 20 ms and one at 2 s in local, one at 700 ms in eu-west: the median is 20 ms, the 95th the
    // slow one (rank 11 of 11 over all, 10 of 10 in local).
    expect(quarter.buckets[0]).toMatchObject({ total: 11, avgMs: 262, p50Ms: est(20), p95Ms: est(2000) });
    expect(quarter.buckets[89]).toMatchObject({ total: 1, p50Ms: est(150), p95Ms: est(150) });
    expect(quarter.buckets.reduce((n, b) => n + b.total, 0)).toBe(12);
    const eu = await times(ctx, m.id, { period: 'quarter', region: 'eu-west' }, now);
    expect(eu.buckets[0]).toMatchObject({ total: 1, avgMs: 700, p50Ms: est(700), p95Ms: est(700) });
    expect(eu.buckets[89]).toMatchObject({ total: 0, avgMs: null, p50Ms: null, p95Ms: null });
    const local = await times(ctx, m.id, { period: 'quarter', region: 'local' }, now);
    expect(local.buckets[0]).toMatchObject({ total: 10, avgMs: 218, p50Ms: est(20), p95Ms: est(2000) });
  });

  it('region=all is no filter: the same answer as without region, and the record says all', async () => {
    const { m, ctx, tokens } = await setup('solo');
    // Both results in the current minute (and hour) of `now`, whenever the test runs.
    const now = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
    await h.prisma.checkResult.createMany({
      data: [
        result(m.id, new Date(now.getTime() - 1000), { responseMs: 100 }),
        result(m.id, new Date(now.getTime() - 2000), { region: 'eu-west', responseMs: 300 }),
      ],
    });
    await rebuildRollups(h.prisma, m.id);
    for (const period of ['hour', 'day'] as const) {
      const none = await times(ctx, m.id, { period }, now);
      const all = await times(ctx, m.id, { period, region: 'all' }, now);
      expect(all).toEqual(none);
      expect(all.region).toBe('all');
      expect(all.buckets.at(-1)).toMatchObject({ avgMs: 200, total: 2 });
      expect((await times(ctx, m.id, { period, region: 'eu-west' }, now)).buckets.at(-1)).toMatchObject({
        avgMs: 300,
        total: 1,
      });
    }
    const res = await request(h.app)
      .get(`/api/v1/monitors/${m.id}/response-times?period=hour&region=all`)
      .set(bearer(tokens.viewer));
    expect(res.status).toBe(200);
    expect(res.body.data.region).toBe('all');
    expect(res.body.data.buckets.reduce((n: number, b: { total: number }) => n + b.total, 0)).toBe(2);
  });

  it('nulls the phases on the free plan and leaves the rest unchanged', async () => {
    const { m, ctx } = await setup('free');
    // Half a minute into the current minute, the result a second before: in the last bucket whenever the test runs.
    const now = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
    await h.prisma.checkResult.create({ data: result(m.id, new Date(now.getTime() - 1000)) });
    const res = await times(ctx, m.id, { period: 'hour' }, now);
    expect(res.buckets).toHaveLength(60);
    expect(res.buckets.at(-1)).toMatchObject({
      avgMs: 100,
      p50Ms: est(100),
      total: 1,
      phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
    });
  });

  it('serves over HTTP with the period and region rules, and 404 for foreign monitors', async () => {
    const { tokens, m } = await setup('solo');
    for (const [period, count] of [
      ['hour', 60],
      ['day', 24],
      ['week', 28],
      ['month', 30],
      ['quarter', 90],
    ] as const) {
      const res = await request(h.app)
        .get(`/api/v1/monitors/${m.id}/response-times?period=${period}`)
        .set(bearer(tokens.viewer));
      expect([period, res.status, res.body.data.buckets.length]).toEqual([period, 200, count]);
    }
    expect(
      (await request(h.app).get(`/api/v1/monitors/${m.id}/response-times?period=year`).set(bearer(tokens.viewer)))
        .status,
    ).toBe(400);
    expect(
      (
        await request(h.app)
          .get(`/api/v1/monitors/${m.id}/response-times?region=${'r'.repeat(41)}`)
          .set(bearer(tokens.viewer))
      ).status,
    ).toBe(400);
    const other = await makeWorkspace(h.prisma);
    expect(
      (await request(h.app).get(`/api/v1/monitors/${m.id}/response-times`).set(bearer(other.tokens.owner))).status,
    ).toBe(404);
  });

  it('refuses a region outside CHECK_REGIONS (it has no results: empty buckets would read as "no data")', async () => {
    const { tokens, m } = await setup('free');
    const get = (query: string) =>
      request(h.app).get(`/api/v1/monitors/${m.id}/response-times?${query}`).set(bearer(tokens.viewer));
    const mars = await get('region=mars');
    expect([mars.status, mars.body.error?.code, mars.body.error?.details?.issues]).toEqual([
      400,
      'invalid_request',
      [{ path: 'region', message: 'must be one of the regions checked from (local, eu-west) or all' }],
    ]);
    // Region names are lower case (config): another spelling is another name.
    expect((await get('region=EU-WEST')).status).toBe(400);
    for (const region of ['local', 'eu-west', 'all']) {
      const res = await get(`region=${region}`);
      expect([region, res.status, res.body.data?.region]).toEqual([region, 200, region]);
    }
    const twice = await get('period=day&period=week');
    expect([twice.status, twice.body.error?.details?.issues]).toEqual([
      400,
      [{ path: 'period', message: 'was given more than once' }],
    ]);
  });
});
