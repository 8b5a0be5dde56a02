import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  monitorSource,
  partitionSchedulerId,
  reconcileSchedules,
  schedulerId,
  spreadOffsetMs,
  type Partition,
} from '@statusvane/shared';
import { dumpDatabase } from './support/db-dump.js';
import { makeFullHttpMonitorInput, makeMonitorInput } from './support/factories.js';
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

const post = (body: unknown, token = tokens.member) =>
  request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(token))
    .send(body as object);
const patch = (id: string, body: unknown, token = tokens.member) =>
  request(h.app)
    .patch(`/api/v1/monitors/${id}`)
    .set(bearer(token))
    .send(body as object);
const issuePaths = (res: request.Response) =>
  (res.body.error?.details?.issues ?? []).map((i: { path: string }) => i.path).sort();

describe('POST /monitors', () => {
  it('answers the monitor as a read of it does, every optional field set (the create is one raw statement)', async () => {
    const res = await post(makeFullHttpMonitorInput());
    expect([res.status, res.body.error]).toEqual([201, undefined]);
    const read = await request(h.app).get(`/api/v1/monitors/${res.body.data.id}`).set(bearer(tokens.member));
    expect(read.body.data).toEqual(res.body.data);
    expect(res.body.data).toMatchObject({
      method: 'POST',
      expectedStatusCodes: [200, 204],
      metadata: { team: 'payments', tier: 'gold' },
      slaTarget: 99.95,
      sendTraceparent: false,
    });
  });

  it('creates an http monitor with the defaults and its component', async () => {
    const res = await post(makeMonitorInput());
    expect(res.status).toBe(201);
    const m = res.body.data;
    expect(m).toMatchObject({
      name: 'Homepage',
      type: 'http',
      target: 'https://93.184.215.14/health',
      method: 'GET',
      intervalSeconds: 60,
      timeoutMs: 10000,
      openThreshold: 2,
      resolveThreshold: 2,
      environment: 'production',
      enabled: true,
      status: 'pending',
      contentType: 'application/json',
      expectedStatusCodes: [],
      headerNames: [],
      hasBody: false,
      metadata: {},
      maintenanceUntil: null,
      openEndedMaintenance: false,
      lastCheckedAt: null,
      pingUrl: null,
    });
    expect(m.id).toMatch(/^[0-9a-f-]{36}$/);
    const component = await h.prisma.component.findUnique({ where: { id: m.componentId } });
    expect(component?.name).toBe('Homepage');
  });

  it('creates tcp and heartbeat monitors; a heartbeat has a ping URL on create and on read', async () => {
    const tcp = await post({ type: 'tcp', name: 'DB', target: '93.184.215.14:5432' });
    expect(tcp.status).toBe(201);
    expect(tcp.body.data).toMatchObject({ type: 'tcp', target: '93.184.215.14:5432', pingUrl: null });
    const hb = await post({ type: 'heartbeat', name: 'Nightly job', intervalSeconds: 3600, graceSeconds: 300 });
    expect(hb.status).toBe(201);
    expect(hb.body.data).toMatchObject({ type: 'heartbeat', target: null, graceSeconds: 300 });
    expect(hb.body.data.pingUrl).toMatch(new RegExp(`^${h.config.publicBaseUrl}/ping/[A-Za-z0-9_-]{32}$`));
    const read = await request(h.app).get(`/api/v1/monitors/${hb.body.data.id}`).set(bearer(tokens.viewer));
    expect(read.body.data.pingUrl).toBe(hb.body.data.pingUrl);
  });

  it('refuses unknown keys, enabled, wrong types and type-foreign fields, naming every field', async () => {
    const res = await post(makeMonitorInput({ enabled: true, colour: 'red', intervalSeconds: '60', name: '' }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(issuePaths(res)).toEqual(['colour', 'enabled', 'intervalSeconds', 'name']);
    const tcp = await post({ type: 'tcp', name: 'x', target: '93.184.215.14:1', keyword: 'ok', method: 'GET' });
    expect(issuePaths(tcp)).toEqual(['keyword', 'method']);
    const hb = await post({ type: 'heartbeat', name: 'x', target: 'https://93.184.215.14/' });
    expect(issuePaths(hb)).toEqual(['target']);
    expect((await post({ type: 'ftp', name: 'x', target: 'x' })).status).toBe(400);
    expect((await post([1, 2])).status).toBe(400);
    expect((await post('"x"')).status).toBe(400);
  });

  it.each([
    ['name', 'x'.repeat(120), 'x'.repeat(121)],
    ['intervalSeconds', 60, 59],
    ['intervalSeconds', 86400, 86401],
    ['timeoutMs', 1000, 999],
    ['timeoutMs', 30000, 30001],
    ['openThreshold', 1, 0],
    ['openThreshold', 10, 11],
    ['resolveThreshold', 1, 0],
    ['resolveThreshold', 10, 11],
    ['degradedAfterMs', 1, 0],
    // Within the default timeoutMs (10000): the range goes to 60000, the rules between fields hold them to the timeout.
    ['degradedAfterMs', 60_000, 60_001],
    ['latencyThresholdMs', 1, 0],
    ['latencyThresholdMs', 60_000, 60_001],
    ['keyword', 'k'.repeat(200), 'k'.repeat(201)],
    ['keywordAbsent', 'k'.repeat(200), 'k'.repeat(201)],
    ['contentType', 'c'.repeat(200), 'c'.repeat(201)],
    ['environment', 'e'.repeat(60), 'e'.repeat(61)],
    ['expectedStatusCodes', [100, 599], [99]],
    ['expectedStatusCodes', [200], [600]],
    [
      'metadata',
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'])),
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])),
    ],
    ['metadata', { ['k'.repeat(64)]: 'v'.repeat(500) }, { ['k'.repeat(65)]: 'v' }],
    ['metadata', { k: 'v'.repeat(500) }, { k: 'v'.repeat(501) }],
  ])('%s: the limit passes, one past it is 400', async (field, ok, bad) => {
    const good = await post(makeMonitorInput({ [field]: ok }));
    expect(good.status).toBe(201);
    const refused = await post(makeMonitorInput({ [field]: bad }));
    expect(refused.status).toBe(400);
    expect(issuePaths(refused)[0]).toMatch(new RegExp(`^${field}`));
  });

  it('accepts a body of 32768 characters and refuses 32769', async () => {
    expect((await post(makeMonitorInput({ method: 'POST', body: 'b'.repeat(32768) }))).status).toBe(201);
    const res = await post(makeMonitorInput({ method: 'POST', body: 'b'.repeat(32769) }));
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['body']);
  });

  it('checks the rules between fields', async () => {
    expect(issuePaths(await post(makeMonitorInput({ body: '{}' })))).toEqual(['body']);
    expect(issuePaths(await post(makeMonitorInput({ jsonAssertion: { path: 'a', operator: 'eq' } })))).toEqual([
      'jsonAssertion.value',
    ]);
    expect(
      issuePaths(await post(makeMonitorInput({ jsonAssertion: { path: 'a', operator: 'gt', value: 'x' } }))),
    ).toEqual(['jsonAssertion.value']);
    expect(issuePaths(await post(makeMonitorInput({ jsonAssertion: { path: 'a[', operator: 'exists' } })))).toEqual([
      'jsonAssertion.path',
    ]);
    const ok = await post(makeMonitorInput({ jsonAssertion: { path: '$.status', operator: 'eq', value: 'ok' } }));
    expect(ok.status).toBe(201);
    expect(ok.body.data.jsonAssertion).toEqual({ path: '$.status', operator: 'eq', value: 'ok' });
  });

  it('accepts every latency threshold of the seed range, even one that can never fire (create, PATCH, apply)', async () => {
    // The seed allows 1 to 60000 for both; a threshold at or above timeoutMs never fires, which is harmless.
    for (const input of [
      { degradedAfterMs: 60_000 },
      { latencyThresholdMs: 60_000 },
      { degradedAfterMs: 10_000, latencyThresholdMs: 10_001 },
      { degradedAfterMs: 500, latencyThresholdMs: 500 },
      { type: 'tcp', target: '93.184.215.14:5432', name: 'db', degradedAfterMs: 2000, timeoutMs: 2000 },
    ]) {
      const res = await post(makeMonitorInput(input));
      expect([input, res.status, res.body.error]).toEqual([input, 201, undefined]);
    }
    expect(issuePaths(await post(makeMonitorInput({ latencyThresholdMs: 60_001 })))).toEqual(['latencyThresholdMs']);
    expect(issuePaths(await post(makeMonitorInput({ degradedAfterMs: 0 })))).toEqual(['degradedAfterMs']);

    const m = (await post(makeMonitorInput({ timeoutMs: 20_000, latencyThresholdMs: 15_000 }))).body.data;
    expect((await patch(m.id, { timeoutMs: 12_000 })).status).toBe(200);
    expect((await patch(m.id, { degradedAfterMs: 60_000, latencyThresholdMs: 60_000 })).status).toBe(200);
    const stored = await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } });
    expect([stored.timeoutMs, stored.latencyThresholdMs, stored.degradedAfterMs]).toEqual([12_000, 60_000, 60_000]);

    const applied = await request(h.app)
      .post('/api/v1/config/apply')
      .set(bearer(tokens.admin))
      .send({
        version: 1,
        monitors: [
          {
            ref: 'slow',
            name: 'Slow',
            target: 'https://93.184.215.14/',
            degradedAfterMs: 60_000,
            latencyThresholdMs: 60_000,
          },
        ],
      });
    expect([applied.status, applied.body.error]).toEqual([200, undefined]);
  });

  it('refuses bad targets and internal addresses (SSRF) at write time', async () => {
    for (const target of ['ftp://93.184.215.14/', 'not a url', 'https://user:pw@93.184.215.14/', '/relative']) {
      expect([target, (await post(makeMonitorInput({ target }))).status]).toEqual([target, 400]);
    }
    for (const target of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.1/',
      'http://localhost:3000/',
    ]) {
      const res = await post(makeMonitorInput({ target }));
      expect([target, res.status, issuePaths(res)]).toEqual([target, 400, ['target']]);
    }
    const tcp = await post({ type: 'tcp', name: 'x', target: '192.168.1.1:22' });
    expect(issuePaths(tcp)).toEqual(['target']);
    for (const target of ['nohost', 'host:0', 'host:70000']) {
      expect((await post({ type: 'tcp', name: 'x', target })).status).toBe(400);
    }
  });

  it('lets ALLOWED_TARGET_CIDRS through, and nothing else', async () => {
    const allowed = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
    try {
      const { tokens: t } = await makeWorkspace(allowed.prisma);
      const ok = await request(allowed.app)
        .post('/api/v1/monitors')
        .set(bearer(t.owner))
        .send(makeMonitorInput({ target: 'http://127.0.0.1:9/' }));
      expect(ok.status).toBe(201);
      const still = await request(allowed.app)
        .post('/api/v1/monitors')
        .set(bearer(t.owner))
        .send(makeMonitorInput({ target: 'http://10.0.0.1/' }));
      expect(still.status).toBe(400);
    } finally {
      await allowed.close();
    }
  });

  it('keeps headers and body write-only and encrypted at rest', async () => {
    const secretHeader = `Bearer header-secret-${Date.now()}`;
    const secretBody = `{"password":"body-secret-${Date.now()}"}`;
    const res = await post(
      makeMonitorInput({ method: 'POST', headers: { Authorization: secretHeader, 'X-Trace': 'on' }, body: secretBody }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.headerNames).toEqual(['Authorization', 'X-Trace']);
    expect(res.body.data.hasBody).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain('header-secret');
    expect(JSON.stringify(res.body)).not.toContain('body-secret');
    const read = await request(h.app).get(`/api/v1/monitors/${res.body.data.id}`).set(bearer(tokens.viewer));
    expect(JSON.stringify(read.body)).not.toContain('secret-');
    const dump = await dumpDatabase(h.prisma);
    expect(dump).toContain(res.body.data.id);
    expect(dump).not.toContain('header-secret');
    expect(dump).not.toContain('body-secret');
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: res.body.data.id } });
    // Each value names the key that sealed it (rotation: test/monitor-secrets.test.ts).
    const sealedBy = new RegExp(`^v1:${h.config.encryption.current.id}:`);
    expect(row.headersEnc).toMatch(sealedBy);
    expect(row.bodyEnc).toMatch(sealedBy);
    expect(row.encKeyId).toBeNull();
    const { decryptSecret } = await import('@statusvane/shared');
    expect(JSON.parse(decryptSecret(row.headersEnc!, null, h.config.encryption))).toEqual({
      Authorization: secretHeader,
      'X-Trace': 'on',
    });
    expect(decryptSecret(row.bodyEnc!, null, h.config.encryption)).toBe(secretBody);
  });

  it('refuses writes from a viewer with 403', async () => {
    const res = await post(makeMonitorInput(), tokens.viewer);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('defaults an omitted type to http (older clients keep working)', async () => {
    const res = await post({ name: 'legacy', target: 'http://93.184.215.14/' });
    expect(res.body.data.type).toBe('http');
  });
});

