// The console's on-call pages in a real browser (Debian's Chromium driven by playwright-core), under the console's
// Content-Security-Policy: the schedules, a schedule's two weeks with its overrides, and your contact methods pass
// axe-core (no serious or critical violation) at 1280 and 390 px in light and dark, with no sideways scroll at 390
// px; an override is added through the form with the keyboard. Screenshots go to test-artifacts/console/.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import {
  consoleInBrowser,
  consoleVisitor,
  inspectConsolePage,
  OPENING_WIDTH,
  SCHEMES,
  type Scheme,
} from './support/console-browser.js';
import { dayAhead, setUserPassword } from './support/console.js';

const PASSWORD = 'correct horse battery staple';

let h: Harness;
let browser: Browser;
let served: Awaited<ReturnType<typeof consoleInBrowser>>;
let origin: string;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let admin: { id: string; email: string };
let scheduleId: string;

beforeAll(async () => {
  served = await consoleInBrowser('console on-call');
  ({ h, origin, browser } = served);

  w = await makeWorkspace(h.prisma);
  await h.prisma.workspace.update({ where: { id: w.ws.id }, data: { name: 'Acme Production' } });
  const names = ['Ada Operator', 'Grace Hopper', 'Linus Pager', 'Margaret Hamilton-Longname'];
  const people: Array<{ id: string; email: string }> = [];
  for (const [i, name] of names.entries()) {
    const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role: i === 0 ? 'admin' : 'member' }]);
    await h.prisma.user.update({ where: { id: user.id }, data: { name } });
    people.push(user);
  }
  admin = people[0]!;
  await setUserPassword(h.prisma, admin.email, PASSWORD);
  const schedule = async (body: object) => {
    const res = await request(h.app).post('/api/v1/schedules').set(bearer(w.tokens.admin)).send(body);
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  scheduleId = await schedule({
    name: 'Platform primary',
    timezone: 'Europe/Berlin',
    fallbackUserId: admin.id,
    layers: [
      {
        name: 'Weekly',
        startsAt: '2026-01-05T09:00:00+01:00',
        rotation: { every: 1, unit: 'weeks' },
        handoffTime: '09:00',
        members: people.slice(0, 3).map((p) => p.id),
      },
      {
        name: 'Weekend nights',
        startsAt: '2026-01-05T09:00:00+01:00',
        rotation: { every: 1, unit: 'days' },
        handoffTime: '09:00',
        members: [people[3]!.id],
        restrictions: [{ days: ['fri', 'sat'], from: '20:00', to: '08:00' }],
      },
    ],
  });
  await schedule({
    name: 'Database on-call (Americas)',
    timezone: 'America/New_York',
    layers: [
      {
        name: 'Business hours',
        startsAt: '2026-01-05T09:00:00-05:00',
        rotation: { every: 1, unit: 'weeks' },
        handoffTime: '09:00',
        members: [people[1]!.id],
        restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00' }],
      },
    ],
  });
  const start = new Date(Date.now() + 3 * 86_400_000);
  const override = await request(h.app)
    .post(`/api/v1/schedules/${scheduleId}/overrides`)
    .set(bearer(w.tokens.admin))
    .send({
      userId: people[1]!.id,
      startsAt: start.toISOString(),
      endsAt: new Date(start.getTime() + 10 * 3_600_000).toISOString(),
    });
  expect(override.status).toBe(201);
  const token = (await createToken(h.prisma, { kind: 'personal', email: admin.email })).token;
  const put = await request(h.app)
    .put('/api/v1/me/contact-methods')
    .set(bearer(token))
    .send({ methods: [{ channel: 'email', target: 'ada@example.test' }] });
  expect(put.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await served?.close();
});

/** A context with JavaScript on; the refused override answers 400 on purpose. */
const visitor = (width: number, scheme: Scheme = 'light') => consoleVisitor(browser, width, scheme, /status of 400/);
const inspect = inspectConsolePage;

async function signIn(page: Page) {
  await page.goto(`${origin}/app/login`);
  await page.fill('#f-email', admin.email);
  await page.fill('#f-password', PASSWORD);
  await Promise.all([page.waitForURL(`${origin}/app/${w.ws.slug}/monitors`), page.click('button[type=submit]')]);
}

