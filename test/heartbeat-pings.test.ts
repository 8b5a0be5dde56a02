import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let tokens: Awaited<ReturnType<typeof makeWorkspace>>['tokens'];
beforeAll(async () => {
  h = makeHarness();
  tokens = (await makeWorkspace(h.prisma)).tokens;
});
afterAll(async () => {
  await h.close();
});

const heartbeat = async (extra: object = {}) => {
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(tokens.member))
    .send({ type: 'heartbeat', name: 'nightly backup', ...extra });
  expect(res.status).toBe(201);
  return { id: res.body.data.id as string, path: new URL(res.body.data.pingUrl).pathname, record: res.body.data };
};
const pings = async (id: string, query = '') => {
  const res = await request(h.app).get(`/api/v1/monitors/${id}/pings${query}`).set(bearer(tokens.viewer));
  expect(res.status).toBe(200);
  return res.body as { data: Array<Record<string, unknown>>; pagination: Record<string, number> };
};
const monitorRow = (id: string) => h.prisma.monitor.findUniqueOrThrow({ where: { id } });
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('ping kinds', () => {
  it('stores every ping with its kind and exit code; 0 is a success, 1..255 a failure', async () => {
    const hb = await heartbeat();
    for (const [suffix, method] of [
      ['/start', 'get'],
      ['', 'head'],
      ['/fail', 'post'],
      ['/0', 'get'],
      ['/1', 'get'],
      ['/255', 'post'],
    ] as const) {
      await tick();
      const res = await request(h.app)
        [method](hb.path + suffix)
        .set('User-Agent', 'curl/8.5');
      expect([suffix, res.status]).toEqual([suffix, 200]);
    }
    const { data, pagination } = await pings(hb.id);
    expect(pagination).toMatchObject({ total: 6 });
    expect(data.map((p) => [p.kind, p.exitCode])).toEqual([
      ['fail', 255],
      ['fail', 1],
      ['success', 0],
      ['fail', null],
      ['success', null],
      ['start', null],
    ]);
    expect(data[0]).toMatchObject({ userAgent: 'curl/8.5', rid: null, body: null });
    expect(typeof data[0]!.remoteAddress).toBe('string');
    const row = await monitorRow(hb.id);
    expect(row.lastPingFailAt!.getTime()).toBeGreaterThan(row.lastPingAt!.getTime());
  });

  it('answers 404 for unknown kinds and exit codes outside 0..255, and 400 for a rid that is not a UUID', async () => {
    const hb = await heartbeat();
    for (const suffix of ['/256', '/-1', '/1000', '/log', '/start/x', '/0x1', '/ 1']) {
      expect([suffix, (await request(h.app).get(hb.path + suffix)).status]).toEqual([suffix, 404]);
    }
    expect((await request(h.app).get(`${hb.path}?rid=nope`)).status).toBe(400);
    expect((await request(h.app).get(`${hb.path}/start?rid=a&rid=b`)).status).toBe(400);
    expect((await pings(hb.id)).pagination.total).toBe(0);
  });
});

describe('the run log', () => {
  it("keeps a POST body's first 10,000 bytes, truncating a larger one (read as it streams, never a 5xx)", async () => {
    const hb = await heartbeat();
    expect((await request(h.app).post(hb.path).type('text/plain').send('backup done: 42 files\n')).status).toBe(200);
    await tick();
    const big = 'x'.repeat(9_999) + 'é' + 'y'.repeat(3_000_000); // é straddles the limit
    expect((await request(h.app).post(`${hb.path}/fail`).type('text/plain').send(big)).status).toBe(200);
    await tick();
    expect(
      (
        await request(h.app)
          .post(hb.path)
          .type('application/octet-stream')
          .send(Buffer.from([0, 1, 2]))
      ).status,
    ).toBe(200);
    const { data } = await pings(hb.id);
    expect(data[0]!.body).toBe('\uFFFD\u0001\u0002');
    expect((data[1]!.body as string).startsWith('x'.repeat(9_999))).toBe(true);
    expect(Buffer.byteLength(data[1]!.body as string)).toBeLessThanOrEqual(10_002);
    expect((data[1]!.body as string).length).toBe(10_000);
    expect(data[2]!.body).toBe('backup done: 42 files\n');
  });

  it('pages newest first; another workspace sees 404; a viewer may read', async () => {
    const hb = await heartbeat();
    for (let i = 0; i < 3; i++) {
      await tick();
      await request(h.app).post(hb.path).send(`run ${i}`);
    }
    const page2 = await pings(hb.id, '?page=2&perPage=2');
    expect(page2.data.map((p) => p.body)).toEqual(['run 0']);
    expect(page2.pagination).toMatchObject({ page: 2, perPage: 2, total: 3 });
    const other = (await makeWorkspace(h.prisma)).tokens;
    expect((await request(h.app).get(`/api/v1/monitors/${hb.id}/pings`).set(bearer(other.owner))).status).toBe(404);
    expect(
      (await request(h.app).get(`/api/v1/monitors/${hb.id}/pings?since=1`).set(bearer(tokens.viewer))).status,
    ).toBe(400);
  });
});