describe('GET /monitors', () => {
  it('paginates: total, totalPages, and a page past the end', async () => {
    const { tokens: t } = await makeWorkspace(h.prisma);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(t.owner))
        .send(makeMonitorInput({ name: `m${i}` }));
      ids.push(r.body.data.id);
    }
    const page = (q: string) => request(h.app).get(`/api/v1/monitors?${q}`).set(bearer(t.viewer));
    const p1 = await page('perPage=3');
    expect(p1.body.pagination).toEqual({ page: 1, perPage: 3, total: 7, totalPages: 3 });
    expect(p1.body.data.map((m: { id: string }) => m.id)).toEqual(ids.slice(0, 3));
    const p3 = await page('perPage=3&page=3');
    expect(p3.body.data.map((m: { id: string }) => m.id)).toEqual(ids.slice(6));
    const p4 = await page('perPage=3&page=4');
    expect(p4.body).toEqual({ data: [], pagination: { page: 4, perPage: 3, total: 7, totalPages: 3 } });
    expect((await page('')).body.pagination).toEqual({ page: 1, perPage: 25, total: 7, totalPages: 1 });
  });

  it("answers 404 for a malformed id and for another workspace's monitor", async () => {
    const created = await post(makeMonitorInput());
    const other = await makeWorkspace(h.prisma);
    for (const [id, token] of [
      ['not-a-uuid', tokens.viewer],
      ['00000000-0000-0000-0000-000000000000', tokens.viewer],
      [created.body.data.id, other.tokens.owner],
    ] as const) {
      const res = await request(h.app).get(`/api/v1/monitors/${id}`).set(bearer(token));
      expect([id, res.status, res.body.error.code]).toEqual([id, 404, 'not_found']);
      // PATCH too, with a writer's token, and before the body is even looked at.
      for (const body of [{ name: 'x' }, { intervalSeconds: 1 }]) {
        const upd = await request(h.app)
          .patch(`/api/v1/monitors/${id}`)
          .set(bearer(token === tokens.viewer ? tokens.member : token))
          .send(body);
        expect([id, upd.status, upd.body.error.code]).toEqual([id, 404, 'not_found']);
      }
    }
  });
});

