// Services behind the management endpoints of issue 17 (routes are declared elsewhere): incident updates, manual
// incidents, and a status page's subscribers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { incidentUpdateInputSchema, manualIncidentInputSchema, parseOrThrow } from '@statusvane/shared';
import type { ServiceContext } from '../apps/api/src/services/context.js';
import { createIncidentUpdate as createUpdate } from '../apps/api/src/services/incidents/create-incident-update.js';
import {
  createManualIncident as createManual,
  manualIncidentChecks,
} from '../apps/api/src/services/incidents/create-manual-incident.js';
import { listIncidentUpdates as listUpdates } from '../apps/api/src/services/incidents/list-incident-updates.js';
import { deleteSubscriber as deleteSub } from '../apps/api/src/services/subscribers/delete-subscriber.js';
import { listSubscribers as listSubs } from '../apps/api/src/services/subscribers/list-subscribers.js';
import { maskEmail } from '../apps/api/src/services/subscribers/subscriber-record.js';
import { judgeInput } from '../apps/api/src/services/validation.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, serviceCtx, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;
const ctxOf = (w: Workspace, role: ServiceContext['role']): ServiceContext => serviceCtx(w.ws, role);

// The routes parse bodies with the shared schemas before calling the services; these adapters do the same.
const createIncidentUpdate = async (
  _prisma: unknown,
  a: { ctx: ServiceContext; id: string; body: unknown; now?: Date },
) =>
  createUpdate(h.deps, {
    ctx: { ...a.ctx, now: a.now ?? a.ctx.now },
    input: { id: a.id, update: parseOrThrow(incidentUpdateInputSchema, a.body) },
  });
const listIncidentUpdates = async (_prisma: unknown, a: { ctx: ServiceContext; id: string }) =>
  listUpdates(h.deps, { ctx: a.ctx, input: { id: a.id } });
const createManualIncident = async (_prisma: unknown, a: { ctx: ServiceContext; body: unknown }) =>
  createManual(h.deps, {
    ctx: a.ctx,
    input: await judgeInput(manualIncidentInputSchema, manualIncidentChecks, h.deps, a, a.body),
  });
const listSubscribers = async (
  _prisma: unknown,
  a: { ctx: ServiceContext; statusPageId: string; query: { page: number; perPage: number } },
) => listSubs(h.deps, { ctx: a.ctx, input: { id: a.statusPageId, query: a.query } });
const deleteSubscriber = async (
  _prisma: unknown,
  a: { ctx: ServiceContext; statusPageId: string; subscriberId: string },
) => deleteSub(h.deps, { ctx: a.ctx, input: { id: a.statusPageId, subscriberId: a.subscriberId } });

async function withMonitorIncident() {
  const w = await makeWorkspace(h.prisma);
  const mon = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .send(makeMonitorInput({ name: 'API' }));
  const monitorId = mon.body.data.id as string;
  const incident = await h.prisma.incident.create({
    data: { workspaceId: w.ws.id, monitorId, openMonitorId: monitorId, title: 'API down' },
  });
  return { w, incident, monitorId, componentId: mon.body.data.componentId as string };
}

