import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
let monitorId: string;
const T0 = Date.parse('2030-01-01T00:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const CERT = {
  subject: 'CN=example.test',
  issuer: 'CN=Test CA',
  validFrom: '2029-01-01T00:00:00.000Z',
  validTo: '2031-01-01T00:00:00.000Z',
  fingerprint256: 'AA:BB',
};

beforeAll(async () => {
  h = makeHarness();
  w = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
  const res = await request(h.app).post('/api/v1/monitors').set(bearer(w.tokens.owner)).send(makeMonitorInput());
  monitorId = res.body.data.id;
  // Results in two regions, older to newer; the newest first in the answer.
  await h.prisma.checkResult.createMany({
    data: [
      { monitorId, region: 'eu', slot: at(0), checkedAt: at(0), outcome: 'up', responseMs: 120, statusCode: 200 },
      { monitorId, region: 'us', slot: at(0), checkedAt: at(0.1), outcome: 'down', reason: 'timeout' },
      {
        monitorId,
        region: 'eu',
        slot: at(1),
        checkedAt: at(1),
        outcome: 'degraded',
        reason: 'slow',
        responseMs: 2500,
        statusCode: 200,
        certificate: CERT,
      },
      {
        monitorId,
        region: 'us',
        slot: at(1),
        checkedAt: at(1.1),
        outcome: 'down',
        reason: 'status_code',
        statusCode: 503,
      },
      {
        monitorId,
        region: 'eu',
        slot: at(2),
        checkedAt: at(2),
        outcome: 'up',
        responseMs: 90,
        dnsAnswers: ['1.2.3.4'],
      },
    ],
  });
});
afterAll(async () => {
  await h.close();
});

const results = (query = '', token = w.tokens.viewer, id = monitorId) =>
  request(h.app).get(`/api/v1/monitors/${id}/results${query}`).set(bearer(token));

describe('GET /monitors/{id}/results', () => {
  it('answers every result newest first, with the spec fields', async () => {
    const res = await results();
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, perPage: 25, total: 5, totalPages: 1 });
    expect(res.body.data.map((r: { checkedAt: string }) => r.checkedAt)).toEqual(
      [at(2), at(1.1), at(1), at(0.1), at(0)].map((d) => d.toISOString()),
    );
    expect(res.body.data[0]).toEqual({
      checkedAt: at(2).toISOString(),
      slot: at(2).toISOString(),
      region: 'eu',
      status: 'up',
      reason: null,
      statusCode: null,
      totalMs: 90,
      address: null,
      dnsAnswers: ['1.2.3.4'],
    });
    expect(res.body.data[1]).toEqual({
      checkedAt: at(1.1).toISOString(),
      slot: at(1).toISOString(),
      region: 'us',
      status: 'down',
      reason: 'status_code',
      statusCode: 503,
      totalMs: null,
      address: null,
    });
    expect(res.body.data[2].certificate).toMatchObject({ ...CERT, daysRemaining: expect.any(Number) });
  });

  it('filters by region, status and since, combined, and pages', async () => {
    const eu = await results('?region=eu');
    expect(eu.body.data.map((r: { region: string }) => r.region)).toEqual(['eu', 'eu', 'eu']);
    const failing = await results('?status=down,degraded');
    expect(failing.body.data.map((r: { status: string }) => r.status)).toEqual(['down', 'degraded', 'down']);
    const recent = await results(`?since=${encodeURIComponent('2030-01-01T01:01:00+01:00')}&region=us&status=down`);
    expect(recent.body.data.map((r: { checkedAt: string }) => r.checkedAt)).toEqual([at(1.1).toISOString()]);
    const page2 = await results('?perPage=2&page=2');
    expect(page2.body.pagination).toEqual({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(page2.body.data.map((r: { checkedAt: string }) => r.checkedAt)).toEqual(
      [at(1), at(0.1)].map((d) => d.toISOString()),
    );
    expect((await results('?region=nowhere')).body.data).toEqual([]);
  });

  it('400 names every bad parameter; another workspace or an unknown id is 404', async () => {
    const bad = await results('?status=sideways&since=yesterday&region=EU!&colour=red');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
      ['colour', 'region', 'since', 'status[0]'].sort(),
    );
    expect((await results('', other.tokens.owner)).status).toBe(404);
    expect((await results('', w.tokens.owner, randomUUID())).status).toBe(404);
  });
});