describe('PATCH /monitors/{id}', () => {
  it('changes only the given fields and refuses type and metadata', async () => {
    const created = (await post(makeMonitorInput({ keyword: 'ok', metadata: { team: 'web' } }))).body.data;
    const res = await patch(created.id, { name: 'Renamed', timeoutMs: 5000 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      name: 'Renamed',
      timeoutMs: 5000,
      keyword: 'ok',
      metadata: { team: 'web' },
      intervalSeconds: 60,
    });
    expect((await h.prisma.component.findUniqueOrThrow({ where: { id: created.componentId } })).name).toBe('Renamed');
    const refused = await patch(created.id, { type: 'tcp', metadata: {}, bogus: 1 });
    expect(refused.status).toBe(400);
    expect(issuePaths(refused)).toEqual(['bogus', 'metadata', 'type']);
    const heartbeat = (await post({ type: 'heartbeat', name: 'hb' })).body.data;
    expect(issuePaths(await patch(heartbeat.id, { target: 'http://93.184.215.14/' }))).toEqual(['target']);
    expect(issuePaths(await patch(created.id, { target: 'http://127.0.0.1/' }))).toEqual(['target']);
    expect(issuePaths(await patch(created.id, { intervalSeconds: 59 }))).toEqual(['intervalSeconds']);
  });

  it('replaces headers and body, and clears them with {} and null', async () => {
    const created = (await post(makeMonitorInput({ method: 'POST', headers: { A: '1', B: '2' }, body: 'x' }))).body
      .data;
    const replaced = await patch(created.id, { headers: { C: '3' } });
    expect(replaced.body.data.headerNames).toEqual(['C']);
    expect(replaced.body.data.hasBody).toBe(true);
    const cleared = await patch(created.id, { headers: {}, body: null });
    expect(cleared.body.data).toMatchObject({ headerNames: [], hasBody: false });
    expect(issuePaths(await patch(created.id, { method: 'GET', body: 'y' }))).toEqual(['body']);
  });

  it('lets a viewer read but not write', async () => {
    const created = (await post(makeMonitorInput())).body.data;
    expect((await patch(created.id, { name: 'x' }, tokens.viewer)).status).toBe(403);
  });
});

