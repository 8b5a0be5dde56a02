import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { rebuildRollups } from '@statusvane/shared';
import { makeMonitorInput } from './support/factories.js';
import {
  bearer,
  createMonitorNamed,
  maintenanceInProgress,
  makeHarness,
  makeWorkspace,
  monitorShowing,
  type Harness,
} from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
const ids: Record<string, { id: string; componentId: string }> = {};

beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
  const make = async (key: string, body: Record<string, unknown>, token = ws.tokens.owner) => {
    const res = await request(h.app).post('/api/v1/monitors').set(bearer(token)).send(body);
    expect(res.status).toBe(201);
    ids[key] = res.body.data;
  };
  await make('web', makeMonitorInput({ name: 'Checkout Web', metadata: { team: 'payments', tier: '1' } }));
  await make('api', makeMonitorInput({ name: 'Checkout API', environment: 'staging', metadata: { team: 'payments' } }));
  await make('db', { type: 'tcp', name: 'Primary DB', target: '93.184.215.14:5432', metadata: { team: 'data' } });
  await make('beat', { type: 'heartbeat', name: 'Nightly backup', intervalSeconds: 3600 });
  await make(
    'foreign',
    makeMonitorInput({ name: 'Checkout elsewhere', metadata: { team: 'payments' } }),
    other.tokens.owner,
  );
  await h.prisma.monitor.update({ where: { id: ids.web!.id }, data: { status: 'up' } });
  await h.prisma.monitor.update({ where: { id: ids.api!.id }, data: { status: 'down' } });
  await h.prisma.monitor.update({ where: { id: ids.db!.id }, data: { status: 'down', enabled: false } });
});
afterAll(async () => {
  await h.close();
});

const list = (query: string, token = ws.tokens.viewer) =>
  request(h.app).get(`/api/v1/monitors${query}`).set(bearer(token));
const names = async (query: string) => {
  const res = await list(query);
  expect([query, res.status]).toEqual([query, 200]);
  expect(res.body.pagination.total).toBe(res.body.data.length);
  return (res.body.data as Array<{ name: string }>).map((m) => m.name).sort();
};

