import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import ICAL from 'ical.js';
import request from 'supertest';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness({ PUBLIC_BASE_URL: 'https://status.example.test' });
});
afterAll(() => h.close());

const api = () => request(h.app);

/** A workspace with three members (Ann, Bob, Cat) and a personal token for Bob (a member). */
async function team() {
  const w = await makeWorkspace(h.prisma);
  const ann = await makeUser(h.prisma, [{ workspace: w.ws.slug, role: 'member' }]);
  const bob = await makeUser(h.prisma, [{ workspace: w.ws.slug, role: 'member' }]);
  const cat = await makeUser(h.prisma, [{ workspace: w.ws.slug, role: 'admin' }]);
  const bobToken = (await createToken(h.prisma, { kind: 'personal', email: bob.email })).token;
  return { ...w, ann, bob, cat, bobToken };
}

/** Weekly Ann then Bob from Monday 2026-03-23 09:00 Berlin, Cat on weekday nights from 22:00 to 07:00. */
const weeklyBody = (t: Awaited<ReturnType<typeof team>>) => ({
  name: 'Platform',
  timezone: 'Europe/Berlin',
  fallbackUserId: t.cat.id,
  layers: [
    {
      name: 'Weekly',
      startsAt: '2026-03-23T09:00:00+01:00',
      rotation: { every: 1, unit: 'weeks' },
      handoffTime: '09:00',
      members: [t.ann.id, t.bob.id],
    },
    {
      name: 'Nights',
      startsAt: '2026-03-23T09:00:00+01:00',
      rotation: { every: 1, unit: 'days' },
      handoffTime: '09:00',
      members: [t.cat.id],
      restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '22:00', to: '07:00' }],
    },
  ],
});

async function created(t: Awaited<ReturnType<typeof team>>, body: object = weeklyBody(t)) {
  const res = await api().post('/api/v1/schedules').set(bearer(t.tokens.admin)).send(body);
  expect(res.status).toBe(201);
  return res.body.data as { id: string; version: number; layers: Array<{ id: string }> };
}

