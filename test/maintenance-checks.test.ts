import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { checkOnce as checkOnceVia, startSwitchTarget, startWorker, waitFor } from './support/worker-harness.js';

// Maintenance seen from the worker: the real check processor on a real BullMQ queue, against a local target.

let h: Harness;
let w: ReturnType<typeof startWorker>;
let target: Awaited<ReturnType<typeof startSwitchTarget>>;
beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8,::1/128' });
  w = startWorker(h);
  target = await startSwitchTarget();
});
afterAll(async () => {
  await w.close();
  await target.close();
  await h.close();
});

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const results = (monitorId: string) =>
  h.prisma.checkResult.findMany({ where: { monitorId }, orderBy: { slot: 'asc' } });
const incidents = (monitorId: string) => h.prisma.incident.findMany({ where: { monitorId } });

const checkOnce = (monitorId: string) => checkOnceVia(h, w.completed, monitorId);

describe('a component-scoped maintenance window and the checks', () => {
  it('suppresses incidents for the monitors of its components only; the others open theirs as usual', async () => {
    target.setStatus(200);
    const { tokens } = await makeWorkspace(h.prisma);
    const create = async (name: string) => {
      const res = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.owner))
        .send(makeMonitorInput({ name, target: target.url, openThreshold: 1 }));
      expect(res.status).toBe(201);
      return res.body.data as { id: string; componentId: string };
    };
    const covered = await create('Covered');
    const uncovered = await create('Uncovered');
    // Both first checks (scheduled on create) pass before anything fails.
    await waitFor(async () => (await results(covered.id)).length >= 1 && (await results(uncovered.id)).length >= 1);

    const win = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(tokens.owner))
      .send({
        title: 'Covered only',
        startsAt: iso(Date.now() - MIN),
        endsAt: iso(Date.now() + 60 * MIN),
        componentIds: [covered.componentId],
      });
    expect(win.body.data).toMatchObject({
      status: 'in_progress',
      components: [{ id: covered.componentId, name: 'Covered' }],
    });

    target.setStatus(503);
    for (let i = 0; i < 2; i++) {
      await checkOnce(covered.id);
      await checkOnce(uncovered.id);
    }
    // Checks still run and are recorded for both...
    for (const m of [covered, uncovered])
      expect((await results(m.id)).slice(-2).map((r) => r.outcome)).toEqual(['down', 'down']);
    // ...but only the monitor outside the window has an incident.
    expect(await incidents(covered.id)).toHaveLength(0);
    expect(await incidents(uncovered.id)).toHaveLength(1);

    // Completing the window lifts the suppression: the next failure of the covered monitor opens its incident.
    expect(
      (
        await request(h.app)
          .patch(`/api/v1/maintenance/${win.body.data.id}`)
          .set(bearer(tokens.owner))
          .send({ status: 'complete' })
      ).status,
    ).toBe(200);
    await checkOnce(covered.id);
    expect(await incidents(covered.id)).toHaveLength(1);
  });
});

describe('a workspace-wide maintenance window and the checks', () => {
  it('a window without components covers every monitor of its workspace, and no other workspace', async () => {
    target.setStatus(200);
    const [mine, theirs] = await Promise.all([makeWorkspace(h.prisma), makeWorkspace(h.prisma)]);
    const create = async (token: string) => {
      const res = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(token))
        .send(makeMonitorInput({ target: target.url, openThreshold: 1 }));
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    const inside = await create(mine.tokens.owner);
    const outside = await create(theirs.tokens.owner);
    await waitFor(async () => (await results(inside)).length >= 1 && (await results(outside)).length >= 1);
    const win = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(mine.tokens.owner))
      .send({ title: 'Everything', startsAt: iso(Date.now() - MIN), endsAt: iso(Date.now() + 60 * MIN) });
    expect(win.status).toBe(201);

    target.setStatus(503);
    await checkOnce(inside);
    await checkOnce(outside);
    expect((await results(inside)).at(-1)!.outcome).toBe('down');
    expect(await incidents(inside)).toHaveLength(0);
    expect(await incidents(outside)).toHaveLength(1);
  });
});