describe('GET /monitors filters', () => {
  it('filters by each field and combines them with AND, within the workspace', async () => {
    expect(await names('')).toEqual(['Checkout API', 'Checkout Web', 'Nightly backup', 'Primary DB']);
    expect(await names('?status=down')).toEqual(['Checkout API']); // the paused one shows `paused`
    expect(await names('?status=up,down')).toEqual(['Checkout API', 'Checkout Web']);
    expect(await names('?status=pending')).toEqual(['Nightly backup']);
    expect(await names('?type=tcp,heartbeat')).toEqual(['Nightly backup', 'Primary DB']);
    expect(await names('?enabled=false')).toEqual(['Primary DB']);
    expect(await names('?enabled=true&type=http')).toEqual(['Checkout API', 'Checkout Web']);
    expect(await names('?environment=staging')).toEqual(['Checkout API']);
    expect(await names(`?componentId=${ids.beat!.componentId.toUpperCase()}`)).toEqual(['Nightly backup']);
    expect(await names('?q=CHECKOUT')).toEqual(['Checkout API', 'Checkout Web']);
    expect(await names('?q=%25')).toEqual([]); // a literal percent sign, not a wildcard
    expect(await names('?metadata.team=payments')).toEqual(['Checkout API', 'Checkout Web']);
    expect(await names('?metadata.team=payments&metadata.tier=1')).toEqual(['Checkout Web']);
    expect(await names('?metadata.team=pay')).toEqual([]);
    // The deepObject form the OpenAPI document declares (what generated clients send) is the same filter.
    expect(await names('?metadata%5Bteam%5D=payments&metadata.tier=1')).toEqual(['Checkout Web']);
    expect(await names('?metadata[team]=data')).toEqual(['Primary DB']);
    expect(await names('?metadata.team=payments&status=down&q=api&type=http&enabled=true')).toEqual(['Checkout API']);
    expect(await names('?status=down&enabled=false')).toEqual([]);
    // Pagination counts the filtered set.
    const page = await list('?q=checkout&perPage=1&page=2');
    expect(page.body.pagination).toMatchObject({ total: 2, totalPages: 2, page: 2 });
    expect(page.body.data).toHaveLength(1);
  });

  it('answers 400 naming every invalid filter, and refuses unknown parameters', async () => {
    const res = await list(
      '?status=up,asleep&type=ftp&enabled=yes&componentId=nope&q=&environment=&metadata.=x&metadata.a=1&metadata.a=2&colour=red',
    );
    expect(res.status).toBe(400);
    const paths = (res.body.error.details.issues as Array<{ path: string }>).map((i) => i.path).sort();
    expect(paths).toEqual([
      'colour',
      'componentId',
      'enabled',
      'environment',
      'metadata.',
      'metadata.a',
      'q',
      'status[1]',
      'type[0]',
    ]);
    expect((await list('?status=')).status).toBe(400);
    // `metadata` itself is only the name of the deepObject: sent as a plain value it is refused.
    expect((await list('?metadata=x')).status).toBe(400);
    expect((await list('?metadata[]=x')).status).toBe(400);
    expect((await list('?status=up&status=down')).status).toBe(400);
  });

  it('answers 400 naming the parameter for a filter given twice, in one spelling or two', async () => {
    const issuesOf = async (query: string) => {
      const res = await list(query);
      return [res.status, (res.body.error?.details?.issues ?? []) as Array<{ path: string; message: string }>] as const;
    };
    // The same metadata key in both spellings: one filter, given twice (it used to answer an empty list).
    for (const [query, path, first] of [
      ['?metadata.team=payments&metadata[team]=data', 'metadata[team]', 'metadata.team'],
      ['?metadata[team]=payments&metadata.team=payments', 'metadata.team', 'metadata[team]'],
      ['?metadata%5Bteam%5D=a&metadata.tier=1&metadata.team=b', 'metadata.team', 'metadata[team]'],
    ] as const) {
      const [status, issues] = await issuesOf(query);
      expect([status, issues]).toEqual([
        400,
        [{ path, message: `filters the same metadata key as ${first}: give it once` }],
      ]);
    }
    // One spelling twice, and every scalar or comma-list filter given twice: 400 naming it, never a silent pick.
    for (const [query, path] of [
      ['?metadata.team=payments&metadata.team=payments', 'metadata.team'],
      ['?metadata[team]=a&metadata[team]=b', 'metadata[team]'],
      ['?status=up&status=down', 'status'],
      ['?type=http&type=tcp', 'type'],
      ['?enabled=true&enabled=true', 'enabled'],
      ['?environment=a&environment=b', 'environment'],
      [`?componentId=${ids.web!.componentId}&componentId=${ids.api!.componentId}`, 'componentId'],
      ['?q=a&q=b', 'q'],
      ['?page=1&page=2', 'page'],
      ['?perPage=1&perPage=1', 'perPage'],
    ] as const) {
      const [status, issues] = await issuesOf(query);
      expect([query, status, issues.map((i) => [i.path, i.message])]).toEqual([
        query,
        400,
        [[path, 'was given more than once']],
      ]);
    }
    // Bracketed scalars are no parameters of this operation.
    for (const query of ['?status[]=up', '?q[x]=a', '?page[0]=1']) {
      const [status, issues] = await issuesOf(query);
      expect([status, issues.map((i) => i.message)]).toEqual([400, ['Unknown field']]);
    }
  });
});

/** A workspace whose monitors show every status the record knows (one under maintenance, one paused). */
async function everyStatus() {
  const w = await makeWorkspace(h.prisma);
  const made: Record<string, { id: string; componentId: string }> = {};
  for (const [name, status] of [
    ['web-10', 'up'],
    ['Web-2', 'up'],
    ['api', 'down'],
    ['search', 'degraded'],
    ['billing', 'up'],
    ['fresh', null],
    ['old job', 'down'],
  ] as const)
    made[name] = status ? await monitorShowing(h, w, name, status) : await createMonitorNamed(h, w, name);
  await h.prisma.monitor.update({ where: { id: made['old job']!.id }, data: { enabled: false } });
  await maintenanceInProgress(h, w, [made.billing!.componentId]);
  return { w, made };
}