describe('runs: /start paired with its end', () => {
  it('an end without rid ends the run started without rid and takes its duration', async () => {
    const hb = await heartbeat();
    await request(h.app).get(`${hb.path}/start`);
    expect((await monitorRow(hb.id)).runStartedAt).not.toBeNull();
    await new Promise((r) => setTimeout(r, 60));
    await request(h.app).get(hb.path);
    const [end, start] = (await pings(hb.id)).data;
    expect(start!.durationMs).toBeNull();
    expect(end!.durationMs).toBeGreaterThanOrEqual(60);
    expect(end!.durationMs).toBeLessThan(5_000);
    const row = await monitorRow(hb.id);
    expect([row.runStartedAt, row.lastRunDurationMs]).toEqual([null, end!.durationMs]);
  });

  it('?rid pairs overlapping runs; a success of another rid leaves the run in progress, a fail ends it', async () => {
    const hb = await heartbeat();
    const a = '6f1c3e1e-0000-4000-8000-00000000000a';
    const b = '6f1c3e1e-0000-4000-8000-00000000000b';
    await request(h.app).get(`${hb.path}/start?rid=${a}`);
    await tick();
    await request(h.app).get(`${hb.path}/start?rid=${b}`);
    await new Promise((r) => setTimeout(r, 40));
    await request(h.app).get(`${hb.path}/0?rid=${a}`); // a's end: the run in progress is b's
    let row = await monitorRow(hb.id);
    expect(row.runStartedRid).toBe(b);
    const endA = (await pings(hb.id)).data[0]!;
    expect(endA).toMatchObject({ kind: 'success', exitCode: 0, rid: a });
    expect(endA.durationMs).toBeGreaterThanOrEqual(45);
    await request(h.app).get(`${hb.path}/3?rid=${b.toUpperCase()}`);
    row = await monitorRow(hb.id);
    expect([row.runStartedAt, row.runStartedRid]).toEqual([null, null]);
    expect((await pings(hb.id)).data[0]).toMatchObject({ kind: 'fail', exitCode: 3, rid: b });
  });

  it('maxRunSeconds: set on create and PATCH (null clears), only on heartbeats', async () => {
    const hb = await heartbeat({ maxRunSeconds: 600 });
    expect(hb.record.maxRunSeconds).toBe(600);
    const patch = (id: string, body: object) =>
      request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(tokens.member)).send(body);
    expect((await patch(hb.id, { maxRunSeconds: null })).body.data.maxRunSeconds).toBeNull();
    expect((await patch(hb.id, { maxRunSeconds: 0 })).status).toBe(400);
    const http = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send({ type: 'http', name: 'x', target: 'https://93.184.215.14/', maxRunSeconds: 5 });
    expect(http.status).toBe(400);
  });

  it('minRunSeconds: set on create and PATCH (null clears), below maxRunSeconds, only on heartbeats', async () => {
    const hb = await heartbeat({ minRunSeconds: 30, maxRunSeconds: 600 });
    expect(hb.record).toMatchObject({ minRunSeconds: 30, maxRunSeconds: 600 });
    const patch = (id: string, body: object) =>
      request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(tokens.member)).send(body);
    const refused = async (res: request.Response, path: string) => {
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    };
    // Against the stored maxRunSeconds, and against the one sent with it.
    await refused(await patch(hb.id, { minRunSeconds: 600 }), 'minRunSeconds');
    await refused(await patch(hb.id, { maxRunSeconds: 30 }), 'minRunSeconds');
    expect((await patch(hb.id, { minRunSeconds: 700, maxRunSeconds: 800 })).body.data).toMatchObject({
      minRunSeconds: 700,
      maxRunSeconds: 800,
    });
    expect((await patch(hb.id, { maxRunSeconds: null })).body.data.maxRunSeconds).toBeNull();
    expect((await patch(hb.id, { minRunSeconds: null })).body.data.minRunSeconds).toBeNull();
    await refused(await patch(hb.id, { minRunSeconds: 0 }), 'minRunSeconds');
    await refused(await patch(hb.id, { minRunSeconds: 1.5 }), 'minRunSeconds');
    const post = (body: object) => request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(body);
    await refused(await post({ type: 'heartbeat', name: 'x', minRunSeconds: 60, maxRunSeconds: 60 }), 'minRunSeconds');
    await refused(
      await post({ type: 'http', name: 'x', target: 'https://93.184.215.14/', minRunSeconds: 5 }),
      'minRunSeconds',
    );
    // Another type's PATCH: not accepted.
    const http = await post({ type: 'http', name: 'x', target: 'https://93.184.215.14/' });
    await refused(await patch(http.body.data.id, { minRunSeconds: 5 }), 'minRunSeconds');
  });

  it('a paused heartbeat records its pings and runs but queues no evaluation', async () => {
    const hb = await heartbeat();
    await request(h.app).patch(`/api/v1/monitors/${hb.id}`).set(bearer(tokens.member)).send({ enabled: false });
    const queue = h.deps.scheduler.queues.get('local')!;
    const nowJobs = async () =>
      (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).filter((j) => j.id?.startsWith(`now-${hb.id}-`));
    const before = (await nowJobs()).length;
    expect((await request(h.app).get(`${hb.path}/start`)).status).toBe(200);
    expect((await request(h.app).get(`${hb.path}/7`)).status).toBe(200);
    expect((await pings(hb.id)).pagination.total).toBe(2);
    expect(await nowJobs()).toHaveLength(before);
  });
});