describe('schedules', () => {
  it('creates, reads, updates with If-Match and deletes a schedule, each write audited', async () => {
    const t = await team();
    const s = await created(t);
    expect(s).toMatchObject({
      name: 'Platform',
      timezone: 'Europe/Berlin',
      fallbackUserId: t.cat.id,
      ref: null,
      version: 1,
      calendarFeed: false,
      layers: [
        {
          name: 'Weekly',
          startsAt: '2026-03-23T08:00:00.000Z',
          rotation: { every: 1, unit: 'weeks' },
          restrictions: [],
        },
        { name: 'Nights', restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '22:00', to: '07:00' }] },
      ],
    });
    const got = await api().get(`/api/v1/schedules/${s.id}`).set(bearer(t.tokens.viewer));
    expect([got.status, got.headers.etag]).toEqual([200, '"1"']);
    const list = await api().get('/api/v1/schedules').set(bearer(t.tokens.viewer));
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([s.id]);

    const stale = await api()
      .patch(`/api/v1/schedules/${s.id}`)
      .set(bearer(t.tokens.admin))
      .set('If-Match', '"7"')
      .send({ name: 'Renamed' });
    expect([stale.status, stale.body.error.code]).toEqual([412, 'precondition_failed']);
    const renamed = await api()
      .patch(`/api/v1/schedules/${s.id}`)
      .set(bearer(t.tokens.admin))
      .set('If-Match', '"1"')
      .send({ name: 'Renamed' });
    expect([renamed.status, renamed.body.data.name, renamed.body.data.version]).toEqual([200, 'Renamed', 2]);
    // The same layers sent again change nothing (layer ids are new, what they say is not).
    const same = await api()
      .patch(`/api/v1/schedules/${s.id}`)
      .set(bearer(t.tokens.admin))
      .send({ layers: weeklyBody(t).layers });
    expect(same.body.data.version).toBe(2);

    expect((await api().delete(`/api/v1/schedules/${s.id}`).set(bearer(t.tokens.member))).status).toBe(403);
    expect((await api().delete(`/api/v1/schedules/${s.id}`).set(bearer(t.tokens.admin))).status).toBe(204);
    expect((await api().get(`/api/v1/schedules/${s.id}`).set(bearer(t.tokens.admin))).status).toBe(404);
    const audit = await api().get(`/api/v1/audit-events?resourceId=${s.id}`).set(bearer(t.tokens.owner));
    expect(audit.body.data.map((e: { action: string }) => e.action).reverse()).toEqual([
      'schedule.created',
      'schedule.updated',
      'schedule.deleted',
    ]);
  });

  it('refuses what the contract refuses: 400 for bad bodies, 403 for roles, 404 across workspaces', async () => {
    const t = await team();
    const other = await team();
    const stranger = await makeUser(h.prisma, []);
    const post = (body: object, token = t.tokens.admin) =>
      api().post('/api/v1/schedules').set(bearer(token)).send(body);
    const body = weeklyBody(t);
    expect((await post(body, t.tokens.member)).status).toBe(403);
    const bad = await post({
      ...body,
      timezone: 'Mars/Olympus',
      extra: 1,
      layers: [{ ...body.layers[0], handoffTime: '25:00', members: [stranger.id] }],
    });
    expect(bad.status).toBe(400);
    const paths = bad.body.error.details.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['timezone', 'layers[0].handoffTime']));
    const foreign = await post({ ...body, layers: [{ ...body.layers[0], members: [stranger.id] }] });
    expect([foreign.status, foreign.body.error.details.issues]).toEqual([
      400,
      [{ path: 'layers[0].members[0]', message: 'is not a member of this workspace' }],
    ]);
    const s = await created(t);
    for (const path of [`/schedules/${s.id}`, `/schedules/${s.id}/oncall`, `/schedules/${s.id}/shifts`]) {
      expect((await api().get(`/api/v1${path}`).set(bearer(other.tokens.owner))).status).toBe(404);
    }
    const tooLong = await api()
      .get(`/api/v1/schedules/${s.id}/shifts?from=2026-03-01T00:00:00Z&to=2026-06-01T00:00:00Z`)
      .set(bearer(t.tokens.viewer));
    expect([tooLong.status, tooLong.body.error.details.issues[0].path]).toEqual([400, 'to']);
    const unknown = await api().get(`/api/v1/schedules/${s.id}/oncall?when=now`).set(bearer(t.tokens.viewer));
    expect(unknown.status).toBe(400);
  });

  it('answers who is on call and the shifts, across the spring daylight-saving change', async () => {
    const t = await team();
    const s = await created(t);
    const at = async (instant: string) =>
      (await api().get(`/api/v1/schedules/${s.id}/oncall?at=${instant}`).set(bearer(t.tokens.viewer))).body.data;
    expect(await at('2026-03-24T12:00:00Z')).toMatchObject({
      user: { id: t.ann.id, email: t.ann.email },
      layer: { id: s.layers[0]!.id, name: 'Weekly' },
      override: null,
      from: '2026-03-24T06:00:00.000Z', // Cat's night ended at 07:00 Berlin
      to: '2026-03-24T21:00:00.000Z',
    });
    expect((await at('2026-03-24T22:00:00Z')).user.id).toBe(t.cat.id);
    // After the change Berlin is UTC+2: the weekly handoff at 09:00 is 07:00Z.
    expect((await at('2026-03-30T07:30:00Z')).user.id).toBe(t.bob.id);
    expect(await at('2026-03-20T00:00:00Z')).toMatchObject({ user: null, layer: null, from: null });

    const shifts = await api()
      .get(`/api/v1/schedules/${s.id}/shifts?from=2026-03-28T00:00:00Z&to=2026-03-31T00:00:00Z`)
      .set(bearer(t.tokens.viewer));
    expect(shifts.status).toBe(200);
    expect(
      shifts.body.data.map((x: { user: { id: string }; from: string; to: string }) => [x.user.id, x.from, x.to]),
    ).toEqual([
      [t.cat.id, '2026-03-28T00:00:00.000Z', '2026-03-28T06:00:00.000Z'], // Friday night's window
      [t.ann.id, '2026-03-28T06:00:00.000Z', '2026-03-30T07:00:00.000Z'],
      [t.bob.id, '2026-03-30T07:00:00.000Z', '2026-03-30T20:00:00.000Z'],
      [t.cat.id, '2026-03-30T20:00:00.000Z', '2026-03-31T00:00:00.000Z'],
    ]);
  });

  it('takes overrides from managers for anyone and from a member for themselves only', async () => {
    const t = await team();
    const s = await created(t);
    const window = { startsAt: '2026-03-24T10:00:00Z', endsAt: '2026-03-24T12:00:00Z' };
    const forAnn = await api()
      .post(`/api/v1/schedules/${s.id}/overrides`)
      .set(bearer(t.bobToken))
      .send({ userId: t.ann.id, ...window });
    expect(forAnn.status).toBe(403);
    expect(
      (
        await api()
          .post(`/api/v1/schedules/${s.id}/overrides`)
          .set(bearer(t.tokens.member))
          .send({ userId: t.bob.id, ...window })
      ).status,
    ).toBe(403); // an org token is nobody
    const mine = await api()
      .post(`/api/v1/schedules/${s.id}/overrides`)
      .set(bearer(t.bobToken))
      .send({ userId: t.bob.id, ...window });
    expect(mine.status).toBe(201);
    const reversed = await api()
      .post(`/api/v1/schedules/${s.id}/overrides`)
      .set(bearer(t.tokens.admin))
      .send({ userId: t.ann.id, startsAt: window.endsAt, endsAt: window.startsAt });
    expect([reversed.status, reversed.body.error.details.issues[0].path]).toEqual([400, 'endsAt']);

    const now = await api()
      .get(`/api/v1/schedules/${s.id}/oncall?at=2026-03-24T11:00:00Z`)
      .set(bearer(t.tokens.viewer));
    expect(now.body.data).toMatchObject({ user: { id: t.bob.id }, layer: null, override: mine.body.data.id });
    const listed = await api().get(`/api/v1/schedules/${s.id}/overrides`).set(bearer(t.tokens.viewer));
    // Overrides that ended are not listed: this one is in the past of the request's clock.
    expect(listed.body.data).toEqual([]);

    const schedule = await api().get(`/api/v1/schedules/${s.id}`).set(bearer(t.tokens.viewer));
    expect(schedule.body.data.version).toBe(2); // an override is a change of the schedule
    const removed = await api()
      .delete(`/api/v1/schedules/${s.id}/overrides/${mine.body.data.id}`)
      .set(bearer(t.bobToken))
      .set('If-Match', '"2"');
    expect(removed.status).toBe(204);
    const again = await api()
      .delete(`/api/v1/schedules/${s.id}/overrides/${mine.body.data.id}`)
      .set(bearer(t.tokens.admin));
    expect(again.status).toBe(404);
  });

  it('lists who is on call now in every schedule', async () => {
    const t = await team();
    const s = await created(t, {
      ...weeklyBody(t),
      layers: [{ ...weeklyBody(t).layers[0], startsAt: '2026-01-05T09:00:00+01:00', members: [t.ann.id] }],
    });
    const empty = await created(t, {
      ...weeklyBody(t),
      name: 'Later',
      layers: [{ ...weeklyBody(t).layers[0], startsAt: '2099-01-05T09:00:00+01:00' }],
    });
    const res = await api().get('/api/v1/oncall').set(bearer(t.tokens.viewer));
    expect(res.status).toBe(200);
    expect(
      res.body.data.map((x: { schedule: { id: string }; user: { id: string } | null }) => [
        x.schedule.id,
        x.user?.id ?? null,
      ]),
    ).toEqual([
      [s.id, t.ann.id],
      [empty.id, null],
    ]);
  });
});

