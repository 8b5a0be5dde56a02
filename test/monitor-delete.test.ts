import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { arrangeStatusPage } from '../apps/api/src/admin/status-page-commands.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { scheduledRegions } from './support/worker-harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const create = async (body: Record<string, unknown>) => {
  const res = await request(h.app).post('/api/v1/monitors').set(bearer(ws.tokens.owner)).send(body);
  expect(res.status).toBe(201);
  return res.body.data as { id: string; componentId: string; pingUrl: string | null };
};
const del = (id: string, token = ws.tokens.admin) => request(h.app).delete(`/api/v1/monitors/${id}`).set(bearer(token));

describe('DELETE /monitors/{id}', () => {
  it('removes the monitor, its schedules, ping URL and component; keeps its incidents, resolved', async () => {
    const beat = await create({ type: 'heartbeat', name: 'Nightly', intervalSeconds: 3600 });
    const other = await create(makeMonitorInput({ name: 'Stays' }));
    const page = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(ws.tokens.owner))
      .send({ vanityUrl: uniq('del'), name: 'Page' });
    await arrangeStatusPage(h.prisma, {
      id: page.body.data.id,
      json: JSON.stringify([{ name: 'All', componentIds: [beat.componentId, other.componentId] }]),
    });
    const window = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(ws.tokens.owner))
      .send({
        title: 'w',
        startsAt: '2031-01-01T00:00:00Z',
        endsAt: '2031-01-01T01:00:00Z',
        componentIds: [beat.componentId],
      });
    expect(window.status).toBe(201);
    const open = await h.prisma.incident.create({
      data: { workspaceId: ws.ws.id, monitorId: beat.id, openMonitorId: beat.id, title: 'Nightly is down' },
    });
    const old = await h.prisma.incident.create({
      data: { workspaceId: ws.ws.id, monitorId: beat.id, title: 'old', status: 'resolved', resolvedAt: new Date() },
    });
    // A monitor that depends on it: the delete takes it out of that list.
    const child = await create(makeMonitorInput({ name: 'Child', dependsOn: [beat.id] }));
    const versions = async () => ({
      page: (await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.body.data.id } })).version,
      window: (await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: window.body.data.id } })).version,
      child: (await h.prisma.monitor.findUniqueOrThrow({ where: { id: child.id } })).version,
      other: (await h.prisma.monitor.findUniqueOrThrow({ where: { id: other.id } })).version,
    });
    const versionsBefore = await versions();
    const secret = beat.pingUrl!.split('/').pop()!;
    expect((await request(h.app).get(`/ping/${secret}`)).status).toBe(200);
    // Another heartbeat's pings stay.
    const stays = await create({ type: 'heartbeat', name: 'Hourly', intervalSeconds: 3600 });
    const staysPing = await request(h.app)
      .post(`/ping/${stays.pingUrl!.split('/').pop()!}`)
      .send('log');
    expect(staysPing.status).toBe(200);
    const pings = async (monitorId: string) => h.prisma.heartbeatPing.count({ where: { monitorId } });
    expect([await pings(beat.id), await pings(stays.id)]).toEqual([1, 1]);
    expect(await scheduledRegions(h, beat.id)).toEqual(['local']);

    // Members and viewers may not delete.
    expect((await del(beat.id, ws.tokens.member)).status).toBe(403);
    expect((await del(beat.id, ws.tokens.viewer)).status).toBe(403);

    const res = await del(beat.id);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await scheduledRegions(h, beat.id)).toEqual([]);
    expect(await scheduledRegions(h, other.id)).toEqual(['local']);
    expect((await request(h.app).get(`/ping/${secret}`)).status).toBe(404);
    // Its pings went with it (by trigger: heartbeat_pings has no foreign key); the other's did not.
    expect([await pings(beat.id), await pings(stays.id)]).toEqual([0, 1]);
    const got = await request(h.app).get(`/api/v1/monitors/${beat.id}`).set(bearer(ws.tokens.viewer));
    expect(got.status).toBe(404);
    expect((await del(beat.id)).status).toBe(404);
    expect(await h.prisma.component.findUnique({ where: { id: beat.componentId } })).toBeNull();

    const layout = await request(h.app)
      .get(`/api/v1/status-pages/${page.body.data.id}/layout`)
      .set(bearer(ws.tokens.viewer));
    expect(layout.body.data.sections).toEqual([
      expect.objectContaining({ name: 'All', components: [{ id: other.componentId, name: 'Stays' }] }),
    ]);
    const win = await request(h.app).get(`/api/v1/maintenance/${window.body.data.id}`).set(bearer(ws.tokens.viewer));
    expect(win.status).toBe(200);
    expect(JSON.stringify(win.body.data)).not.toContain(beat.componentId);
    // Each record the delete changed (the page's sections, the window's components, the child's dependsOn) is one
    // version further; a monitor it did not touch is not.
    expect(
      (await request(h.app).get(`/api/v1/monitors/${child.id}`).set(bearer(ws.tokens.viewer))).body.data.dependsOn,
    ).toEqual([]);
    expect(await versions()).toEqual({
      page: versionsBefore.page + 1,
      window: versionsBefore.window + 1,
      child: versionsBefore.child + 1,
      other: versionsBefore.other,
    });

    const kept = await h.prisma.incident.findMany({
      where: { id: { in: [open.id, old.id] } },
      orderBy: { title: 'asc' },
    });
    expect(kept).toHaveLength(2);
    const opened = kept.find((i) => i.id === open.id)!;
    expect(opened).toMatchObject({ monitorId: null, openMonitorId: null, status: 'resolved' });
    expect(opened.resolvedAt).not.toBeNull();
    expect(kept.find((i) => i.id === old.id)).toMatchObject({ monitorId: null, status: 'resolved' });
    const listed = await request(h.app).get('/api/v1/incidents').set(bearer(ws.tokens.viewer));
    expect(listed.body.data.find((i: { id: string }) => i.id === open.id)).toMatchObject({
      monitorId: null,
      status: 'resolved',
    });
  });

  it("a workspace's deletion takes its monitors' pings, and no other's", async () => {
    const other = await makeWorkspace(h.prisma);
    const beats = [];
    for (const w of [ws, other]) {
      const res = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(w.tokens.owner))
        .send({ type: 'heartbeat', name: 'Nightly', intervalSeconds: 3600 });
      expect(res.status).toBe(201);
      const beat = res.body.data as { id: string; pingUrl: string };
      expect((await request(h.app).get(`/ping/${beat.pingUrl.split('/').pop()!}/start`)).status).toBe(200);
      beats.push(beat.id);
    }
    await h.prisma.workspace.delete({ where: { id: other.ws.id } });
    expect(await h.prisma.heartbeatPing.count({ where: { monitorId: beats[1]! } })).toBe(0);
    expect(await h.prisma.heartbeatPing.count({ where: { monitorId: beats[0]! } })).toBe(1);
  });

  it('writes nothing when Redis is unreachable (503), and a malformed id is 404', async () => {
    const m = await create(makeMonitorInput());
    const down = makeHarness({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const res = await request(down.app).delete(`/api/v1/monitors/${m.id}`).set(bearer(ws.tokens.owner));
      expect(res.status).toBe(503);
      expect(await h.prisma.monitor.findUnique({ where: { id: m.id } })).not.toBeNull();
    } finally {
      await down.close();
    }
    expect((await del('not-a-uuid')).status).toBe(404);
  });
});
