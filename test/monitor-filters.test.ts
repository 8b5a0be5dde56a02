import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

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
      '?status=up,paused&type=ftp&enabled=yes&componentId=nope&q=&environment=&metadata.=x&metadata.a=1&metadata.a=2&colour=red',
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