describe('cron schedules', () => {
  const issues = (res: request.Response) =>
    (res.body.error?.details?.issues ?? []).map((i: { path: string }) => i.path).sort();
  const create = (body: object) =>
    request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send({ type: 'heartbeat', name: 'cron', ...body });

  it('takes schedule + timezone; nextExpectedAt is the first expected time after the last ping', async () => {
    const hb = await heartbeat({ schedule: '0 3 * * *', timezone: 'Europe/Berlin', graceSeconds: 600 });
    expect(hb.record).toMatchObject({ schedule: '0 3 * * *', timezone: 'Europe/Berlin', graceSeconds: 600 });
    const next = new Date(hb.record.nextExpectedAt);
    expect(next.getTime()).toBeGreaterThan(Date.parse(hb.record.createdAt));
    expect(next.getTime() - Date.parse(hb.record.createdAt)).toBeLessThanOrEqual(86_400_000);
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', timeStyle: 'short' }).format(next)).toBe(
      '03:00',
    );
    // Default time zone UTC; an interval heartbeat's nextExpectedAt is its last ping + interval.
    expect((await heartbeat({ schedule: '*/15 * * * *' })).record.timezone).toBe('UTC');
    const interval = await heartbeat({ intervalSeconds: 300 });
    await request(h.app).get(interval.path);
    const row = await monitorRow(interval.id);
    const read = await request(h.app).get(`/api/v1/monitors/${interval.id}`).set(bearer(tokens.viewer));
    expect(read.body.data).toMatchObject({ schedule: null, timezone: 'UTC' });
    expect(read.body.data.nextExpectedAt).toBe(new Date(row.lastPingAt!.getTime() + 300_000).toISOString());
  });

  it('400 naming the field: a bad cron, a bad time zone, both interval and schedule', async () => {
    let res = await create({ schedule: '61 * * * *', timezone: 'Mars/Olympus' });
    expect(res.status).toBe(400);
    expect(issues(res)).toEqual(['schedule', 'timezone']);
    res = await create({ schedule: '0 * * * * *' });
    expect(issues(res)).toEqual(['schedule']);
    res = await create({ schedule: '0 * * * *', intervalSeconds: 300 });
    expect(issues(res)).toEqual(['intervalSeconds', 'schedule']);
    const http = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send({ type: 'http', name: 'x', target: 'https://93.184.215.14/', schedule: '* * * * *' });
    expect(http.status).toBe(400);
  });

  it('PATCH: schedule replaces the interval, intervalSeconds (or schedule: null) returns to it', async () => {
    const hb = await heartbeat({ intervalSeconds: 3600 });
    const patch = (body: object) =>
      request(h.app).patch(`/api/v1/monitors/${hb.id}`).set(bearer(tokens.member)).send(body);
    let res = await patch({ schedule: '30 4 * * 1', timezone: 'America/New_York' });
    expect(res.body.data).toMatchObject({ schedule: '30 4 * * 1', timezone: 'America/New_York' });
    expect(issues(await patch({ timezone: 'Nowhere/Else' }))).toEqual(['timezone']);
    res = await patch({ intervalSeconds: 600 });
    expect(res.body.data).toMatchObject({ schedule: null, intervalSeconds: 600 });
    expect((await monitorRow(hb.id)).schedule).toBeNull();
    await patch({ schedule: '* * * * *' });
    expect((await patch({ schedule: null })).body.data.schedule).toBeNull();
  });
});