describe('calendar feeds', () => {
  it('serves the next 90 days as iCalendar that matches /shifts, once per URL, until revoked', async () => {
    const t = await team();
    const s = await created(t, {
      ...weeklyBody(t),
      layers: [{ ...weeklyBody(t).layers[0], startsAt: '2026-01-05T09:00:00+01:00' }, weeklyBody(t).layers[1]],
    });
    expect((await api().post(`/api/v1/schedules/${s.id}/calendar-token`).set(bearer(t.tokens.member))).status).toBe(
      403,
    );
    const made = await api().post(`/api/v1/schedules/${s.id}/calendar-token`).set(bearer(t.tokens.admin));
    expect(made.status).toBe(201);
    const url = new URL(made.body.data.url as string);
    expect(url.origin).toBe('https://status.example.test');
    expect(url.pathname).toMatch(/^\/ical\/[A-Za-z0-9_-]{43}\.ics$/);
    const stored = await h.prisma.calendarToken.findFirstOrThrow({ where: { scheduleId: s.id } });
    expect(url.pathname).not.toContain(stored.tokenHash); // only the hash is stored

    const feed = await api().get(url.pathname);
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toMatch(/^text\/calendar/);
    const calendar = new ICAL.Component(ICAL.parse(feed.text));
    const events = calendar.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
    expect(events.length).toBeGreaterThan(10);

    // The same shifts /shifts gives over 80 days from the feed's first (which may have started before now).
    const first = events[0]!.startDate.toJSDate();
    const to = new Date(first.getTime() + 80 * 86_400_000);
    const shifts = await api()
      .get(`/api/v1/schedules/${s.id}/shifts?from=${first.toISOString()}&to=${to.toISOString()}`)
      .set(bearer(t.tokens.viewer));
    expect(shifts.status).toBe(200);
    const whole = (shifts.body.data as Array<{ from: string; to: string; user: { email: string } }>).filter(
      (x) => x.to !== to.toISOString(), // the last one is cut at `to`
    );
    expect(
      events
        .filter((e) => e.endDate.toJSDate() < to)
        .map((e) => [e.startDate.toJSDate().toISOString(), e.endDate.toJSDate().toISOString(), e.description]),
    ).toEqual(whole.map((x) => [x.from, x.to, expect.stringContaining(x.user.email)]));
    const last = events.at(-1)!.endDate.toJSDate();
    expect(last.getTime() - Date.now()).toBeLessThanOrEqual(90 * 86_400_000 + 1000);

    const revoked = await api().delete(`/api/v1/schedules/${s.id}/calendar-token`).set(bearer(t.tokens.admin));
    expect(revoked.status).toBe(204);
    expect((await api().get(url.pathname)).status).toBe(404);
    expect((await api().get('/ical/not-a-token.ics')).status).toBe(404);
  });
});
