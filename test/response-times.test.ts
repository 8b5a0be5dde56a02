import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { rebuildRollups } from '@statusvane/shared';
import { getResponseTimes } from '../apps/api/src/services/monitors/response-times.js';
import { authenticate } from '../apps/api/src/services/auth/authenticate.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

async function setup(plan: 'free' | 'solo') {
  const { tokens } = await makeWorkspace(h.prisma, { plan });
  const m = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body.data;
  const ctx = await authenticate(h.prisma, { authorization: `Bearer ${tokens.viewer}`, workspaceHeader: undefined });
  return { tokens, m, ctx };
}

function result(monitorId: string, at: Date, over: Record<string, unknown> = {}) {
  return { monitorId, region: 'local', slot: at, checkedAt: at, outcome: 'up' as const, responseMs: 100, dnsMs: 10, connectMs: 20, tlsMs: 30, waitingMs: 40, ...over };
}

describe('GET /monitors/{id}/response-times', () => {
  it('returns every bucket of the day with averages, down counts and phases (solo plan)', async () => {
    const { m, ctx } = await setup('solo');
    const now = new Date('2026-05-01T10:30:00Z');
    await h.prisma.checkResult.createMany({
      data: [
        result(m.id, new Date('2026-05-01T10:05:00Z'), { responseMs: 100 }),
        result(m.id, new Date('2026-05-01T10:06:00Z'), { responseMs: 300, dnsMs: 30 }),
        result(m.id, new Date('2026-05-01T10:07:00Z'), { outcome: 'down', responseMs: null, dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null }),
        result(m.id, new Date('2026-05-01T10:08:00Z'), { region: 'eu-west', responseMs: 900 }),
        result(m.id, new Date('2026-04-30T11:00:00Z'), { responseMs: 50 }),
        // Outside the window: 24 buckets end with the 10:00 bucket, so 2026-04-30T10:59 is out.
        result(m.id, new Date('2026-04-30T10:59:00Z'), { responseMs: 5000 }),
      ],
    });
    await rebuildRollups(h.prisma, m.id);
    const all = await getResponseTimes(h.prisma, { ctx, id: m.id, query: {}, now });
    expect(all.period).toBe('day');
    expect(all.region).toBe('all');
    expect(all.buckets).toHaveLength(24);
    expect(all.buckets[0]).toEqual({ bucketStart: '2026-04-30T11:00:00.000Z', avgMs: 50, downCount: 0, total: 1, phases: { dnsMs: 10, connectMs: 20, tlsMs: 30, waitingMs: 40 } });
    expect(all.buckets[1]).toEqual({ bucketStart: '2026-04-30T12:00:00.000Z', avgMs: null, downCount: 0, total: 0, phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null } });
    expect(all.buckets[23]).toEqual({ bucketStart: '2026-05-01T10:00:00.000Z', avgMs: 433, downCount: 1, total: 4, phases: { dnsMs: 17, connectMs: 20, tlsMs: 30, waitingMs: 40 } });
    const local = await getResponseTimes(h.prisma, { ctx, id: m.id, query: { region: 'local' }, now });
    expect(local.region).toBe('local');
    expect(local.buckets[23]).toMatchObject({ avgMs: 200, downCount: 1, total: 3 });
  });

  it('nulls the phases on the free plan and leaves the rest unchanged', async () => {
    const { m, ctx } = await setup('free');
    const now = new Date();
    await h.prisma.checkResult.create({ data: result(m.id, new Date(now.getTime() - 1000)) });
    const res = await getResponseTimes(h.prisma, { ctx, id: m.id, query: { period: 'hour' }, now });
    expect(res.buckets).toHaveLength(60);
    expect(res.buckets.at(-1)).toMatchObject({ avgMs: 100, total: 1, phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null } });
  });

  it('serves over HTTP with the period and region rules, and 404 for foreign monitors', async () => {
    const { tokens, m } = await setup('solo');
    for (const [period, count] of [['hour', 60], ['day', 24], ['week', 28], ['month', 30]] as const) {
      const res = await request(h.app).get(`/api/v1/monitors/${m.id}/response-times?period=${period}`).set(bearer(tokens.viewer));
      expect([period, res.status, res.body.data.buckets.length]).toEqual([period, 200, count]);
    }
    expect((await request(h.app).get(`/api/v1/monitors/${m.id}/response-times?period=year`).set(bearer(tokens.viewer))).status).toBe(400);
    expect((await request(h.app).get(`/api/v1/monitors/${m.id}/response-times?region=${'r'.repeat(41)}`).set(bearer(tokens.viewer))).status).toBe(400);
    const other = await makeWorkspace(h.prisma);
    expect((await request(h.app).get(`/api/v1/monitors/${m.id}/response-times`).set(bearer(other.tokens.owner))).status).toBe(404);
  });
});