describe('scheduling', () => {
  // Per partition (docs/adr/0020-partitioned-scheduling.md): a scheduler per (interval, offset, region), its members
  // read from PostgreSQL at run time.
  async function partitions() {
    const queue = h.deps.scheduler.partitionQueues.get('local')!;
    return new Map((await queue.getJobSchedulers(0, -1)).map((s) => [s.key, s]));
  }
  const partitionOf = (id: string, everyMs: number): Partition => ({
    everyMs,
    offsetMs: spreadOffsetMs(id, everyMs),
    region: 'local',
  });

  it("schedules a create's partition, a new interval's, writes nothing on pause and makes sure of it on resume", async () => {
    const m = (await post(makeMonitorInput({ intervalSeconds: 120 }))).body.data;
    const first = partitionOf(m.id, 120_000);
    const s = (await partitions()).get(partitionSchedulerId(first));
    expect(s?.every).toBe(120_000);
    expect(s?.offset).toBe(first.offsetMs);
    expect(s?.template?.data).toEqual(first);
    // The first check does not wait for the first slot.
    const queue = h.deps.scheduler.queues.get('local')!;
    const waiting = await queue.getJobs(['waiting', 'prioritized', 'delayed']);
    expect(waiting.some((j) => j.id?.startsWith(`now-${m.id}-local-`))).toBe(true);
    // Nothing of the monitor itself in Redis.
    expect((await h.deps.scheduler.listSchedulers()).get('local')!.has(schedulerId(m.id, 'local'))).toBe(false);

    await patch(m.id, { intervalSeconds: 300 });
    const slower = partitionOf(m.id, 300_000);
    expect((await partitions()).get(partitionSchedulerId(slower))?.every).toBe(300_000);
    const before = [...(await partitions()).keys()].sort();
    const paused = await patch(m.id, { enabled: false });
    expect(paused.body.data).toMatchObject({ enabled: false, status: 'paused' });
    expect([...(await partitions()).keys()].sort()).toEqual(before);
    // Resuming makes sure the partition has its scheduler (the reconciler may have removed it as emptied).
    await h.deps.scheduler.removePartition(slower);
    await patch(m.id, { enabled: true });
    expect((await partitions()).get(partitionSchedulerId(slower))?.every).toBe(300_000);
  });

  it('spreads offsets so monitors created together do not fire together', async () => {
    const { randomUUID } = await import('node:crypto');
    const buckets = new Array(60).fill(0) as number[];
    for (let i = 0; i < 10_000; i++) buckets[Math.floor(spreadOffsetMs(randomUUID(), 60_000) / 1000)]!++;
    expect(Math.max(...buckets)).toBeLessThan(260); // 10,000 / 60 = 167 per second on average
    expect(Math.min(...buckets)).toBeGreaterThan(90);
  });

  it('the reconciler restores every partition after Redis loses its data, removes emptied ones and strays, and the previous release per-monitor schedulers', async () => {
    const m = (await post(makeMonitorInput())).body.data;
    const paused = (await post(makeMonitorInput())).body.data;
    // An interval of its own (set in the database, as the bench does), so that its partition empties when it pauses.
    await h.prisma.monitor.update({ where: { id: paused.id }, data: { intervalSeconds: 77 } });
    await patch(paused.id, { enabled: false });
    const queue = h.deps.scheduler.partitionQueues.get('local')!;
    const legacy = h.deps.scheduler.queues.get('local')!;
    await queue.obliterate({ force: true });
    await legacy.obliterate({ force: true });
    expect((await partitions()).size).toBe(0);
    // The emptied partition, a stray, and the schedulers of the previous release: one of an enabled monitor, one of a
    // monitor that does not exist.
    await h.deps.scheduler.ensurePartition(partitionOf(paused.id, 77_000));
    await queue.upsertJobScheduler('stray', { every: 60_000 }, { name: 'partition', data: {} });
    for (const id of [m.id, '00000000-0000-4000-8000-000000000000'])
      await legacy.upsertJobScheduler(
        schedulerId(id, 'local'),
        { every: 60_000, offset: spreadOffsetMs(id, 60_000) },
        { name: 'check', data: { monitorId: id, region: 'local' } },
      );

    const report = await reconcileSchedules(h.deps.scheduler, monitorSource(h.prisma));
    const after = await partitions();
    // Other suites' monitors are in the database too, so compare with what this run saw as desired.
    expect(report.desired).toBeGreaterThanOrEqual(1);
    expect(after.has(partitionSchedulerId(partitionOf(m.id, 60_000)))).toBe(true);
    expect(after.has(partitionSchedulerId(partitionOf(paused.id, 77_000)))).toBe(false);
    expect(after.has('stray')).toBe(false);
    expect(after.size).toBe(report.desired);
    expect(report).toMatchObject({ added: report.desired, removed: 2, legacyRemoved: 2, corrected: 0 });
    expect((await h.deps.scheduler.listSchedulers()).get('local')!.size).toBe(0);
    // Running it again changes nothing.
    expect(await reconcileSchedules(h.deps.scheduler, monitorSource(h.prisma))).toMatchObject({
      added: 0,
      removed: 0,
      legacyRemoved: 0,
    });
  });

  it('keeps a per-monitor scheduler of the previous release until its partition has its scheduler', async () => {
    const m = (await post(makeMonitorInput())).body.data;
    const legacy = h.deps.scheduler.queues.get('local')!;
    await legacy.upsertJobScheduler(
      schedulerId(m.id, 'local'),
      { every: 60_000, offset: spreadOffsetMs(m.id, 60_000) },
      { name: 'check', data: { monitorId: m.id, region: 'local' } },
    );
    // The partition's upsert fails (Redis refuses that one write): the monitor keeps its own scheduler meanwhile.
    const failing = Object.create(h.deps.scheduler) as typeof h.deps.scheduler;
    failing.ensurePartition = () => Promise.reject(new Error('OOM command not allowed'));
    await h.deps.scheduler.partitionQueues.get('local')!.obliterate({ force: true });
    await expect(reconcileSchedules(failing, monitorSource(h.prisma))).rejects.toThrow('OOM');
    expect((await h.deps.scheduler.listSchedulers()).get('local')!.has(schedulerId(m.id, 'local'))).toBe(true);
    const report = await reconcileSchedules(h.deps.scheduler, monitorSource(h.prisma));
    expect(report.legacyRemoved).toBeGreaterThanOrEqual(1);
    expect((await h.deps.scheduler.listSchedulers()).get('local')!.has(schedulerId(m.id, 'local'))).toBe(false);
  });

  it("a reconciler pass between the API's Redis write and its commit undoes nothing: a create's new partition", async () => {
    const { createApp } = await import('../apps/api/src/app.js');
    const real = h.deps.scheduler;
    const db = monitorSource(h.prisma); // its own pooled connections: it sees committed rows only
    // The API's scheduler, but one reconciler pass runs right after its real write, inside the API's transaction: the
    // pass does not see the uncommitted monitor, and removes its partition (of an interval no one else has) as emptied.
    let armed = true;
    const hooked = Object.create(real) as typeof real;
    hooked.schedule = async (m) => {
      await real.schedule(m);
      if (!armed) return;
      armed = false;
      const report = await reconcileSchedules(real, db);
      expect(report.removed).toBeGreaterThanOrEqual(1);
    };
    const created = await request(createApp({ ...h.deps, scheduler: hooked }))
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send(makeMonitorInput({ intervalSeconds: 3_540 }));
    expect(created.status).toBe(201);
    expect(armed).toBe(false);
    expect((await partitions()).get(partitionSchedulerId(partitionOf(created.body.data.id, 3_540_000)))?.every).toBe(
      3_540_000,
    );
  });

  it('a create writes its schedulers once: after the commit it only reads them back', async () => {
    const { createApp } = await import('../apps/api/src/app.js');
    const real = h.deps.scheduler;
    const writes: string[] = [];
    const counted = Object.create(real) as typeof real;
    counted.schedule = async (m) => {
      writes.push(m.id);
      return real.schedule(m);
    };
    const res = await request(createApp({ ...h.deps, scheduler: counted }))
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send(makeMonitorInput({ intervalSeconds: 300 }));
    expect(res.status).toBe(201);
    expect(writes).toEqual([res.body.data.id]);
    expect((await partitions()).get(partitionSchedulerId(partitionOf(res.body.data.id, 300_000)))?.every).toBe(300_000);
  });

  it('writes nothing when Redis is unreachable (503)', async () => {
    const down = makeHarness({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const before = await h.prisma.monitor.count();
      // Auth works (PostgreSQL is up); the rate limiter needs Redis, so this is refused before any write.
      const res = await request(down.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput());
      expect(res.status).toBe(503);
      expect(await h.prisma.monitor.count()).toBe(before);
    } finally {
      await down.close();
    }
  });
});

describe('safe retries on POST /monitors', () => {
  it('20 concurrent POSTs with one key create exactly one monitor', async () => {
    const { ws, tokens: t } = await makeWorkspace(h.prisma);
    const key = `key-${Date.now()}`;
    const body = makeMonitorInput({ name: 'once' });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(h.app).post('/api/v1/monitors').set(bearer(t.owner)).set('Idempotency-Key', key).send(body),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(await h.prisma.monitor.count({ where: { workspaceId: ws.id } })).toBe(1);
    const first = results.find((r) => r.status === 201 && !r.headers['idempotent-replayed'])!;
    expect(first).toBeDefined();
    const replay = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(t.owner))
      .set('Idempotency-Key', key)
      .send(body);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const different = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(t.owner))
      .set('Idempotency-Key', key)
      .send({ ...body, name: 'other' });
    expect(different.status).toBe(400);
    expect(await h.prisma.monitor.count({ where: { workspaceId: ws.id } })).toBe(1);
  });
});

