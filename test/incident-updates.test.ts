// Over HTTP: incident updates, manual incidents and a status page's subscribers (the services are tested in
// incident-updates.service.test.ts); roles as beyond-the-seed.md says: writers post, any role reads, managers see
// and remove subscribers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  w = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const api = (method: 'get' | 'post' | 'delete', path: string, token: string) =>
  request(h.app)[method](`/api/v1${path}`).set(bearer(token));

async function monitorIncident() {
  const mon = await api('post', '/monitors', w.tokens.owner).send(makeMonitorInput({ name: 'API' }));
  expect(mon.status).toBe(201);
  const monitorId = mon.body.data.id as string;
  const incident = await h.prisma.incident.create({
    data: { workspaceId: w.ws.id, monitorId, openMonitorId: monitorId, title: 'API down' },
  });
  return { id: incident.id, componentId: mon.body.data.componentId as string };
}

describe('POST and GET /incidents/{id}/updates', () => {
  it('writers post (201), any role lists oldest first, a resolved update resolves the incident', async () => {
    const { id } = await monitorIncident();
    const first = await api('post', `/incidents/${id}/updates`, w.tokens.member).send({
      status: 'identified',
      message: 'A bad deploy',
    });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ incidentId: id, status: 'identified', message: 'A bad deploy' });
    const viewer = await api('post', `/incidents/${id}/updates`, w.tokens.viewer).send({
      status: 'identified',
      message: 'x',
    });
    expect([viewer.status, viewer.body.error.code]).toEqual([403, 'forbidden']);
    const resolved = await api('post', `/incidents/${id}/updates`, w.tokens.admin).send({
      status: 'resolved',
      message: 'Rolled back',
    });
    expect(resolved.status).toBe(201);
    const incident = await h.prisma.incident.findUniqueOrThrow({ where: { id } });
    expect([incident.status, incident.openMonitorId]).toEqual(['resolved', null]);
    const list = await api('get', `/incidents/${id.toUpperCase()}/updates`, w.tokens.viewer);
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: { message: string }) => u.message)).toEqual(['A bad deploy', 'Rolled back']);
  });

  it('400 naming every bad field, 404 for unknown and foreign incidents, nothing written', async () => {
    const { id } = await monitorIncident();
    const bad = await api('post', `/incidents/${id}/updates`, w.tokens.owner).send({
      status: 'fixed',
      message: '',
      x: 1,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'message',
      'status',
      'x',
    ]);
    const other = await makeWorkspace(h.prisma);
    for (const target of [id, randomUUID(), 'nope']) {
      const res = await api('post', `/incidents/${target}/updates`, other.tokens.owner).send({
        status: 'identified',
        message: 'x',
      });
      expect([target, res.status]).toEqual([target, 404]);
    }
    expect((await api('get', `/incidents/${id}/updates`, other.tokens.viewer)).status).toBe(404);
    expect(await h.prisma.incidentUpdate.count({ where: { incidentId: id } })).toBe(0);
  });

  it('replays a retry with the same Idempotency-Key: one update', async () => {
    const { id } = await monitorIncident();
    const key = randomUUID();
    const send = () =>
      api('post', `/incidents/${id}/updates`, w.tokens.owner)
        .set('Idempotency-Key', key)
        .send({ status: 'monitoring', message: 'Watching' });
    const a = await send();
    const b = await send();
    expect([a.status, b.status, b.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    expect(b.body).toEqual(a.body);
    expect(await h.prisma.incidentUpdate.count({ where: { incidentId: id } })).toBe(1);
  });
});

