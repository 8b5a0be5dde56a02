// Who acknowledged an incident (`acknowledgedBy`): the audit actor of the acknowledging write, stored with the
// incident and shown on every read of it (record, list, ack answer), for an org token and for a user's own token;
// null until acknowledged; the first acknowledger stays when a second one acknowledges again.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

async function openIncident(w: Awaited<ReturnType<typeof makeWorkspace>>, title: string) {
  const res = await request(h.app).post('/api/v1/incidents').set(bearer(w.tokens.member)).send({ title });
  expect(res.status).toBe(201);
  expect(res.body.data.acknowledgedBy).toBeNull();
  return res.body.data.id as string;
}

describe('acknowledgedBy', () => {
  it('names the org token that acknowledged, on the answer, the record and the list; a second ack keeps it', async () => {
    const w = await makeWorkspace(h.prisma);
    const id = await openIncident(w, 'Checkout slow');
    const token = await h.prisma.apiToken.findFirstOrThrow({ where: { workspaceId: w.ws.id, role: 'member' } });
    const ack = await request(h.app).post(`/api/v1/incidents/${id}/acknowledge`).set(bearer(w.tokens.member));
    expect(ack.status).toBe(200);
    const by = { type: 'token', id: token.id, name: token.name ?? token.displayPrefix };
    expect(ack.body.data).toMatchObject({ status: 'acknowledged', acknowledgedBy: by });
    const again = await request(h.app).post(`/api/v1/incidents/${id}/acknowledge`).set(bearer(w.tokens.admin));
    expect(again.body.data.acknowledgedBy).toEqual(by);
    const got = await request(h.app).get(`/api/v1/incidents/${id}`).set(bearer(w.tokens.viewer));
    expect(got.body.data.acknowledgedBy).toEqual(by);
    const list = await request(h.app).get('/api/v1/incidents').set(bearer(w.tokens.viewer));
    expect(list.body.data.find((i: { id: string }) => i.id === id).acknowledgedBy).toEqual(by);
    // Resolving keeps who acknowledged.
    const resolved = await request(h.app).post(`/api/v1/incidents/${id}/resolve`).set(bearer(w.tokens.member));
    expect(resolved.body.data).toMatchObject({ status: 'resolved', acknowledgedBy: by });
    // The audit event of the ack names the same actor.
    const audit = await h.prisma.auditEvent.findFirstOrThrow({
      where: { workspaceId: w.ws.id, resourceId: id, action: 'incident.acknowledged' },
    });
    expect([audit.actorType, audit.actorId, audit.actorName]).toEqual([by.type, by.id, by.name]);
  });

  it('names the user of a personal token by their name, else their email; resolving unacknowledged leaves it null', async () => {
    const w = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
    const personal = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
    const id = await openIncident(w, 'Search down');
    const ack = await request(h.app).post(`/api/v1/incidents/${id}/acknowledge`).set(bearer(personal));
    expect(ack.body.data.acknowledgedBy).toEqual({ type: 'user', id: user.id, name: user.email });

    await h.prisma.user.update({ where: { id: user.id }, data: { name: 'Grace Hopper' } });
    const second = await openIncident(w, 'Queue backlog');
    const named = await request(h.app).post(`/api/v1/incidents/${second}/acknowledge`).set(bearer(personal));
    expect(named.body.data.acknowledgedBy).toEqual({ type: 'user', id: user.id, name: 'Grace Hopper' });
    // The name is kept as it was when they acknowledged.
    await h.prisma.user.update({ where: { id: user.id }, data: { name: 'G. Hopper' } });
    const read = await request(h.app).get(`/api/v1/incidents/${second}`).set(bearer(w.tokens.viewer));
    expect(read.body.data.acknowledgedBy.name).toBe('Grace Hopper');

    const third = await openIncident(w, 'Straight to resolved');
    const resolved = await request(h.app).post(`/api/v1/incidents/${third}/resolve`).set(bearer(w.tokens.member));
    expect(resolved.body.data).toMatchObject({ status: 'resolved', acknowledgedAt: null, acknowledgedBy: null });
  });
});