describe('heartbeat ping receiver', () => {
  it('records pings and failures by secret, answers 404 for unknown secrets', async () => {
    const hb = (await post({ type: 'heartbeat', name: 'cron' })).body.data;
    const path = new URL(hb.pingUrl).pathname;
    for (const method of ['get', 'head', 'post'] as const) {
      const res = await request(h.app)[method](path);
      expect([method, res.status]).toEqual([method, 200]);
    }
    let row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } });
    expect(row.lastPingAt).not.toBeNull();
    expect(row.lastPingFailAt).toBeNull();
    const fail = await request(h.app).post(`${path}/fail`).send('oops');
    expect(fail.status).toBe(200);
    row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } });
    expect(row.lastPingFailAt).not.toBeNull();
    expect((await request(h.app).get('/ping/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await request(h.app).get('/ping/short')).status).toBe(404);
    expect((await request(h.app).put(path)).status).toBe(404);
  });
});

describe('a 400 names every offending field, whatever stage finds it', () => {
  it('PATCH: a bad target format and an out-of-range interval together, the target named as `target`', async () => {
    const m = (await post(makeMonitorInput())).body.data;
    const res = await patch(m.id, { target: 'ftp://x', intervalSeconds: 59 });
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['intervalSeconds', 'target']);
    expect(res.body.error.message).toBe('Invalid monitor: intervalSeconds, target');
    const tcp = (await post({ type: 'tcp', name: 'db', target: '93.184.215.14:5432' })).body.data;
    expect(issuePaths(await patch(tcp.id, { target: 'no-port' }))).toEqual(['target']);
    // A blocked target is found even beside a schema error.
    expect(issuePaths(await patch(m.id, { target: 'http://10.0.0.1/', timeoutMs: 1 }))).toEqual([
      'target',
      'timeoutMs',
    ]);
  });

  it('PATCH: a field the type does not take beside a schema error, each named once', async () => {
    const tcp = (await post({ type: 'tcp', name: 'db', target: '93.184.215.14:5432' })).body.data;
    const res = await patch(tcp.id, { keyword: 'x', intervalSeconds: 59 });
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['intervalSeconds', 'keyword']);
    // A wrong value in a field the type does not take is still one issue: "not accepted".
    const wrong = await patch(tcp.id, { keyword: 5, graceSeconds: 'x' });
    expect(wrong.body.error.details.issues).toEqual([
      { path: 'keyword', message: 'not accepted for tcp monitors' },
      { path: 'graceSeconds', message: 'not accepted for tcp monitors' },
    ]);
    const hb = (await post({ type: 'heartbeat', name: 'hb' })).body.data;
    expect(issuePaths(await patch(hb.id, { target: 'http://127.0.0.1/', method: 'POST', graceSeconds: -1 }))).toEqual([
      'graceSeconds',
      'method',
      'target',
    ]);
  });

  it('POST: a blocked target and a body on GET together; a schema error beside either', async () => {
    const res = await post(makeMonitorInput({ target: 'http://127.0.0.1/', body: '{}' }));
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['body', 'target']);
    expect(
      issuePaths(
        await post(
          makeMonitorInput({
            target: 'http://169.254.169.254/',
            intervalSeconds: 59,
            degradedAfterMs: 0,
          }),
        ),
      ),
    ).toEqual(['degradedAfterMs', 'intervalSeconds', 'target']);
    expect(issuePaths(await post({ type: 'tcp', name: '', target: '10.1.2.3:22' }))).toEqual(['name', 'target']);
    // A field that failed its own checks is not judged again by a rule between fields.
    expect(issuePaths(await post(makeMonitorInput({ method: 'PUT', body: '{}' })))).toEqual(['method']);
    expect(issuePaths(await post(makeMonitorInput({ body: 5 })))).toEqual(['body']);
  });

  it('POST and PATCH: a `__proto__` header or metadata name is refused by name, not dropped', async () => {
    const raw = (body: string) =>
      request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.member))
        .set('Content-Type', 'application/json')
        .send(body);
    const res = await raw(
      '{"name":"p","target":"https://93.184.215.14/","headers":{"__proto__":"x","A":"1"},"metadata":{"__proto__":"y"}}',
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual(
      expect.arrayContaining([
        { path: 'headers.__proto__', message: expect.any(String) },
        { path: 'metadata.__proto__', message: expect.any(String) },
      ]),
    );
    expect(issuePaths(res)).toEqual(['headers.__proto__', 'metadata.__proto__']);
    const m = (await post(makeMonitorInput())).body.data;
    const upd = await request(h.app)
      .patch(`/api/v1/monitors/${m.id}`)
      .set(bearer(tokens.member))
      .set('Content-Type', 'application/json')
      .send('{"headers":{"__proto__":"x"}}');
    expect(issuePaths(upd)).toEqual(['headers.__proto__']);
    // `constructor` and `toString` are ordinary names, stored as sent.
    const ok = await raw(
      '{"name":"p","target":"https://93.184.215.14/","headers":{"toString":"1"},"metadata":{"constructor":"c"}}',
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ headerNames: ['toString'], metadata: { constructor: 'c' } });
  });

  it('an empty keyword or keywordAbsent means none: accepted and stored as null', async () => {
    const res = await post(makeMonitorInput({ keyword: '', keywordAbsent: '' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ keyword: null, keywordAbsent: null });
    const set = await patch(res.body.data.id, { keyword: 'ok', keywordAbsent: 'error' });
    expect(set.body.data).toMatchObject({ keyword: 'ok', keywordAbsent: 'error' });
    const cleared = await patch(res.body.data.id, { keyword: '', keywordAbsent: null });
    expect(cleared.body.data).toMatchObject({ keyword: null, keywordAbsent: null });
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect([row.keyword, row.keywordAbsent]).toEqual([null, null]);
  });

  it('a target whose name lookup hangs is accepted once the write-time DNS bound passes (checked again at connect time)', async () => {
    const { createSsrfGuard } = await import('@statusvane/shared');
    const { createApp } = await import('../apps/api/src/app.js');
    const asked: string[] = [];
    const guard = createSsrfGuard({
      lookup: (name) => {
        asked.push(name);
        return new Promise(() => undefined);
      },
      writeTimeLookupTimeoutMs: 200,
    });
    const app = createApp({ ...h.deps, guard });
    const started = Date.now();
    const res = await request(app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.member))
      .send(makeMonitorInput({ target: 'https://slow-dns.example/health' }));
    expect(res.status).toBe(201);
    expect(asked).toEqual(['slow-dns.example']);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('concurrent PATCHes and the rules between fields', () => {
  it('a PATCH judged on a row another PATCH has changed meanwhile is refused: no GET with a body is stored', async () => {
    const { createSsrfGuard } = await import('@statusvane/shared');
    const { createApp } = await import('../apps/api/src/app.js');
    const real = createSsrfGuard();
    // A guard that holds PATCH A after it has read the monitor and before its transaction, while PATCH B commits.
    let entered!: () => void;
    const inGuard = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const held = createApp({
      ...h.deps,
      guard: {
        ...real,
        async checkUrl(url: string) {
          entered();
          await gate;
          return real.checkUrl(url);
        },
      },
    });
    const m = (await post(makeMonitorInput({ method: 'POST' }))).body.data;
    const a = request(held)
      .patch(`/api/v1/monitors/${m.id}`)
      .set(bearer(tokens.member))
      .send({ method: 'GET', target: 'https://93.184.215.14/other' })
      .then((r) => r);
    await inGuard;
    const b = await patch(m.id, { body: 'x' });
    expect(b.status).toBe(200);
    release();
    const res = await a;
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([
      { path: 'body', message: expect.stringMatching(/needs method POST.*changed by another update/) },
    ]);
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } });
    expect(row.method).toBe('POST');
    expect(row.bodyEnc).not.toBeNull();
    expect(row.target).toBe('https://93.184.215.14/health');
  });

  it('two PATCHes sent together, each fine alone, never store a GET with a body', async () => {
    const { tokens: t } = await makeWorkspace(h.prisma);
    for (let round = 0; round < 8; round++) {
      const m = (await post(makeMonitorInput({ method: 'POST' }), t.member)).body.data;
      const [a, b] = await Promise.all([
        patch(m.id, { method: 'GET' }, t.member),
        patch(m.id, { body: 'x' }, t.member),
      ]);
      expect([a.status, b.status]).toContain(200);
      for (const r of [a, b]) expect([200, 400]).toContain(r.status);
      const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: m.id } });
      expect(row.method === 'GET' && row.bodyEnc !== null).toBe(false);
    }
  });
});