describe('GET /monitors status, sort and GET /monitors/counts', () => {
  const namesIn = async (w: Awaited<ReturnType<typeof makeWorkspace>>, query: string) => {
    const res = await list(query, w.tokens.viewer);
    expect([query, res.status]).toEqual([query, 200]);
    return (res.body.data as Array<{ name: string; status: string }>).map((m) => m.name);
  };

  it('status filters on the status the record shows: paused, maintenance, pending and the check states', async () => {
    const { w } = await everyStatus();
    expect((await namesIn(w, '?status=paused')).sort()).toEqual(['old job']);
    expect((await namesIn(w, '?status=maintenance')).sort()).toEqual(['billing']);
    expect((await namesIn(w, '?status=pending')).sort()).toEqual(['fresh']);
    // billing's last check was up, but its record shows maintenance: not an `up` monitor.
    expect((await namesIn(w, '?status=up')).sort()).toEqual(['Web-2', 'web-10']);
    expect((await namesIn(w, '?status=maintenance,paused,down')).sort()).toEqual(['api', 'billing', 'old job']);
    const records = (await list('?status=maintenance,paused', w.tokens.viewer)).body.data as Array<{ status: string }>;
    expect(records.map((r) => r.status).sort()).toEqual(['maintenance', 'paused']);
  });

  it('sorts by name (case and digits), status (worst first) and back, ties by name, pages after sorting', async () => {
    const { w, made } = await everyStatus();
    expect(await namesIn(w, '?sort=name')).toEqual(['api', 'billing', 'fresh', 'old job', 'search', 'Web-2', 'web-10']);
    expect(await namesIn(w, '?sort=-name')).toEqual([
      'web-10',
      'Web-2',
      'search',
      'old job',
      'fresh',
      'billing',
      'api',
    ]);
    expect(await namesIn(w, '?sort=status')).toEqual([
      'api',
      'search',
      'Web-2',
      'web-10',
      'fresh',
      'billing',
      'old job',
    ]);
    // Descending reverses the key, not the ties (still by name).
    expect(await namesIn(w, '?sort=-status')).toEqual([
      'old job',
      'billing',
      'fresh',
      'Web-2',
      'web-10',
      'search',
      'api',
    ]);
    const page = await list('?sort=name&perPage=2&page=2&status=up,down,degraded', w.tokens.viewer);
    expect([page.body.pagination.total, page.body.data.map((m: { name: string }) => m.name)]).toEqual([
      4,
      ['Web-2', 'web-10'],
    ]);
    for (const bad of ['?sort=colour', '?sort=--name', '?sort=name&sort=status', '?sort='])
      expect([bad, (await list(bad, w.tokens.viewer)).status]).toEqual([bad, 400]);

    // A renamed monitor and a new one take their places at once (the name ranks kept between lists are redone).
    await request(h.app)
      .patch(`/api/v1/monitors/${made.api!.id}`)
      .set(bearer(w.tokens.owner))
      .send({ name: 'zeta' })
      .expect(200);
    await createMonitorNamed(h, w, 'Billing 2');
    expect(await namesIn(w, '?sort=name')).toEqual([
      'billing',
      'Billing 2',
      'fresh',
      'old job',
      'search',
      'Web-2',
      'web-10',
      'zeta',
    ]);
  });

  it('sorts by the last 24 hours’ uptime and average response time, monitors without data last both ways', async () => {
    const { w, made } = await everyStatus();
    const hourAgo = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
    const results = (id: string, spec: Array<[outcome: 'up' | 'down', ms: number | null]>) =>
      spec.map(([outcome, responseMs], i) => ({
        monitorId: id,
        region: 'local',
        slot: new Date(hourAgo + i * 60_000),
        checkedAt: new Date(hourAgo + i * 60_000),
        outcome,
        responseMs,
      }));
    await h.prisma.checkResult.createMany({
      data: [
        ...results(made.api!.id, [
          ['down', null],
          ['up', 300],
        ]), // 50%, 300 ms
        ...results(made.search!.id, [
          ['up', 900],
          ['up', 900],
        ]), // 100%, 900 ms
        ...results(made['Web-2']!.id, [
          ['up', 100],
          ['up', 100],
          ['up', 100],
          ['down', null],
        ]), // 75%, 100 ms
        ...results(made['web-10']!.id, [['up', 100]]), // 100%, 100 ms: ties search on uptime, Web-2 on time
      ],
    });
    for (const m of Object.values(made)) await rebuildRollups(h.prisma, m.id);
    const noData = ['billing', 'fresh', 'old job'];
    // Uptime is the accounting function's (time, not checks): the four monitors with data are older than the window,
    // api was down 12 of the 24 hours (50%), Web-2 6 (75%), search and web-10 never (100%, tied: by name). A
    // monitor created after the window's end has nothing counted: no data.
    const now = Date.now();
    const downFor = async (name: string, hours: number) =>
      h.prisma.incident.create({
        data: {
          workspaceId: w.ws.id,
          monitorId: made[name]!.id,
          title: `${name} is down`,
          status: 'resolved',
          impact: 'major',
          source: 'monitor',
          startedAt: new Date(now - (hours + 2) * 3_600_000),
          resolvedAt: new Date(now - 2 * 3_600_000),
          reason: 'status_code',
        },
      });
    for (const name of ['api', 'search', 'Web-2', 'web-10'])
      await h.prisma.monitor.update({
        where: { id: made[name]!.id },
        data: { createdAt: new Date(now - 25 * 3_600_000) },
      });
    for (const name of noData)
      await h.prisma.monitor.update({ where: { id: made[name]!.id }, data: { createdAt: new Date(now + 3_600_000) } });
    await downFor('api', 12);
    await downFor('Web-2', 6);
    expect(await namesIn(w, '?sort=uptime24h')).toEqual(['api', 'Web-2', 'search', 'web-10', ...noData]);
    expect(await namesIn(w, '?sort=-uptime24h')).toEqual(['search', 'web-10', 'Web-2', 'api', ...noData]);
    expect(await namesIn(w, '?sort=responseTime')).toEqual(['Web-2', 'web-10', 'api', 'search', ...noData]);
    expect(await namesIn(w, '?sort=-responseTime')).toEqual(['search', 'api', 'Web-2', 'web-10', ...noData]);
  });

  it('counts per status with the same filters; each count is the total GET /monitors?status= answers', async () => {
    const { w } = await everyStatus();
    const counts = async (query: string) => {
      const res = await request(h.app).get(`/api/v1/monitors/counts${query}`).set(bearer(w.tokens.viewer));
      expect([query, res.status]).toEqual([query, 200]);
      return res.body.data as Record<string, number>;
    };
    expect(await counts('')).toEqual({ up: 2, down: 1, degraded: 1, pending: 1, maintenance: 1, paused: 1, total: 7 });
    expect(await counts('?q=web')).toEqual({
      up: 2,
      down: 0,
      degraded: 0,
      pending: 0,
      maintenance: 0,
      paused: 0,
      total: 2,
    });
    expect(await counts('?status=down,paused')).toMatchObject({ up: 0, down: 1, paused: 1, maintenance: 0, total: 2 });
    for (const status of ['up', 'down', 'degraded', 'pending', 'maintenance', 'paused']) {
      const total = (await list(`?status=${status}&type=http`, w.tokens.viewer)).body.pagination.total;
      expect([status, total]).toEqual([status, (await counts('?type=http'))[status]]);
    }
    // Another workspace's monitors count nowhere; pages and order are no parameters of a count.
    expect((await counts('')).total).toBe(7);
    for (const bad of ['?page=1', '?sort=name', '?status=asleep', '?colour=red']) {
      const res = await request(h.app).get(`/api/v1/monitors/counts${bad}`).set(bearer(w.tokens.viewer));
      expect([bad, res.status]).toEqual([bad, 400]);
    }
    expect((await request(h.app).get('/api/v1/monitors/counts')).status).toBe(401);
  });
});

