import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import ICAL from 'ical.js';
import request from 'supertest';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

/** A user in two workspaces, with a personal and an OAuth token. */
async function person() {
  const a = await makeWorkspace(h.prisma);
  const b = await makeWorkspace(h.prisma);
  const user = await makeUser(h.prisma, [
    { workspace: a.ws.slug, role: 'member' },
    { workspace: b.ws.slug, role: 'viewer' },
  ]);
  const personal = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
  const oauth = (await createToken(h.prisma, { kind: 'oauth', email: user.email, workspaces: a.ws.id })).token;
  return { a, b, user, personal, oauth };
}

const put = (token: string, methods: unknown[]) =>
  request(h.app).put('/api/v1/me/contact-methods').set(bearer(token)).send({ methods });

describe('/me/contact-methods', () => {
  it('replaces and lists the caller’s own methods, secrets never shown, in any workspace', async () => {
    const p = await person();
    const res = await put(p.personal, [
      { channel: 'email', target: 'ann@example.com' },
      { channel: 'slack', target: 'https://hooks.slack.com/services/T0/B0/secret-part' },
      { channel: 'pagerduty', routingKey: 'abcdefghijklmnopqrstuvwxyz012345' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: { channel: string; display: string }) => [m.channel, m.display])).toEqual([
      ['email', 'ann@example.com'],
      ['slack', 'https://hooks.slack.com/…'],
      ['pagerduty', 'routing key …2345'],
    ]);
    expect(JSON.stringify(res.body)).not.toContain('secret-part');
    const stored = await h.prisma.contactMethod.findMany({ where: { userId: p.user.id } });
    expect(stored.map((m) => m.targetEnc).join()).not.toContain('secret-part');

    // The user belongs to two workspaces: no header needed, and a header (even a foreign one) is not read.
    const list = await request(h.app)
      .get('/api/v1/me/contact-methods')
      .set(bearer(p.personal))
      .set('X-Statusvane-Workspace', 'not-mine');
    expect([list.status, list.body.data]).toEqual([200, res.body.data]);

    // Sent again as stored, a method keeps its id; a new one gets a new id; a missing one goes.
    const again = await put(p.personal, [
      { channel: 'pagerduty', routingKey: 'abcdefghijklmnopqrstuvwxyz012345' },
      { channel: 'email', target: 'ann@example.net' },
    ]);
    expect(again.body.data[0].id).toBe(res.body.data[2].id);
    expect(again.body.data[1].id).not.toBe(res.body.data[0].id);
    expect(await h.prisma.contactMethod.count({ where: { userId: p.user.id } })).toBe(2);

    // Recorded in each of the user's workspaces.
    const events = await h.prisma.auditEvent.findMany({
      where: { resourceId: p.user.id, action: 'user.contact_methods_updated' },
    });
    expect(new Set(events.map((e) => e.workspaceId))).toEqual(new Set([p.a.ws.id, p.b.ws.id]));
  });

  it('answers 403 to an org token, lets an OAuth token read only, and refuses what escalation targets refuse', async () => {
    const p = await person();
    expect((await request(h.app).get('/api/v1/me/contact-methods').set(bearer(p.a.tokens.owner))).status).toBe(403);
    expect((await put(p.a.tokens.owner, [])).status).toBe(403);
    expect((await request(h.app).get('/api/v1/me/contact-methods').set(bearer(p.oauth))).status).toBe(200);
    expect((await put(p.oauth, [])).status).toBe(403);
    expect((await request(h.app).get('/api/v1/me/contact-methods')).status).toBe(401);

    const inward = await put(p.personal, [
      { channel: 'email', target: 'ann@example.com' },
      { channel: 'webhook', target: 'http://127.0.0.1:9/hook' },
    ]);
    expect([inward.status, inward.body.error.details.issues.map((i: { path: string }) => i.path)]).toEqual([
      400,
      ['methods[1].target'],
    ]);
    const scheduleMethod = await put(p.personal, [{ channel: 'schedule', target: p.user.id }]);
    expect(scheduleMethod.status).toBe(400);
    const extra = await request(h.app)
      .put('/api/v1/me/contact-methods')
      .set(bearer(p.personal))
      .send({ methods: [], extra: true });
    expect(extra.status).toBe(400);
    expect(await h.prisma.contactMethod.count({ where: { userId: p.user.id } })).toBe(0);
  });
});

describe('/me/calendar-token', () => {
  it("serves the caller's own shifts across their workspaces, until revoked", async () => {
    const p = await person();
    const other = await makeUser(h.prisma, [{ workspace: p.a.ws.slug, role: 'member' }]);
    const layer = {
      name: 'Daily',
      startsAt: '2026-01-01T09:00:00Z',
      rotation: { every: 1, unit: 'days' },
      handoffTime: '09:00',
    };
    for (const [w, members] of [
      [p.a, [p.user.id, other.id]],
      [p.b, [p.user.id]],
    ] as const) {
      const res = await request(h.app)
        .post('/api/v1/schedules')
        .set(bearer(w.tokens.owner))
        .send({ name: `Schedule of ${w.ws.slug}`, timezone: 'UTC', layers: [{ ...layer, members }] });
      expect(res.status).toBe(201);
    }
    expect((await request(h.app).post('/api/v1/me/calendar-token').set(bearer(p.oauth))).status).toBe(403);
    const made = await request(h.app).post('/api/v1/me/calendar-token').set(bearer(p.personal));
    expect(made.status).toBe(201);
    const path = new URL(made.body.data.url as string).pathname;
    const feed = await request(h.app).get(path);
    expect(feed.status).toBe(200);
    const events = new ICAL.Component(ICAL.parse(feed.text))
      .getAllSubcomponents('vevent')
      .map((v) => new ICAL.Event(v));
    const names = new Set(events.map((e) => e.summary));
    expect(names).toEqual(new Set([`On call: Schedule of ${p.a.ws.slug}`, `On call: Schedule of ${p.b.ws.slug}`]));
    expect(events.every((e) => e.description.includes(p.user.email))).toBe(true);

    expect((await request(h.app).delete('/api/v1/me/calendar-token').set(bearer(p.personal))).status).toBe(204);
    expect((await request(h.app).get(path)).status).toBe(404);
    expect((await request(h.app).delete('/api/v1/me/calendar-token').set(bearer(p.personal))).status).toBe(404);
  });
});