describe('limits at their boundaries, on create and on PATCH', () => {
  const L = { headersMax: 50, headerValueMax: 8192, targetMax: 2048, statusCodesMax: 100 };
  const codes = (n: number) => Array.from({ length: n }, (_, i) => 200 + (i % 400));
  const headers = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`X-H${i}`, 'v']));
  const urlOfLength = (n: number) => {
    const base = 'https://93.184.215.14/';
    return base + 'a'.repeat(n - base.length);
  };
  // [field, accepted, refused, monitor type]
  const cases: Array<[string, unknown, unknown, 'http' | 'heartbeat']> = [
    ['graceSeconds', 0, -1, 'heartbeat'],
    ['graceSeconds', 86_400, 86_401, 'heartbeat'],
    ['expectedStatusCodes', codes(L.statusCodesMax), codes(L.statusCodesMax + 1), 'http'],
    ['expectedStatusCodes', [100], [99], 'http'],
    ['expectedStatusCodes', [599], [600], 'http'],
    ['target', urlOfLength(L.targetMax), urlOfLength(L.targetMax + 1), 'http'],
    ['headers', headers(L.headersMax), headers(L.headersMax + 1), 'http'],
    ['headers', { 'X-Long': 'v'.repeat(L.headerValueMax) }, { 'X-Long': 'v'.repeat(L.headerValueMax + 1) }, 'http'],
    ['name', 'x'.repeat(120), 'x'.repeat(121), 'http'],
    ['intervalSeconds', 60, 59, 'http'],
    ['intervalSeconds', 86_400, 86_401, 'heartbeat'],
    ['timeoutMs', 1000, 999, 'http'],
    ['timeoutMs', 30_000, 30_001, 'http'],
    ['openThreshold', 10, 11, 'http'],
    ['resolveThreshold', 1, 0, 'http'],
    // The seed's range, whatever timeoutMs is (one at or above it never fires).
    ['degradedAfterMs', 60_000, 60_001, 'http'],
    ['latencyThresholdMs', 1, 0, 'http'],
    ['latencyThresholdMs', 60_000, 60_001, 'http'],
    ['keyword', 'k'.repeat(200), 'k'.repeat(201), 'http'],
    ['keywordAbsent', 'k'.repeat(200), 'k'.repeat(201), 'http'],
    ['contentType', 'c'.repeat(200), 'c'.repeat(201), 'http'],
    ['environment', 'e'.repeat(60), 'e'.repeat(61), 'http'],
    ['body', 'b'.repeat(32_768), 'b'.repeat(32_769), 'http'],
  ];
  let t: Awaited<ReturnType<typeof makeWorkspace>>['tokens'];
  beforeAll(async () => {
    // A workspace of its own: this table alone makes a few hundred requests (rate limit per token).
    t = (await makeWorkspace(h.prisma)).tokens;
  });
  const base = (type: 'http' | 'heartbeat') =>
    type === 'heartbeat' ? { type, name: 'hb' } : makeMonitorInput({ method: 'POST' });

  it('matches the limits in the schema', async () => {
    const { MONITOR_LIMITS } = await import('@statusvane/shared');
    expect(MONITOR_LIMITS).toMatchObject({ ...L, graceMin: 0, graceMax: 86_400 });
  });

  it.each(cases)('%s on create: the limit passes, one past it is 400 naming it', async (field, ok, bad, type) => {
    const good = await post({ ...base(type), [field]: ok }, t.member);
    expect(good.status).toBe(201);
    if (field === 'headers') expect(good.body.data.headerNames).toEqual(Object.keys(ok as object));
    else if (field === 'body') expect(good.body.data.hasBody).toBe(true);
    else expect(good.body.data[field]).toEqual(ok);
    const refused = await post({ ...base(type), [field]: bad }, t.member);
    expect(refused.status).toBe(400);
    expect(new Set(issuePaths(refused).map((p: string) => p.replace(/[.[].*$/, '')))).toEqual(new Set([field]));
  });

  it.each(cases)(
    '%s on PATCH: the limit passes, one past it is 400 naming it, and the stored value stays',
    async (field, ok, bad, type) => {
      const m = (await post(base(type), t.member)).body.data;
      const good = await patch(m.id, { [field]: ok }, t.member);
      expect(good.status).toBe(200);
      const refused = await patch(m.id, { [field]: bad }, t.member);
      expect(refused.status).toBe(400);
      expect(new Set(issuePaths(refused).map((p: string) => p.replace(/[.[].*$/, '')))).toEqual(new Set([field]));
      const read = await request(h.app).get(`/api/v1/monitors/${m.id}`).set(bearer(t.viewer));
      if (field === 'headers') expect(read.body.data.headerNames).toEqual(Object.keys(ok as object));
      else if (field === 'body') expect(read.body.data.hasBody).toBe(true);
      else expect(read.body.data[field]).toEqual(ok);
    },
  );
});