describe('incident updates', () => {
  it('writers post updates (oldest first when listed); a resolved update resolves the incident', async () => {
    const { w, incident, monitorId } = await withMonitorIncident();
    const ctx = ctxOf(w, 'member');
    const t = Date.now();
    const a = await createIncidentUpdate(h.prisma, {
      ctx,
      id: incident.id,
      body: { status: 'identified', message: '  A bad deploy  ' },
      now: new Date(t),
    });
    expect(a).toMatchObject({ incidentId: incident.id, status: 'identified', message: 'A bad deploy' });
    await createIncidentUpdate(h.prisma, {
      ctx,
      id: incident.id,
      body: { status: 'resolved', message: 'Rolled back' },
      now: new Date(t + 1000),
    });
    const row = await h.prisma.incident.findUniqueOrThrow({ where: { id: incident.id } });
    expect([row.status, row.openMonitorId, row.resolvedAt?.getTime()]).toEqual(['resolved', null, t + 1000]);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitorId } })).consecutiveFailures).toBe(0);
    // A later note does not reopen it.
    await createIncidentUpdate(h.prisma, {
      ctx,
      id: incident.id,
      body: { status: 'monitoring', message: 'Watching' },
      now: new Date(t + 2000),
    });
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: incident.id } })).status).toBe('resolved');
    const list = await listIncidentUpdates(h.prisma, { ctx: ctxOf(w, 'viewer'), id: incident.id });
    expect(list.map((u) => u.status)).toEqual(['identified', 'resolved', 'monitoring']);
  });

  it('403 for viewers, 404 for foreign or malformed ids, 400 naming every bad field', async () => {
    const { w, incident } = await withMonitorIncident();
    const other = await makeWorkspace(h.prisma);
    const body = { status: 'identified', message: 'x' };
    await expect(
      createIncidentUpdate(h.prisma, { ctx: ctxOf(w, 'viewer'), id: incident.id, body }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    for (const id of [incident.id, 'nope'])
      await expect(createIncidentUpdate(h.prisma, { ctx: ctxOf(other, 'owner'), id, body })).rejects.toMatchObject({
        code: 'not_found',
      });
    await expect(listIncidentUpdates(h.prisma, { ctx: ctxOf(other, 'owner'), id: incident.id })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      createIncidentUpdate(h.prisma, {
        ctx: ctxOf(w, 'owner'),
        id: incident.id,
        body: { status: 'fixed', message: '', extra: 1 },
      }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: {
        issues: expect.arrayContaining([
          expect.objectContaining({ path: 'status' }),
          expect.objectContaining({ path: 'message' }),
          expect.objectContaining({ path: 'extra' }),
        ]),
      },
    });
    await expect(
      createIncidentUpdate(h.prisma, {
        ctx: ctxOf(w, 'owner'),
        id: incident.id,
        body: { status: 'identified', message: 'x'.repeat(5001) },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await h.prisma.incidentUpdate.count({ where: { incidentId: incident.id } })).toBe(0);
  });
});

describe('manual incidents', () => {
  it('source manual, the named components, the message as the first update; shown on the public page', async () => {
    const { w, componentId } = await withMonitorIncident();
    const rec = await createManualIncident(h.prisma, {
      ctx: ctxOf(w, 'member'),
      body: { title: 'Email delays', componentIds: [componentId.toUpperCase()], message: 'Mail is slow' },
    });
    expect(rec).toMatchObject({
      source: 'manual',
      impact: 'major',
      status: 'open',
      monitorId: null,
      componentIds: [componentId],
    });
    expect(
      (await listIncidentUpdates(h.prisma, { ctx: ctxOf(w, 'viewer'), id: rec.id })).map((u) => [u.status, u.message]),
    ).toEqual([['investigating', 'Mail is slow']]);
    const page = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(w.tokens.owner))
      .send({ vanityUrl: uniq('m'), name: 'M' });
    const d = (await request(h.app).get(`/status/${page.body.data.slug}`).set('Accept', 'application/json')).body.data;
    expect(d.incidents.find((i: { id: string }) => i.id === rec.id)).toMatchObject({
      components: [{ id: componentId, name: 'API' }],
      updates: [expect.objectContaining({ message: 'Mail is slow' })],
    });
  });

  it('400 on unknown, foreign and repeated components; nothing written', async () => {
    const { w, componentId } = await withMonitorIncident();
    const other = await withMonitorIncident();
    const before = await h.prisma.incident.count({ where: { workspaceId: w.ws.id } });
    await expect(
      createManualIncident(h.prisma, {
        ctx: ctxOf(w, 'owner'),
        body: {
          title: 'X',
          componentIds: [componentId, other.componentId, componentId, '00000000-0000-4000-8000-000000000000'],
        },
      }),
    ).rejects.toMatchObject({
      details: {
        issues: [
          { path: 'componentIds[1]', message: expect.any(String) },
          { path: 'componentIds[2]', message: 'is listed twice' },
          { path: 'componentIds[3]', message: expect.any(String) },
        ],
      },
    });
    await expect(
      createManualIncident(h.prisma, { ctx: ctxOf(w, 'owner'), body: { title: '', impact: 'huge' } }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(
      createManualIncident(h.prisma, { ctx: ctxOf(w, 'viewer'), body: { title: 'X' } }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    expect(await h.prisma.incident.count({ where: { workspaceId: w.ws.id } })).toBe(before);
  });
});

describe('subscribers of a status page (managers)', () => {
  it('lists masked, newest first; deletes; 403 for members, 404 for foreign pages and subscribers', async () => {
    const w = await makeWorkspace(h.prisma);
    const page = (
      await request(h.app)
        .post('/api/v1/status-pages')
        .set(bearer(w.tokens.owner))
        .send({ vanityUrl: uniq('s'), name: 'S' })
    ).body.data as { id: string; slug: string };
    const addr = `${uniq('jane')}@example.test`;
    expect((await request(h.app).post(`/status/${page.slug}/subscribe`).send({ email: addr })).status).toBe(202);
    const ctx = ctxOf(w, 'admin');
    const q = { page: 1, perPage: 25 };
    const list = await listSubscribers(h.prisma, { ctx, statusPageId: page.id, query: q });
    expect(list.pagination.total).toBe(1);
    expect(list.data[0]).toMatchObject({ kind: 'email', address: maskEmail(addr), confirmed: false, componentIds: [] });
    expect(JSON.stringify(list)).not.toContain(addr);
    expect(maskEmail('jane@example.test')).toBe('j***@example.test');
    await expect(
      listSubscribers(h.prisma, { ctx: ctxOf(w, 'member'), statusPageId: page.id, query: q }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    const other = await makeWorkspace(h.prisma);
    await expect(
      listSubscribers(h.prisma, { ctx: ctxOf(other, 'owner'), statusPageId: page.id, query: q }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const id = list.data[0]!.id as string;
    await expect(
      deleteSubscriber(h.prisma, { ctx: ctxOf(other, 'owner'), statusPageId: page.id, subscriberId: id }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await deleteSubscriber(h.prisma, { ctx, statusPageId: page.id, subscriberId: id });
    await expect(deleteSubscriber(h.prisma, { ctx, statusPageId: page.id, subscriberId: id })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await listSubscribers(h.prisma, { ctx, statusPageId: page.id, query: q })).pagination.total).toBe(0);
  });
});
