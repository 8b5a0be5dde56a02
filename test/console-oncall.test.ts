// The console's on-call pages (issue 31): the schedules with who is on call now, a schedule's next two weeks and
// overrides, and a person's contact methods, through the API's own verbs with the signed-in user's role. Overrides
// are added on the schedule's wall clock, a 400 keeps the typed values with each issue beside its field, a stale
// version is a 409 page showing the schedule as it is now, a viewer sees no write control and a forged write is 403.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { instantOfWallClock } from '@statusvane/shared';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { consoleBrowser, dayAhead, setUserPassword } from './support/console.js';

const PASSWORD = 'correct horse battery staple';
let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

const api = () => request(h.app);

/** A workspace with a schedule (weekly Ann then Bob, Berlin) and console users in each role. */
async function team() {
  const w = await makeWorkspace(h.prisma);
  const people = {} as Record<'admin' | 'member' | 'viewer', { id: string; email: string }>;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role }]);
    await setUserPassword(h.prisma, user.email, PASSWORD);
    people[role] = user;
  }
  await h.prisma.user.update({ where: { id: people.admin.id }, data: { name: 'Ann Admin' } });
  await h.prisma.user.update({ where: { id: people.member.id }, data: { name: 'Bob Member' } });
  const res = await api()
    .post('/api/v1/schedules')
    .set(bearer(w.tokens.admin))
    .send({
      name: 'Platform primary',
      timezone: 'Europe/Berlin',
      fallbackUserId: people.admin.id,
      layers: [
        {
          name: 'Weekly',
          startsAt: '2026-01-05T09:00:00+01:00',
          rotation: { every: 1, unit: 'weeks' },
          handoffTime: '09:00',
          members: [people.admin.id, people.member.id],
        },
      ],
    });
  expect(res.status).toBe(201);
  const schedule = res.body.data as { id: string; version: number };
  return { ...w, people, schedule, path: `/app/${w.ws.slug}/oncall/${schedule.id}` };
}
type Team = Awaited<ReturnType<typeof team>>;

async function signedIn(t: Team, role: 'admin' | 'member' | 'viewer') {
  const b = consoleBrowser(h);
  await b.signIn(t.people[role].email, PASSWORD);
  return b;
}

/** The text of an element's content, tags dropped. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
const section = (html: string, id: string) => {
  const start = html.indexOf(`aria-labelledby="${id}"`);
  return start < 0 ? '' : html.slice(start, html.indexOf('</section>', start));
};
const rows = (html: string, table: string) =>
  [
    ...(new RegExp(`<table class="[^"]*${table}[^"]*">([\\s\\S]*?)</table>`).exec(html)?.[1] ?? '').matchAll(
      /<tr id="[^"]+">([\s\S]*?)<\/tr>/g,
    ),
  ].map((m) => [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => text(c[1]!)));
/** The issue shown beside field `name` (views/components/form.tsx ties it to the field by id). */
const fieldError = (html: string, name: string) =>
  new RegExp(`<p id="f-${name}-error" class="field-error">([^<]*)<`).exec(html)?.[1];
/** The value a field of the page holds. */
const valueOf = (html: string, name: string) =>
  /value="([^"]*)"/.exec(new RegExp(`<input[^>]*id="f-${name}"[^>]*>`).exec(html)?.[0] ?? '')?.[1];