describe('PATCH /monitors/{id} escalationPolicyId', () => {
  it("assigns one of the workspace's policies, shows it, and clears it with null", async () => {
    const policy = await h.prisma.escalationPolicy.create({ data: { workspaceId: ws.ws.id, name: 'On call' } });
    const foreign = await h.prisma.escalationPolicy.create({ data: { workspaceId: other.ws.id, name: 'Theirs' } });
    const patch = (body: object) =>
      request(h.app).patch(`/api/v1/monitors/${ids.web!.id}`).set(bearer(ws.tokens.member)).send(body);

    expect((await list('')).body.data[0].escalationPolicyId).toBeNull();
    const set = await patch({ escalationPolicyId: policy.id.toUpperCase() });
    expect(set.status).toBe(200);
    expect(set.body.data.escalationPolicyId).toBe(policy.id);
    const got = await request(h.app).get(`/api/v1/monitors/${ids.web!.id}`).set(bearer(ws.tokens.viewer));
    expect(got.body.data.escalationPolicyId).toBe(policy.id);

    for (const bad of [foreign.id, '00000000-0000-4000-8000-000000000000', 'nope', 42]) {
      const res = await patch({ escalationPolicyId: bad, name: 'Renamed' });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['escalationPolicyId']);
    }
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: ids.web!.id } });
    expect(row).toMatchObject({ escalationPolicyId: policy.id, name: 'Checkout Web' });

    const cleared = await patch({ escalationPolicyId: null });
    expect(cleared.body.data.escalationPolicyId).toBeNull();
    // Works for every type.
    const beat = await request(h.app)
      .patch(`/api/v1/monitors/${ids.beat!.id}`)
      .set(bearer(ws.tokens.member))
      .send({ escalationPolicyId: policy.id });
    expect(beat.body.data.escalationPolicyId).toBe(policy.id);
  });
});