describe('the on-call pages in Chromium', () => {
  it('passes axe with no sideways scroll at 1280 and 390 px, light and dark', async () => {
    for (const scheme of SCHEMES) {
      const { context, page, errors } = await visitor(OPENING_WIDTH[scheme], scheme);
      try {
        await signIn(page);
        await page.goto(`${origin}/app/${w.ws.slug}/oncall`);
        await inspect(page, errors, 'oncall', scheme);
        await page.goto(`${origin}/app/${w.ws.slug}/oncall/${scheduleId}`);
        expect(await page.locator('table.shifts tbody tr').count()).toBeGreaterThan(3);
        await inspect(page, errors, 'oncall-schedule', scheme);
        await page.goto(`${origin}/app/account/contact-methods`);
        await inspect(page, errors, 'contact-methods', scheme);
        // A feed URL just made, shown once on the schedule's page.
        await page.goto(`${origin}/app/${w.ws.slug}/oncall/${scheduleId}#calendar-feed`);
        page.once('dialog', (d) => void d.accept());
        await Promise.all([
          page.waitForURL(`${origin}/app/${w.ws.slug}/oncall/${scheduleId}/calendar-feed`),
          page.locator('#calendar-feed button[type=submit]').first().click(),
        ]);
        expect(await page.locator('#feed-url').textContent()).toMatch(/\/ical\/.+\.ics$/);
        await page.locator('#calendar-feed').scrollIntoViewIfNeeded();
        await inspect(page, errors, 'oncall-calendar-feed', scheme);
      } finally {
        await context.close();
      }
    }
  }, 240_000);

  it('adds one contact method and removes it again, the others left as they are', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page);
      await page.goto(`${origin}/app/account/contact-methods`);
      const rows = page.locator('table.methods tbody tr');
      expect(await rows.count()).toBe(1);
      await page.fill('#f-target', 'ada.backup@example.test');
      await Promise.all([
        page.waitForURL(/done=method-added/),
        page.getByRole('button', { name: 'Add Email' }).click(),
      ]);
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(1).locator('td.target').textContent()).toBe('ada.backup@example.test');
      expect(await page.getByRole('status').textContent()).toBe(
        'Contact method added: pages reach you there from now on.',
      );
      expect(await rows.nth(0).locator('td.target').textContent()).toBe('ada@example.test');
      page.once('dialog', (d) => void d.accept());
      await Promise.all([
        page.waitForURL(/done=method-removed/),
        rows.nth(1).getByRole('button', { name: 'Remove Email ada.backup@example.test' }).click(),
      ]);
      expect(await rows.count()).toBe(1);
      expect(await rows.nth(0).locator('td.target').textContent()).toBe('ada@example.test');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('adds an override with the keyboard alone, and shows the 400 beside the field', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page);
      await page.goto(`${origin}/app/${w.ws.slug}/oncall/${scheduleId}`);
      const before = await page.locator('table.overrides tbody tr').count();
      // Ahead of now on any clock: the page lists only the overrides that have not ended.
      const day = dayAhead(2);
      // The end before the start: the server's 400 shows the issue beside "To" (the browser sends what was typed).
      await page.locator('#f-endsAt').fill(`${day}T08:00`);
      await page.locator('#f-startsAt').fill(`${day}T09:00`);
      await page.locator('#f-startsAt').focus();
      await page.keyboard.press('Enter');
      await page.waitForLoadState();
      expect(await page.locator('#f-endsAt-error').textContent()).toBe('must be after the start');
      await inspect(page, errors, 'oncall-override-400', 'light', [1280]);
      await page.locator('#f-endsAt').fill(`${day}T17:00`);
      await page.locator('#f-endsAt').focus();
      await Promise.all([page.waitForURL(/done=override-added/), page.keyboard.press('Enter')]);
      expect(await page.locator('table.overrides tbody tr').count()).toBe(before + 1);
      expect(await page.getByRole('status').textContent()).toBe('Override added.');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