describe('a missed period is `heartbeat_missed`, on results as on incidents', () => {
  it('renames what was stored as `missed_heartbeat`: raw and packed results, incident evidence (migration)', async () => {
    const hb = await heartbeat();
    const other = await heartbeat();
    const slot = new Date(Date.UTC(2026, 10, 20, 12));
    await h.prisma.$executeRaw`
      INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, reason)
      VALUES (${hb.id}::uuid, 'local', ${slot}, ${slot}, 'down', 'missed_heartbeat')`;
    // A packed day (ADR 0017): one reason per result, a null where a result had none.
    await h.prisma.$executeRaw`
      INSERT INTO check_results_packed (day, "monitorId", count, region, "slotOffsetMs", "checkedAfterMs", outcome, reason)
      VALUES ('2026-11-05T00:00:00Z', ${hb.id}::uuid, 3, 'local', '{0,60000,120000}', '{5,5,5}',
        '{down,up,down}', ARRAY['missed_heartbeat', NULL, 'fail_ping'])`;
    const lastResult = {
      checkedAt: slot.toISOString(),
      status: 'down',
      statusCode: null,
      totalMs: null,
      address: null,
    };
    const incident = await h.prisma.incident.create({
      data: {
        workspaceId: (await monitorRow(hb.id)).workspaceId,
        monitorId: hb.id,
        title: 'nightly backup is down',
        status: 'resolved',
        reason: 'heartbeat_missed',
        evidence: [{ region: 'local', failing: true, lastResult: { ...lastResult, reason: 'missed_heartbeat' } }],
      },
    });
    // Another heartbeat's result that already has the name is left as it is.
    await h.prisma.$executeRaw`
      INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, reason)
      VALUES (${other.id}::uuid, 'local', ${slot}, ${slot}, 'down', 'heartbeat_missed')`;

    const sql = readFileSync('prisma/migrations/20261128183124_heartbeat_missed_reason/migration.sql', 'utf8');
    for (const statement of sql
      .replace(/^--.*$/gm, '')
      .split(/;\s*$/m)
      .filter((x) => x.trim()))
      await h.prisma.$executeRawUnsafe(statement);

    const reasons = async (id: string) =>
      (
        await h.prisma.$queryRaw<Array<{ reason: string | null }>>`
          SELECT reason FROM check_results_all WHERE "monitorId" = ${id}::uuid ORDER BY slot`
      ).map((r) => r.reason);
    expect(await reasons(hb.id)).toEqual(['heartbeat_missed', null, 'fail_ping', 'heartbeat_missed']);
    expect(await reasons(other.id)).toEqual(['heartbeat_missed']);
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: incident.id } })).evidence).toEqual([
      { region: 'local', failing: true, lastResult: { ...lastResult, reason: 'heartbeat_missed' } },
    ]);
  });
});