describe('heartbeat pings: /fail, paused monitors', () => {
  const nowJobs = async (id: string) => {
    const queue = h.deps.scheduler.queues.get('local')!;
    return (await queue.getJobs(['waiting', 'prioritized', 'delayed'])).filter((j) =>
      j.id?.startsWith(`now-${id}-local-`),
    );
  };

  it('/fail answers GET, HEAD and POST, records the failure and queues an immediate check each time', async () => {
    const hb = (await post({ type: 'heartbeat', name: 'cron' })).body.data;
    const path = new URL(hb.pingUrl).pathname;
    const queued = (await nowJobs(hb.id)).length; // the first check of a new monitor
    for (const [i, method] of (['get', 'head', 'post'] as const).entries()) {
      const before = await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } });
      await new Promise((r) => setTimeout(r, 5)); // distinct timestamps (and job ids) per ping
      const res = await request(h.app)[method](`${path}/fail`);
      expect([method, res.status, res.headers['cache-control']]).toEqual([method, 200, 'no-store']);
      const after = await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } });
      expect(after.lastPingFailAt).not.toBeNull();
      expect(after.lastPingFailAt!.getTime()).toBeGreaterThan(before.lastPingFailAt?.getTime() ?? 0);
      expect(after.lastPingAt).toBeNull();
      const jobs = await nowJobs(hb.id);
      expect(jobs).toHaveLength(queued + i + 1);
      expect(
        jobs.every((j) => j.data.monitorId === hb.id && j.data.region === 'local' && j.opts.delay === undefined),
      ).toBe(true);
    }
    // A success ping while the monitor is not steadily up (it has just failed) is judged at once too
    // (docs/adr/0014-heartbeat-deadlines.md); a steady monitor's pings queue nothing (test/worker.test.ts).
    await new Promise((r) => setTimeout(r, 5));
    await request(h.app).get(path);
    expect(await nowJobs(hb.id)).toHaveLength(queued + 4);
  });

  it("a steady heartbeat's pings are recorded and queue nothing (its deadline job judges them)", async () => {
    const hb = (await post({ type: 'heartbeat', name: 'steady cron', resolveThreshold: 2 })).body.data;
    const path = new URL(hb.pingUrl).pathname;
    // Steady: up, with resolveThreshold counted passes in its region.
    await h.prisma.monitor.update({ where: { id: hb.id }, data: { status: 'up' } });
    await h.prisma.monitorRegionState.create({ data: { monitorId: hb.id, region: 'local', consecutivePasses: 2 } });
    const queued = (await nowJobs(hb.id)).length;
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 5));
      expect((await request(h.app).get(path)).status).toBe(200);
    }
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } })).lastPingAt).not.toBeNull();
    expect(await nowJobs(hb.id)).toHaveLength(queued);
    // One pass short of resolveThreshold: not steady yet, so a ping is judged at once.
    await h.prisma.monitorRegionState.update({
      where: { monitorId_region: { monitorId: hb.id, region: 'local' } },
      data: { consecutivePasses: 1 },
    });
    expect((await request(h.app).get(path)).status).toBe(200);
    expect(await nowJobs(hb.id)).toHaveLength(queued + 1);
  });

  it('a paused heartbeat still takes pings (200, recorded), but a /fail queues no check until it is resumed', async () => {
    const hb = (await post({ type: 'heartbeat', name: 'paused cron' })).body.data;
    const path = new URL(hb.pingUrl).pathname;
    expect((await patch(hb.id, { enabled: false })).status).toBe(200);
    const queued = (await nowJobs(hb.id)).length;
    expect((await request(h.app).post(path)).status).toBe(200);
    expect((await request(h.app).get(`${path}/fail`)).status).toBe(200);
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: hb.id } });
    expect(row.lastPingAt).not.toBeNull();
    expect(row.lastPingFailAt).not.toBeNull();
    expect(await nowJobs(hb.id)).toHaveLength(queued);
  });
});