describe('the on-call pages', () => {
  it('lists the schedules with who is on call now, as GET /oncall says, and names the section in the nav', async () => {
    const t = await team();
    const b = await signedIn(t, 'viewer');
    const page = await b.get(`/app/${t.ws.slug}/oncall`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="/app/${t.ws.slug}/oncall" aria-current="page">On call</a>`);
    const now = (await api().get('/api/v1/oncall').set(bearer(t.tokens.viewer))).body.data[0];
    expect(page.text).toContain(`<a href="/app/${t.ws.slug}/oncall/${t.schedule.id}">Platform primary</a>`);
    expect(text(page.text)).toContain(`${now.user.name} (Weekly) until`);
    // The viewer has no contact method yet: the page says what that means.
    expect(text(page.text)).toContain('You have no contact method: a page meant for you is skipped.');
    // An unknown parameter is refused, as the API refuses one.
    expect((await b.get(`/app/${t.ws.slug}/oncall?x=1`)).status).toBe(400);
  });

  it('shows the next two weeks as GET /schedules/{id}/shifts resolves them, and the overrides to come', async () => {
    const t = await team();
    const startsAt = new Date(Date.now() + 2 * 86_400_000);
    const added = await api()
      .post(`/api/v1/schedules/${t.schedule.id}/overrides`)
      .set(bearer(t.tokens.admin))
      .send({
        userId: t.people.viewer.id,
        startsAt: startsAt.toISOString(),
        endsAt: new Date(startsAt.getTime() + 3_600_000).toISOString(),
      });
    expect(added.status).toBe(201);
    const b = await signedIn(t, 'viewer');
    const page = await b.get(t.path);
    expect(page.status).toBe(200);
    const shown = rows(page.text, 'shifts');
    // The page's range starts at today's midnight in Berlin; the API is asked for the same range.
    const midnight = instantOfWallClock(
      'Europe/Berlin',
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(new Date()) + 'T00:00',
    )!;
    const to = instantOfWallClock(
      'Europe/Berlin',
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(
        new Date(midnight.getTime() + 14.5 * 86_400_000),
      ) + 'T00:00',
    )!;
    const shifts = (
      await api()
        .get(`/api/v1/schedules/${t.schedule.id}/shifts`)
        .query({ from: midnight.toISOString(), to: to.toISOString() })
        .set(bearer(t.tokens.viewer))
    ).body.data as Array<{ user: { name: string | null; email: string }; override: string | null }>;
    expect(shown.map((r) => [r[0], r[3]])).toEqual(
      shifts.map((s) => [s.user.name ?? s.user.email, s.override ? 'Override' : 'Weekly']),
    );
    expect(shown.length).toBeGreaterThanOrEqual(4); // two handoffs, and the override cutting one shift in two
    expect(page.text).toContain('<svg class="timeline"');
    // The override is listed; a viewer gets neither a remove button nor the form.
    expect(rows(page.text, 'overrides')).toHaveLength(1);
    expect(section(page.text, 'overrides-title')).not.toContain('<form');
    expect(page.text).not.toContain('Add override');
  });

  it('adds an override on the schedule’s wall clock, audited as the user; a 400 keeps the values beside each issue', async () => {
    const t = await team();
    const b = await signedIn(t, 'admin');
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin' }).format(
      new Date(Date.now() + 3 * 86_400_000),
    );
    const ok = await b.submit(
      t.path,
      { userId: t.people.member.id, startsAt: `${day}T18:00`, endsAt: `${day}T23:30` },
      `${t.path}/overrides`,
    );
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe(`${t.path}?done=override-added#overrides`);
    const listed = (await api().get(`/api/v1/schedules/${t.schedule.id}/overrides`).set(bearer(t.tokens.viewer))).body
      .data;
    expect(listed).toEqual([
      expect.objectContaining({
        userId: t.people.member.id,
        startsAt: instantOfWallClock('Europe/Berlin', `${day}T18:00`)!.toISOString(),
        endsAt: instantOfWallClock('Europe/Berlin', `${day}T23:30`)!.toISOString(),
      }),
    ]);
    const audit = await h.prisma.auditEvent.findFirst({
      where: { workspaceId: t.ws.id, resourceId: t.schedule.id, action: 'schedule.override_added' },
    });
    expect(audit).toMatchObject({ actorType: 'user', actorId: t.people.admin.id });
    const after = await b.get(`${t.path}?done=override-added`);
    expect(text(after.text)).toContain('Override added.');

    // The end before the start: the issue beside "To", the typed values kept.
    const bad = await b.submit(
      t.path,
      { userId: t.people.member.id, startsAt: `${day}T18:00`, endsAt: `${day}T17:00` },
      `${t.path}/overrides`,
    );
    expect(bad.status).toBe(400);
    expect(fieldError(bad.text, 'endsAt')).toBe('must be after the start');
    expect(valueOf(bad.text, 'startsAt')).toBe(`${day}T18:00`);
    expect(valueOf(bad.text, 'endsAt')).toBe(`${day}T17:00`);
    // Not a date; someone who is not a member: each beside its own field.
    const outsider = await makeUser(h.prisma, []);
    const worse = await b.submit(
      t.path,
      { userId: outsider.id, startsAt: 'soon', endsAt: `${day}T17:00` },
      `${t.path}/overrides`,
    );
    expect(worse.status).toBe(400);
    expect(fieldError(worse.text, 'startsAt')).toBe('must be a date and time');
    const notMember = await b.submit(
      t.path,
      { userId: outsider.id, startsAt: `${day}T10:00`, endsAt: `${day}T11:00` },
      `${t.path}/overrides`,
    );
    expect(notMember.status).toBe(400);
    expect(fieldError(notMember.text, 'userId')).toBe('is not a member of this workspace');
    expect(
      (await api().get(`/api/v1/schedules/${t.schedule.id}/overrides`).set(bearer(t.tokens.viewer))).body.data,
    ).toHaveLength(1);
  });

  it('names the override’s user as `userId` when the API refuses a non-member', async () => {
    const t = await team();
    const outsider = await makeUser(h.prisma, []);
    const res = await api()
      .post(`/api/v1/schedules/${t.schedule.id}/overrides`)
      .set(bearer(t.tokens.admin))
      .send({ userId: outsider.id, startsAt: '2026-12-01T10:00:00Z', endsAt: '2026-12-01T11:00:00Z' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([{ path: 'userId', message: 'is not a member of this workspace' }]);
  });

  it('lets a writer override only for themselves, and shows a viewer no write control (a forged one is 403)', async () => {
    const t = await team();
    const member = await signedIn(t, 'member');
    const page = await member.get(t.path);
    const options = [...section(page.text, 'overrides-title').matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]);
    expect(options).toEqual([t.people.member.id]);
    const forOther = await member.submit(
      t.path,
      { userId: t.people.admin.id, startsAt: `${dayAhead(7)}T10:00`, endsAt: `${dayAhead(7)}T12:00` },
      `${t.path}/overrides`,
    );
    expect(forOther.status).toBe(403);
    const own = await member.submit(
      t.path,
      { userId: t.people.member.id, startsAt: `${dayAhead(7)}T10:00`, endsAt: `${dayAhead(7)}T12:00` },
      `${t.path}/overrides`,
    );
    expect(own.status).toBe(303);

    const viewer = await signedIn(t, 'viewer');
    const seen = await viewer.get(t.path);
    expect(seen.status).toBe(200);
    expect([...seen.text.matchAll(/<form method="post"/g)]).toHaveLength(1); // sign out only
    const forged = await viewer.submit(
      t.path,
      { userId: t.people.viewer.id, startsAt: `${dayAhead(7)}T10:00`, endsAt: `${dayAhead(7)}T12:00` },
      `${t.path}/overrides`,
    );
    expect(forged.status).toBe(403);
    const overrideId = (await api().get(`/api/v1/schedules/${t.schedule.id}/overrides`).set(bearer(t.tokens.viewer)))
      .body.data[0].id;
    const forgedRemove = await viewer.submit(t.path, { version: '99' }, `${t.path}/overrides/${overrideId}/remove`);
    expect(forgedRemove.status).toBe(403);
  });

  it('removes an override with the schedule’s version; a stale one is a 409 page showing the schedule as it is now', async () => {
    const t = await team();
    const b = await signedIn(t, 'admin');
    const add = (hour: number) =>
      api()
        .post(`/api/v1/schedules/${t.schedule.id}/overrides`)
        .set(bearer(t.tokens.admin))
        .send({
          userId: t.people.member.id,
          startsAt: `${dayAhead(7 + hour)}T10:00:00Z`,
          endsAt: `${dayAhead(7 + hour)}T12:00:00Z`,
        });
    const first = (await add(1)).body.data as { id: string };
    const page = await b.get(t.path);
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;
    // Meanwhile someone adds another override: the schedule's version moves on.
    await add(2);
    const stale = await b.post(`${t.path}/overrides/${first.id}/remove`, {
      _csrf: /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!,
      version,
    });
    expect(stale.status).toBe(409);
    expect(text(stale.text)).toContain('The schedule changed since the page was shown, so nothing was removed.');
    expect(rows(stale.text, 'overrides')).toHaveLength(2); // the current values, the new override among them
    const fresh = /name="version" value="(\d+)"/.exec(stale.text)![1]!;
    expect(Number(fresh)).toBeGreaterThan(Number(version));
    const removed = await b.submit(t.path, { version: fresh }, `${t.path}/overrides/${first.id}/remove`);
    expect(removed.status).toBe(303);
    const left = (await api().get(`/api/v1/schedules/${t.schedule.id}/overrides`).set(bearer(t.tokens.viewer))).body
      .data;
    expect(left.map((o: { id: string }) => o.id)).not.toContain(first.id);
    expect(left).toHaveLength(1);
  });
});

describe('a schedule’s calendar feed', () => {
  it('a manager makes the feed URL (shown once, it serves the shifts), replaces it and revokes it', async () => {
    const t = await team();
    const b = await signedIn(t, 'admin');
    const page = await b.get(t.path);
    expect(text(section(page.text, 'feed-title'))).toContain('No feed');
    const made = await b.submit(t.path, {}, `${t.path}/calendar-feed`);
    expect(made.status).toBe(200);
    const url = /<code id="feed-url" class="secret-value">([^<]+)<\/code>/.exec(made.text)![1]!;
    expect(url).toMatch(/\/ical\/[A-Za-z0-9_-]{40,}\.ics$/);
    const feedPath = new URL(url).pathname;
    const feed = await api().get(feedPath);
    expect(feed.status).toBe(200);
    expect(feed.text).toContain('BEGIN:VCALENDAR');
    // The API shows the feed live; the page again shows that, never the URL.
    const record = await api().get(`/api/v1/schedules/${t.schedule.id}`).set(bearer(t.tokens.viewer));
    expect(record.body.data.calendarFeed).toBe(true);
    const again = await b.get(t.path);
    expect(again.text).not.toContain(feedPath);
    expect(text(section(again.text, 'feed-title'))).toContain('A feed URL works for this schedule.');
    expect(
      await h.prisma.auditEvent.count({
        where: { workspaceId: t.ws.id, action: 'schedule.calendar_token_created', actorType: 'user' },
      }),
    ).toBe(1);

    // Replaced: the old URL stops.
    const replaced = await b.submit(t.path, {}, `${t.path}/calendar-feed`);
    const second = new URL(/<code id="feed-url" class="secret-value">([^<]+)<\/code>/.exec(replaced.text)![1]!)
      .pathname;
    expect((await api().get(feedPath)).status).toBe(404);
    expect((await api().get(second)).status).toBe(200);

    // Revoked with the schedule's version: a stale one is the 409 page, the current one revokes.
    const version = (await api().get(`/api/v1/schedules/${t.schedule.id}`).set(bearer(t.tokens.viewer))).body.data
      .version as number;
    const stale = await b.submit(t.path, { version: String(version - 1) }, `${t.path}/calendar-feed/revoke`);
    expect(stale.status).toBe(409);
    expect((await api().get(second)).status).toBe(200);
    const revoked = await b.submit(t.path, { version: String(version) }, `${t.path}/calendar-feed/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.headers.location).toBe(`${t.path}?done=feed-revoked#calendar-feed`);
    expect((await api().get(second)).status).toBe(404);
    expect(text(section((await b.get(t.path)).text, 'feed-title'))).toContain('No feed');
  });

  it('shows writers and viewers no feed control, and their forged posts are 403 with nothing made', async () => {
    const t = await team();
    for (const role of ['member', 'viewer'] as const) {
      const b = await signedIn(t, role);
      const page = await b.get(t.path);
      const feed = section(page.text, 'feed-title');
      expect(feed).toContain('An owner or admin can make or revoke it.');
      expect(feed).not.toContain('<form');
      expect((await b.submit(t.path, {}, `${t.path}/calendar-feed`)).status).toBe(403);
      expect((await b.submit(t.path, { version: '1' }, `${t.path}/calendar-feed/revoke`)).status).toBe(403);
    }
    expect(await h.prisma.calendarToken.count({ where: { scheduleId: t.schedule.id } })).toBe(0);
  });
});

describe('your contact methods', () => {
  const PATH = '/app/account/contact-methods';

  it('adds and removes methods as PUT /me/contact-methods would, the same ones the API shows', async () => {
    const t = await team();
    const b = await signedIn(t, 'member');
    const token = (await createToken(h.prisma, { kind: 'personal', email: t.people.member.email })).token;
    const empty = await b.get(PATH);
    expect(empty.status).toBe(200);
    expect(text(empty.text)).toContain('No contact method yet');
    const added = await b.submit(PATH, { channel: 'email', target: 'bob@example.test' });
    expect(added.status).toBe(303);
    expect(added.headers.location).toBe(`${PATH}?done=method-added`);
    const tg = await b.submit(
      `${PATH}?channel=telegram`,
      { channel: 'telegram', botToken: '123456:abcdefghijklmnopqrstuvwxyz', chatId: '-1001234' },
      PATH,
    );
    expect(tg.status).toBe(303);
    const listed = (await api().get('/api/v1/me/contact-methods').set(bearer(token))).body.data as Array<{
      id: string;
      channel: string;
      display: string;
    }>;
    expect(listed.map((m) => [m.channel, m.display])).toEqual([
      ['email', 'bob@example.test'],
      ['telegram', expect.any(String)],
    ]);
    const page = await b.get(PATH);
    expect(rows(page.text, 'methods').map((r) => r[0])).toEqual(['Email', 'Telegram']);
    expect(page.text).not.toContain('abcdefghijklmnopqrstuvwxyz'); // the secret is never shown
    // Recorded in the user's workspace, as the API's PUT is.
    expect(
      await h.prisma.auditEvent.count({
        where: { workspaceId: t.ws.id, resourceId: t.people.member.id, action: 'user.contact_methods_updated' },
      }),
    ).toBe(2);
    // Removing the first keeps the second's id (a page in flight to it still finds it).
    const removed = await b.submit(PATH, {}, `${PATH}/${listed[0]!.id}/remove`);
    expect(removed.status).toBe(303);
    expect(
      (await api().get('/api/v1/me/contact-methods').set(bearer(token))).body.data.map((m: { id: string }) => m.id),
    ).toEqual([listed[1]!.id]);
    // Someone else's method (or none) is not found.
    const other = await signedIn(t, 'admin');
    expect((await other.submit(PATH, {}, `${PATH}/${listed[1]!.id}/remove`)).status).toBe(404);
    expect((await other.submit(PATH, {}, `${PATH}/not-an-id/remove`)).status).toBe(404);
  });

  it('shows the chosen channel’s fields, and a 400 beside the field with the typed value kept', async () => {
    const t = await team();
    const b = await signedIn(t, 'viewer');
    const telegram = await b.get(`${PATH}?channel=telegram`);
    expect(telegram.text).toContain('id="f-botToken"');
    expect(telegram.text).toContain('id="f-chatId"');
    expect(telegram.text).not.toContain('id="f-target"');
    const bad = await b.submit(PATH, { channel: 'email', target: 'not an address' });
    expect(bad.status).toBe(400);
    expect(fieldError(bad.text, 'target')).toBe('must be an email address');
    expect(valueOf(bad.text, 'target')).toBe('not an address');
    const badTg = await b.submit(PATH, { channel: 'telegram', botToken: 'nope', chatId: '-100' }, PATH);
    expect(badTg.status).toBe(400);
    expect(fieldError(badTg.text, 'botToken')).toMatch(/bot token/);
    expect(valueOf(badTg.text, 'chatId')).toBe('-100');
    expect((await b.get(`${PATH}?channel=carrier-pigeon`)).status).toBe(400);
    // Pages carry no write without the CSRF token.
    expect((await b.post(PATH, { channel: 'email', target: 'x@example.test' })).status).toBe(403);
  });
});