describe('POST /incidents', () => {
  it('opens a manual incident (201) with its components and first update; idempotent; writers only', async () => {
    const { componentId } = await monitorIncident();
    const key = randomUUID();
    const body = { title: 'Email delays', impact: 'minor', componentIds: [componentId], message: 'Mail is slow' };
    const send = (token: string) => api('post', '/incidents', token).set('Idempotency-Key', key).send(body);
    const created = await send(w.tokens.member);
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      title: 'Email delays',
      impact: 'minor',
      source: 'manual',
      status: 'open',
      monitorId: null,
      componentIds: [componentId],
    });
    const again = await send(w.tokens.member);
    expect([again.status, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', created.body]);
    expect(await h.prisma.incident.count({ where: { workspaceId: w.ws.id, title: 'Email delays' } })).toBe(1);
    const updates = await api('get', `/incidents/${created.body.data.id}/updates`, w.tokens.viewer);
    expect(updates.body.data.map((u: { status: string; message: string }) => [u.status, u.message])).toEqual([
      ['investigating', 'Mail is slow'],
    ]);
    expect((await api('post', '/incidents', w.tokens.viewer).send({ title: 'x' })).status).toBe(403);
    // One 400 names every offending field, the schema's and the database's alike, and writes nothing.
    const count = () => h.prisma.incident.count({ where: { workspaceId: w.ws.id } });
    const before = await count();
    const bad = await api('post', '/incidents', w.tokens.owner).send({
      title: '',
      impact: 'huge',
      componentIds: [randomUUID(), componentId, componentId],
    });
    expect([bad.status, bad.body.error.details.issues.map((i: { path: string }) => i.path)]).toEqual([
      400,
      ['title', 'impact', 'componentIds[0]', 'componentIds[2]'],
    ]);
    expect(await count()).toBe(before);
    const defaults = await api('post', '/incidents', w.tokens.owner).send({ title: uniq('whole') });
    expect([defaults.status, defaults.body.data.impact, defaults.body.data.componentIds]).toEqual([201, 'major', []]);
  });
});

describe('GET and DELETE /status-pages/{id}/subscribers', () => {
  it('managers list masked and remove (204); members 403; foreign 404', async () => {
    const page = (await api('post', '/status-pages', w.tokens.owner).send({ vanityUrl: uniq('s'), name: 'S' })).body
      .data as { id: string; slug: string };
    const addr = `${uniq('jane')}@example.test`;
    expect((await request(h.app).post(`/status/${page.slug}/subscribe`).send({ email: addr })).status).toBe(202);
    const list = await api('get', `/status-pages/${page.id}/subscribers?perPage=10`, w.tokens.admin);
    expect(list.status).toBe(200);
    expect(list.body.pagination).toMatchObject({ page: 1, perPage: 10, total: 1 });
    expect(list.body.data[0]).toMatchObject({ kind: 'email', address: `${addr[0]}***@example.test`, confirmed: false });
    expect(list.text).not.toContain(addr);
    const subscriberId = list.body.data[0].id as string;
    for (const token of [w.tokens.member, w.tokens.viewer]) {
      expect((await api('get', `/status-pages/${page.id}/subscribers`, token)).status).toBe(403);
      expect((await api('delete', `/status-pages/${page.id}/subscribers/${subscriberId}`, token)).status).toBe(403);
    }
    expect((await api('get', `/status-pages/${page.id}/subscribers?sort=x`, w.tokens.admin)).status).toBe(400);
    const other = await makeWorkspace(h.prisma);
    expect((await api('get', `/status-pages/${page.id}/subscribers`, other.tokens.owner)).status).toBe(404);
    expect(
      (await api('delete', `/status-pages/${page.id}/subscribers/${subscriberId}`, other.tokens.owner)).status,
    ).toBe(404);
    const del = await api(
      'delete',
      `/status-pages/${page.id}/subscribers/${subscriberId.toUpperCase()}`,
      w.tokens.owner,
    );
    expect([del.status, del.text]).toEqual([204, '']);
    expect((await api('delete', `/status-pages/${page.id}/subscribers/${subscriberId}`, w.tokens.owner)).status).toBe(
      404,
    );
    expect((await api('get', `/status-pages/${page.id}/subscribers`, w.tokens.admin)).body.pagination.total).toBe(0);
  });
});