describe('the OpenAPI record schema and the mapper agree', () => {
  it('parses real monitor answers of every type and operation with monitorRecordSchema, field for field', async () => {
    const { monitorRecordSchema } = await import('../apps/api/src/services/monitors/monitor-record.js');
    const strict = monitorRecordSchema.strict();
    const documented = Object.keys(monitorRecordSchema.shape).sort();
    const http = await post(
      makeMonitorInput({
        method: 'POST',
        headers: { A: '1' },
        body: 'b',
        keyword: 'ok',
        jsonAssertion: { path: 'a', operator: 'exists' },
        metadata: { k: 'v' },
      }),
    );
    const tcp = await post({ type: 'tcp', name: 'db', target: '93.184.215.14:5432', degradedAfterMs: 100 });
    const hb = await post({ type: 'heartbeat', name: 'hb' });
    const paused = await patch(http.body.data.id, { enabled: false });
    const read = await request(h.app).get(`/api/v1/monitors/${hb.body.data.id}`).set(bearer(tokens.viewer));
    const list = await request(h.app).get('/api/v1/monitors?perPage=250').set(bearer(tokens.viewer));
    const records = [http, tcp, hb, paused, read].map((r) => r.body.data).concat(list.body.data);
    expect(records.length).toBeGreaterThan(5);
    for (const record of records) {
      const parsed = strict.safeParse(record);
      expect([record.id, parsed.success ? [] : parsed.error.issues]).toEqual([record.id, []]);
      expect(Object.keys(record).sort()).toEqual(documented);
    }
  });
});

describe('Redis failing inside the create transaction', () => {
  it('writes nothing (no component, no monitor), answers 503 and releases the Idempotency-Key', async () => {
    const { CheckScheduler, createApiRedis } = await import('@statusvane/shared');
    const { createApp } = await import('../apps/api/src/app.js');
    // The rate limiter's Redis (h.deps.redis) stays up; only the scheduler's own connection goes down (after it was
    // ready, as in an outage), so the request gets past auth and the rate limiter and fails at the upsert, inside the
    // transaction.
    const dead = createApiRedis(h.config.redis);
    dead.on('error', () => undefined);
    const scheduler = new CheckScheduler(h.config.checkRegions, dead, h.queuePrefix);
    await Promise.all([...scheduler.queues.values()].map((q) => q.waitUntilReady()));
    dead.disconnect();
    const app = createApp({ ...h.deps, scheduler });
    const { ws, tokens: t } = await makeWorkspace(h.prisma);
    try {
      const key = `dead-redis-${Date.now()}`;
      const res = await request(app)
        .post('/api/v1/monitors')
        .set(bearer(t.member))
        .set('Idempotency-Key', key)
        .send(makeMonitorInput({ name: 'never' }));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('internal');
      expect(await h.prisma.monitor.count({ where: { workspaceId: ws.id } })).toBe(0);
      expect(await h.prisma.component.count({ where: { workspaceId: ws.id } })).toBe(0);
      expect(await h.prisma.idempotencyRecord.count({ where: { workspaceId: ws.id } })).toBe(0);
      // With Redis back, the same key creates the monitor once.
      const retry = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(t.member))
        .set('Idempotency-Key', key)
        .send(makeMonitorInput({ name: 'never' }));
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await h.prisma.monitor.count({ where: { workspaceId: ws.id } })).toBe(1);
    } finally {
      // Closed over a live connection, so nothing of BullMQ's is left waiting on the dead one.
      await dead.connect().catch(() => undefined);
      await scheduler.close().catch(() => undefined);
      dead.disconnect();
    }
  });
});

describe('fields a kind of monitor does not use', () => {
  it('are null in tcp and heartbeat records: method and contentType (http only), timeoutMs (not heartbeat)', async () => {
    const http = (await post(makeMonitorInput())).body.data;
    const tcp = (await post({ type: 'tcp', name: 'db', target: '93.184.215.14:5432' })).body.data;
    const beat = (await post({ type: 'heartbeat', name: 'job', intervalSeconds: 3600 })).body.data;
    const pick = (m: Record<string, unknown>) => [m.method, m.contentType, m.timeoutMs];
    expect(pick(http)).toEqual(['GET', 'application/json', 10000]);
    expect(pick(tcp)).toEqual([null, null, 10000]);
    expect(pick(beat)).toEqual([null, null, null]);
    // The same on read.
    const read = await request(h.app).get(`/api/v1/monitors/${beat.id}`).set(bearer(tokens.viewer));
    expect(pick(read.body.data)).toEqual([null, null, null]);
  });
});
