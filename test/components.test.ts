import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const monitor = async (name: string, token = ws.tokens.owner) => {
  const res = await request(h.app).post('/api/v1/monitors').set(bearer(token)).send(makeMonitorInput({ name }));
  expect(res.status).toBe(201);
  return res.body.data as { id: string; componentId: string };
};
const get = (path: string) => request(h.app).get(`/api/v1${path}`).set(bearer(ws.tokens.viewer));
const patch = (id: string, body: unknown, token = ws.tokens.member) =>
  request(h.app)
    .patch(`/api/v1/components/${id}`)
    .set(bearer(token))
    .send(body as object);

describe('components', () => {
  it('lists and gets the workspace components with their public state', async () => {
    const web = await monitor('Web');
    const api = await monitor('API');
    await monitor('Theirs', other.tokens.owner);
    await h.prisma.monitor.update({ where: { id: api.id }, data: { status: 'down' } });
    const paused = await monitor('Paused');
    await h.prisma.monitor.update({ where: { id: paused.id }, data: { enabled: false } });
    await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(ws.tokens.owner))
      .send({
        title: 'now',
        startsAt: new Date(Date.now() - 60_000).toISOString(),
        endsAt: new Date(Date.now() + 3_600_000).toISOString(),
        componentIds: [web.componentId],
      })
      .expect(201);

    const list = await get('/components?perPage=2');
    expect(list.status).toBe(200);
    expect(list.body.pagination).toEqual({ page: 1, perPage: 2, total: 3, totalPages: 2 });
    expect(list.body.data).toEqual([
      { id: web.componentId, version: 1, name: 'Web', description: '', monitorId: web.id, status: 'maintenance' },
      { id: api.componentId, version: 1, name: 'API', description: '', monitorId: api.id, status: 'down' },
    ]);
    expect((await get('/components?page=2')).body.data).toEqual([]);
    expect((await get('/components?perPage=3&page=1')).body.data[2]).toMatchObject({
      name: 'Paused',
      status: 'paused',
    });
    expect((await get(`/components/${api.componentId.toUpperCase()}`)).body.data).toEqual(list.body.data[1]);
    expect((await get(`/components/${api.id}`)).status).toBe(404); // a monitor id is not a component id
  });

  it('renames and describes a component for writers only, with a 400 naming every bad field', async () => {
    const m = await monitor('Checkout');
    const res = await patch(m.componentId, { name: '  Checkout flow ', description: 'Carts and payments' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Checkout flow', description: 'Carts and payments', monitorId: m.id });
    const mon = await get(`/monitors/${m.id}`);
    expect(mon.body.data.name).toBe('Checkout'); // the monitor keeps its name
    expect((await patch(m.componentId, { description: '' })).body.data).toMatchObject({
      name: 'Checkout flow',
      description: '',
    });

    const bad = await patch(m.componentId, { name: '', description: 'x'.repeat(501), monitorId: null });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'description',
      'monitorId',
      'name',
    ]);
    expect((await patch(m.componentId, { name: 'x'.repeat(121) })).status).toBe(400);
    expect((await patch(m.componentId, { name: 'Viewer' }, ws.tokens.viewer)).status).toBe(403);
    const row = await h.prisma.component.findUniqueOrThrow({ where: { id: m.componentId } });
    expect(row).toMatchObject({ name: 'Checkout flow', description: '' });
  });
});
