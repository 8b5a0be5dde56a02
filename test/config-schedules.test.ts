/**
 * On-call schedules as code (issue 31): `schedules` in the workspace document, planned, applied, exported and pruned
 * like the other managed resources, judged by POST /schedules' rules at their path in the document.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

async function team() {
  const w = await makeWorkspace(h.prisma);
  const ann = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
  const bob = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
  const send = (path: string, doc: unknown) =>
    request(h.app)
      .post(`/api/v1/config/${path}`)
      .set(bearer(w.tokens.admin))
      .send(doc as object);
  return { ...w, ann, bob, plan: (doc: unknown) => send('plan', doc), apply: (doc: unknown) => send('apply', doc) };
}

const documentOf = (t: { ann: { id: string }; bob: { id: string } }, every = 1) => ({
  version: 1,
  schedules: [
    {
      ref: 'platform',
      name: 'Platform',
      timezone: 'Europe/Berlin',
      fallbackUserId: t.ann.id,
      layers: [
        {
          name: 'Weekly',
          startsAt: '2026-01-05T09:00:00+01:00',
          rotation: { every, unit: 'weeks' },
          handoffTime: '09:00',
          members: [t.ann.id, t.bob.id],
        },
      ],
    },
  ],
});
type Change = { action: string; resourceType: string; ref: string; id: string | null; fields?: object };
const actions = (res: request.Response) =>
  (res.body.data.changes as Change[]).map((c) => `${c.action} ${c.resourceType} ${c.ref}`);

describe('schedules in the workspace document', () => {
  it('creates a schedule with its ref, then has only noop; GET /config planned back changes nothing', async () => {
    const t = await team();
    const planned = await t.plan(documentOf(t));
    expect(planned.status).toBe(200);
    expect(actions(planned)).toEqual(['create schedule platform']);
    expect(await h.prisma.schedule.count({ where: { workspaceId: t.ws.id } })).toBe(0);
    const applied = await t.apply(documentOf(t));
    expect(applied.status).toBe(200);
    const id = (applied.body.data.changes as Change[])[0]!.id!;
    const stored = await request(h.app).get(`/api/v1/schedules/${id}`).set(bearer(t.tokens.viewer));
    expect(stored.body.data).toMatchObject({ ref: 'platform', name: 'Platform', fallbackUserId: t.ann.id });
    expect(stored.body.data.layers[0]).toMatchObject({ startsAt: '2026-01-05T08:00:00.000Z', restrictions: [] });
    const audit = await h.prisma.auditEvent.findFirst({ where: { resourceId: id, action: 'schedule.created' } });
    expect(audit).not.toBeNull();
    expect(actions(await t.apply(documentOf(t)))).toEqual(['noop schedule platform']);

    const exported = await request(h.app).get('/api/v1/config').set(bearer(t.tokens.admin));
    // As written, but for the instant in UTC.
    const [written] = documentOf(t).schedules;
    expect(exported.body.data.schedules).toEqual([
      { ...written, layers: [{ ...written!.layers[0], startsAt: '2026-01-05T08:00:00.000Z' }] },
    ]);
    expect((await t.plan(exported.body.data)).body.data.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
  });

  it('updates what changed (the version grows, audited), and prunes a schedule the document no longer names', async () => {
    const t = await team();
    const id = ((await t.apply(documentOf(t))).body.data.changes as Change[])[0]!.id!;
    const before = (await request(h.app).get(`/api/v1/schedules/${id}`).set(bearer(t.tokens.viewer))).body.data;
    const changed = await t.apply(documentOf(t, 2));
    expect(changed.status).toBe(200);
    const change = (changed.body.data.changes as Change[])[0]!;
    expect(change).toMatchObject({ action: 'update', id, fields: { layers: expect.any(Object) } });
    expect(Object.keys(change.fields!)).toEqual(['layers']);
    const after = (await request(h.app).get(`/api/v1/schedules/${id}`).set(bearer(t.tokens.viewer))).body.data;
    expect(after.layers[0].rotation).toEqual({ every: 2, unit: 'weeks' });
    expect(after.version).toBe(before.version + 1);
    expect(await h.prisma.auditEvent.count({ where: { resourceId: id, action: 'schedule.updated' } })).toBe(1);

    // An unmanaged schedule is never touched by prune.
    const own = await request(h.app)
      .post('/api/v1/schedules')
      .set(bearer(t.tokens.admin))
      .send({ ...documentOf(t).schedules[0], ref: undefined, name: 'Hand-made' });
    expect(own.status).toBe(201);
    const pruned = await t.apply({ version: 1, prune: true, schedules: [] });
    expect(actions(pruned)).toEqual(['delete schedule platform']);
    expect(await h.prisma.schedule.findMany({ where: { workspaceId: t.ws.id }, select: { name: true } })).toEqual([
      { name: 'Hand-made' },
    ]);
  });

  it('refuses to prune a schedule a live policy pages (409, nothing written)', async () => {
    const t = await team();
    const id = ((await t.apply(documentOf(t))).body.data.changes as Change[])[0]!.id!;
    const policy = await request(h.app)
      .post('/api/v1/escalation-policies')
      .set(bearer(t.tokens.admin))
      .send({ name: 'Paging', steps: [{ delayMinutes: 0, targets: [{ channel: 'schedule', target: id }] }] });
    expect(policy.status).toBe(201);
    const pruned = await t.apply({ version: 1, prune: true, schedules: [] });
    expect(pruned.status).toBe(409);
    expect(pruned.body.error.message).toContain('"Paging"');
    expect(await h.prisma.schedule.count({ where: { id } })).toBe(1);
  });

  it('judges each entry by POST /schedules’ rules at its path in the document', async () => {
    const t = await team();
    const outsider = await makeUser(h.prisma, []);
    const doc = documentOf(t);
    const bad = {
      version: 1,
      schedules: [
        { ...doc.schedules[0], timezone: 'Mars/Olympus' },
        { ...doc.schedules[0], ref: 'second', layers: [{ ...doc.schedules[0]!.layers[0], members: [outsider.id] }] },
        { ...doc.schedules[0], ref: 'second' },
      ],
    };
    const res = await t.plan(bad);
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([
      { path: 'schedules[2].ref', message: 'duplicate ref "second" (also schedules[1])' },
      { path: 'schedules[0].timezone', message: 'must be an IANA timezone such as Europe/Berlin' },
    ]);
    const notMember = await t.plan({ version: 1, schedules: [bad.schedules[1]] });
    expect(notMember.status).toBe(400);
    expect(notMember.body.error.details.issues).toEqual([
      { path: 'schedules[0].layers[0].members[0]', message: 'is not a member of this workspace' },
    ]);
  });
});
