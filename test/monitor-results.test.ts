import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { runCheck } from '../apps/worker/src/checks/run-check.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { findClosedPort, startTarget, startTcpTarget } from './support/targets.js';
import { checkRunnerDeps, stopScheduledChecks } from './support/worker-harness.js';

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
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  w = await makeWorkspace(h.prisma, { plan: 'solo' });
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
        dnsMs: 5,
        connectMs: 10,
        tlsMs: 20,
        waitingMs: 40,
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
  it('answers every result newest slot first (then by region), with the spec fields', async () => {
    const res = await results();
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, perPage: 25, total: 5, totalPages: 1 });
    // By slot, not checkedAt: us checked slot 1 after eu did, and is listed after it.
    expect(res.body.data.map((r: { checkedAt: string }) => r.checkedAt)).toEqual(
      [at(2), at(1), at(1.1), at(0), at(0.1)].map((d) => d.toISOString()),
    );
    expect(res.body.data[0]).toEqual({
      checkedAt: at(2).toISOString(),
      slot: at(2).toISOString(),
      region: 'eu',
      status: 'up',
      reason: null,
      statusCode: null,
      totalMs: 90,
      phases: { dnsMs: 5, connectMs: 10, tlsMs: 20, waitingMs: 40 },
      address: null,
      traceId: null,
      dnsAnswers: ['1.2.3.4'],
    });
    expect(res.body.data[2]).toEqual({
      checkedAt: at(1.1).toISOString(),
      slot: at(1).toISOString(),
      region: 'us',
      status: 'down',
      reason: 'status_code',
      statusCode: 503,
      totalMs: null,
      phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
      address: null,
      traceId: null,
    });
    expect(res.body.data[1].certificate).toMatchObject({ ...CERT, daysRemaining: expect.any(Number) });
  });

  it('shows the phase timings on the Solo plan and above only', async () => {
    const free = await request(h.app).post('/api/v1/monitors').set(bearer(other.tokens.owner)).send(makeMonitorInput());
    const id = free.body.data.id as string;
    await h.prisma.checkResult.create({
      data: { monitorId: id, region: 'eu', slot: at(0), checkedAt: at(0), outcome: 'up', responseMs: 90, dnsMs: 5 },
    });
    const res = await results('', other.tokens.viewer, id);
    expect(res.body.data[0]).toMatchObject({
      totalMs: 90,
      phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
    });
  });

  it('filters by region, status and since, combined, and pages', async () => {
    const eu = await results('?region=eu');
    expect(eu.body.data.map((r: { region: string }) => r.region)).toEqual(['eu', 'eu', 'eu']);
    const failing = await results('?status=down,degraded');
    expect(failing.body.data.map((r: { status: string }) => r.status)).toEqual(['degraded', 'down', 'down']);
    const recent = await results(`?since=${encodeURIComponent('2030-01-01T01:01:00+01:00')}&region=us&status=down`);
    expect(recent.body.data.map((r: { checkedAt: string }) => r.checkedAt)).toEqual([at(1.1).toISOString()]);
    const page2 = await results('?perPage=2&page=2');
    expect(page2.body.pagination).toEqual({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(page2.body.data.map((r: { checkedAt: string }) => r.checkedAt)).toEqual(
      [at(1.1), at(0)].map((d) => d.toISOString()),
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

describe('address: the IP address each check talked to', () => {
  let slot = Date.UTC(2031, 0, 1);
  /** One real check of the monitor by the worker's code (probe, store), with a slot of its own. */
  const check = (id: string) => {
    slot += 60_000;
    return runCheck(checkRunnerDeps(h), { monitorId: id, region: h.config.checkRegions[0]!, slot: new Date(slot) });
  };
  const create = async (over: Record<string, unknown>) => {
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send(makeMonitorInput({ confirmAfterSeconds: 0, ...over }));
    expect(res.status).toBe(201);
    await stopScheduledChecks(h, res.body.data.id);
    return res.body.data.id as string;
  };

  it('http and tcp against real targets on 127.0.0.1, up and refused', async () => {
    const [web, tcp] = await Promise.all([startTarget(), startTcpTarget()]);
    const closed = await findClosedPort();
    try {
      const http = await create({ target: web.url('/status/200') });
      const tcpUp = await create({ type: 'tcp', target: `127.0.0.1:${tcp.port}` });
      const refused = await create({ type: 'tcp', target: `127.0.0.1:${closed}` });
      for (const id of [http, tcpUp, refused]) expect(await check(id)).toMatchObject({ stored: true });

      const [httpResult] = (await results('', w.tokens.viewer, http)).body.data;
      expect(httpResult).toMatchObject({ status: 'up', statusCode: 200, address: '127.0.0.1' });
      expect((await results('', w.tokens.viewer, tcpUp)).body.data[0]).toMatchObject({
        status: 'up',
        address: '127.0.0.1',
      });
      // Refused: the address that refused, so that a wrong DNS answer shows.
      expect((await results('', w.tokens.viewer, refused)).body.data[0]).toMatchObject({
        status: 'down',
        reason: 'connection_refused',
        address: '127.0.0.1',
      });
      // Stored as INET (7 bytes for IPv4), read back as the bare address.
      const [row] = await h.prisma.$queryRaw<Array<{ type: string }>>`
        SELECT pg_typeof(address)::text AS type FROM check_results WHERE "monitorId" = ${http}::uuid LIMIT 1`;
      expect(row!.type).toBe('inet');
    } finally {
      await Promise.all([web.close(), tcp.close()]);
    }
  });
});
