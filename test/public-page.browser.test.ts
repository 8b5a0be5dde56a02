// The public status page in a real browser (Debian's Chromium driven by playwright-core): what a visitor sees,
// with JavaScript off, under the page's own Content-Security-Policy. This suite never skips: without Chromium
// it fails and says how to install it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { arrangeStatusPage, setStatusPagePassword } from '../apps/api/src/admin/status-page-commands.js';
import { ARTIFACTS, axeViolations, resizeTo, screenshot, serveToBrowser } from './support/browser.js';
import { bearer, makeHarness, makeWorkspace, monitorShowing, uniq, type Harness } from './support/harness.js';

const MIN = 60_000;
const DAY = 86_400_000;

let h: Harness;
let browser: Browser;
let origin: string;
let served: Awaited<ReturnType<typeof serveToBrowser>> | undefined;

beforeAll(async () => {
  h = makeHarness();
  served = await serveToBrowser(h.app, 'status page');
  ({ browser, origin } = served);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await h?.close();
});

/** A fresh context with JavaScript off; records every request and every console error (CSP violations land there). */
async function visitor(
  viewport = { width: 1000, height: 900 },
  javaScriptEnabled = false,
  colorScheme: 'light' | 'dark' = 'light',
  timezoneId = 'UTC',
): Promise<{ context: BrowserContext; page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext({ javaScriptEnabled, viewport, colorScheme, timezoneId });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    // The 401 of the password form is expected; anything else (a CSP violation above all) is not.
    if (m.type() === 'error' && !/status of 401/.test(m.text())) errors.push(m.text());
  });
  return { context, page, requests, errors };
}

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;
type Browserish = { getComputedStyle(el: unknown): { backgroundColor: string } };
type DomDocument = {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll(selector: string): Iterable<{ getClientRects(): { length: number } }>;
};

/** WCAG contrast ratio of two computed `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, bl] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m);
  return (x! + 0.05) / (y! + 0.05);
}
const monitor = (w: Workspace, name: string, status: 'up' | 'degraded' | 'down') => monitorShowing(h, w, name, status);

async function seedPage(name: string) {
  const w = await makeWorkspace(h.prisma);
  const api = await monitor(w, 'Public API', 'up');
  const checkout = await monitor(w, 'Checkout', 'down');
  const billing = await monitor(w, 'Billing', 'up');
  const today = Math.floor(Date.now() / DAY) * DAY;
  // The bars come from the accounting function (issue 29), which counts time from a monitor's creation on (no data
  // before it; up unless an incident, maintenance or a degraded span says otherwise), not from the rollups: the API
  // has 60 days of data (its bad day is the resolved incident 3 days ago), Checkout a week (today down: its open
  // incident), Billing only today's maintenance. The days before are grey, the rest green: both kinds of bar show.
  await h.prisma.monitor.update({ where: { id: api.id }, data: { createdAt: new Date(today - 59 * DAY) } });
  await h.prisma.monitor.update({ where: { id: checkout.id }, data: { createdAt: new Date(today - 6 * DAY) } });
  // The rollups: the days' check counts the page serves beside the accounting's figures.
  await h.prisma.checkRollupDaily.createMany({
    data: [
      ...Array.from({ length: 60 }, (_, i) => ({
        monitorId: api.id,
        region: 'local',
        day: new Date(today - i * DAY),
        total: 1440,
        downCount: i === 12 ? 200 : i === 30 ? 3 : 0,
        degradedCount: i === 40 ? 30 : 0,
      })),
      ...Array.from({ length: 7 }, (_, i) => ({
        monitorId: checkout.id,
        region: 'local',
        day: new Date(today - i * DAY),
        total: 1440,
        downCount: i === 0 ? 600 : 0,
        degradedCount: 0,
      })),
    ],
  });
  const maint = await request(h.app)
    .post('/api/v1/maintenance')
    .set(bearer(w.tokens.owner))
    .send({
      title: 'Billing database upgrade',
      body: 'Invoices may be delayed while we upgrade the billing database.',
      startsAt: new Date(Date.now() - 5 * MIN).toISOString(),
      endsAt: new Date(Date.now() + 40 * MIN).toISOString(),
      componentIds: [billing.componentId],
    });
  expect(maint.status).toBe(201);
  const open = await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: checkout.id,
      openMonitorId: checkout.id,
      title: 'Checkout is down',
      status: 'open',
      startedAt: new Date(Date.now() - 12 * MIN),
    },
  });
  await h.prisma.incidentUpdate.createMany({
    data: [
      {
        incidentId: open.id,
        status: 'investigating',
        message: 'Payments fail at the last step.',
        createdAt: new Date(Date.now() - 10 * MIN),
      },
      {
        incidentId: open.id,
        status: 'identified',
        message: 'A certificate expired on the payment gateway; renewing it.',
        createdAt: new Date(Date.now() - 4 * MIN),
      },
    ],
  });
  const past = await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: api.id,
      title: 'Slow API responses',
      status: 'resolved',
      impact: 'minor',
      startedAt: new Date(Date.now() - 3 * DAY),
      resolvedAt: new Date(Date.now() - 3 * DAY + 40 * MIN),
    },
  });
  await h.prisma.incidentUpdate.create({
    data: {
      incidentId: past.id,
      status: 'resolved',
      message: 'A database index was rebuilt.',
      createdAt: new Date(Date.now() - 3 * DAY + 40 * MIN),
    },
  });
  const next = await request(h.app)
    .post('/api/v1/maintenance')
    .set(bearer(w.tokens.owner))
    .send({
      title: 'Network switch replacement',
      startsAt: new Date(Date.now() + 2 * DAY).toISOString(),
      endsAt: new Date(Date.now() + 2 * DAY + 60 * MIN).toISOString(),
    });
  expect(next.status).toBe(201);
  const created = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('shop'), name });
  expect(created.status).toBe(201);
  const page = { ...(created.body.data as { id: string; slug: string }), openId: open.id, pastId: past.id };
  await arrangeStatusPage(h.prisma, {
    id: page.id,
    json: JSON.stringify([
      { name: 'Storefront', componentIds: [checkout.componentId, billing.componentId] },
      { name: 'Developers', componentIds: [api.componentId] },
    ]),
  });
  return page;
}

describe('the public status page in Chromium', () => {
  it('shows the components, the maintenance in progress and the open incident, loading nothing from elsewhere', async () => {
    const p = await seedPage('Acme Shop');
    const { context, page, requests, errors } = await visitor();
    try {
      const res = await page.goto(`${origin}/status/${p.slug}`);
      expect(res?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Acme Shop status');
      expect(await page.locator('h1').textContent()).toBe('Acme Shop');
      // One component of three down: a partial outage, not the whole service.
      expect(await page.getByRole('status').textContent()).toBe('Partial outage');

      const names = await page.locator('.component .name').allTextContents();
      expect(names).toEqual(['Checkout', 'Billing', 'Public API']);
      expect(await page.locator('section.components h3').allTextContents()).toEqual(['Storefront', 'Developers']);
      const stateOf = (n: string) =>
        page
          .locator('.component', { has: page.locator('.name', { hasText: n }) })
          .locator('.state')
          .textContent();
      expect(await stateOf('Checkout')).toBe('Major outage');
      expect(await stateOf('Billing')).toMatch(/^Under maintenance until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      expect(await stateOf('Public API')).toBe('Operational');

      const maintenance = page.locator('section[aria-labelledby=maint-now] article.maintenance');
      expect(await page.getByRole('heading', { name: 'Maintenance in progress' }).isVisible()).toBe(true);
      expect(await maintenance.locator('h3').textContent()).toBe('Billing database upgrade');
      expect(await maintenance.locator('.body').textContent()).toBe(
        'Invoices may be delayed while we upgrade the billing database.',
      );
      expect(await maintenance.textContent()).toContain('Affects: Billing');

      const incident = page.locator('section[aria-labelledby=incidents] article.incident');
      expect(await page.getByRole('heading', { name: 'Active incidents' }).isVisible()).toBe(true);
      expect(await incident.locator('h3').textContent()).toBe('Checkout is down');
      expect(await incident.textContent()).toMatch(/Identified · Major impact · started \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

      // 90 bars per component; the stylesheet applied (CSP allowed it by hash): bars have their colours.
      expect(await page.locator('.component').first().locator('.bar').count()).toBe(90);
      const background = (selector: string) =>
        // Runs in the page; the test's TypeScript has no DOM lib, hence the cast.
        page
          .locator(selector)
          .first()
          .evaluate((el) => (globalThis as unknown as Browserish).getComputedStyle(el).backgroundColor);
      const grey = await background('.bar.b-none');
      const green = await background('.bar.b-up');
      expect(grey).not.toBe(green);
      expect(green).not.toBe('rgba(0, 0, 0, 0)');

      expect(requests.every((u) => u.startsWith(origin))).toBe(true);
      expect(errors).toEqual([]);
      await screenshot(page, join(ARTIFACTS, 'status-page.png'));
    } finally {
      await context.close();
    }
  }, 60_000);

  it('fits a 390 px phone: no horizontal scroll, fewer days of bars, today always shown; axe finds nothing', async () => {
    const p = await seedPage('Acme Phone');
    // One load, resized: the server never sees the width, the layout follows the viewport (see resizeTo).
    const { context, page, errors } = await visitor({ width: 390, height: 844 }, true);
    try {
      expect((await page.goto(`${origin}/status/${p.slug}`))?.status()).toBe(200);
      for (const [width, days, file] of [
        [390, 30, 'status-page-390.png'],
        [700, 60, 'status-page-700.png'],
        [1280, 90, 'status-page-1280.png'],
      ] as const) {
        await resizeTo(page, width, 844);
        const widths = await page.evaluate(() => {
          const d = (
            globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
          ).document.documentElement;
          return { scroll: d.scrollWidth, client: d.clientWidth };
        });
        expect([width, widths.scroll]).toEqual([width, widths.client]);
        const bars = page.locator('.component').first().locator('.bar');
        expect(await bars.count()).toBe(90);
        // Only the latest days are displayed on narrow screens; the last bar (today) is on screen, inside its card.
        const shown = await bars.evaluateAll(
          (els) =>
            els.filter(
              (e) => (e as unknown as { getBoundingClientRect(): { width: number } }).getBoundingClientRect().width > 0,
            ).length,
        );
        expect([width, shown]).toEqual([width, days]);
        const today = await bars.last().boundingBox();
        const card = await page.locator('section.components').first().boundingBox();
        expect(today!.width).toBeGreaterThanOrEqual(2);
        expect(today!.x + today!.width).toBeLessThanOrEqual(card!.x + card!.width);
        expect(await page.locator('.legend').first().innerText()).toContain(`${days} days ago`);
        await screenshot(page, join(ARTIFACTS, file));

        const violations = await axeViolations(page);
        expect([width, violations]).toEqual([width, []]);
        expect(errors).toEqual([]);
      }
    } finally {
      await context.close();
    }
  }, 90_000);

  it('has landmarks, the incident timeline and past incidents; the password form passes axe too', async () => {
    const p = await seedPage('Acme Landmarks');
    const { context, page } = await visitor();
    try {
      await page.goto(`${origin}/status/${p.slug}`);
      expect(await page.getByRole('banner').count()).toBe(1);
      expect(await page.getByRole('main').count()).toBe(1);
      expect(await page.getByRole('contentinfo').count()).toBe(1);
      const incident = page.locator('article.incident').first();
      expect(await incident.locator('.timeline li strong').allTextContents()).toEqual(['Identified', 'Investigating']);
      expect(await page.getByRole('heading', { name: 'Upcoming maintenance' }).isVisible()).toBe(true);
      const past = page.locator('section[aria-labelledby=past] article');
      expect(await past.locator('h3').allTextContents()).toEqual(['Slow API responses']);
      // Closed <details> still open without JavaScript.
      await past.locator('summary').click();
      expect(await past.locator('.timeline').isVisible()).toBe(true);
      // Every bar colour is explained in words.
      expect(await page.getByRole('list', { name: 'What the bar colours mean' }).locator('li').count()).toBe(5);
      expect(await page.locator('.bars').first().getAttribute('aria-label')).toMatch(/^Uptime over the last 90 days: /);

      // Subscribing works without JavaScript: the form posts, the answer page says what happens next.
      await page.fill('#sub-email', `reader-${p.slug}@example.test`);
      await Promise.all([
        page.waitForURL(`${origin}/status/${p.slug}/subscribe`),
        page.click('#subscribe ~ .card button'),
      ]);
      expect(await page.locator('h1').textContent()).toBe('Almost there');
      expect(await page.locator('main').textContent()).toContain('a confirmation link is on its way');
    } finally {
      await context.close();
    }
    await setStatusPagePassword(
      h.prisma,
      { id: p.id, password: 'a long password' },
      { publicBaseUrl: h.config.publicBaseUrl },
    );
    const second = await visitor(undefined, true);
    try {
      expect((await second.page.goto(`${origin}/status/${p.slug}`))?.status()).toBe(401);
      expect(await axeViolations(second.page)).toEqual([]);
    } finally {
      await second.context.close();
    }
  }, 60_000);

  it('keeps a visitor out of a password-protected page until the right password is typed', async () => {
    const p = await seedPage('Acme Internal');
    await setStatusPagePassword(
      h.prisma,
      { id: p.id, password: 'staff only please' },
      { publicBaseUrl: h.config.publicBaseUrl },
    );
    const { context, page, errors } = await visitor();
    try {
      const first = await page.goto(`${origin}/status/${p.slug}`);
      expect(first?.status()).toBe(401);
      expect(await page.locator('form input[type=password]').isVisible()).toBe(true);
      expect(await page.content()).not.toContain('Checkout');

      await page.fill('#password', 'not the password');
      await Promise.all([page.waitForURL(`${origin}/status/${p.slug}/login`), page.click('button[type=submit]')]);
      expect(await page.getByRole('alert').textContent()).toBe('That password is not right. Try again.');
      expect(await page.content()).not.toContain('Checkout');
      expect(await context.cookies()).toEqual([]);

      await page.fill('#password', 'staff only please');
      await Promise.all([page.waitForURL(`${origin}/status/${p.slug}`), page.click('button[type=submit]')]);
      expect(await page.locator('h1').textContent()).toBe('Acme Internal');
      expect(await page.locator('.component .name').allTextContents()).toEqual(['Checkout', 'Billing', 'Public API']);
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({
        name: 'sv_page_access',
        path: `/status/${p.slug}`,
        httpOnly: true,
        sameSite: 'Lax',
      });

      // The cookie keeps the visitor in on the next visit.
      const again = await page.goto(`${origin}/status/${p.slug}`);
      expect(again?.status()).toBe(200);
      expect(errors).toEqual([]);
      await screenshot(page, join(ARTIFACTS, 'status-page-protected.png'));
    } finally {
      await context.close();
    }
  }, 60_000);

  it('at 320, 390 and 1280 px, light and dark: no sideways scroll, dates never broken, 0 axe violations', async () => {
    const p = await seedPage('Acme Everywhere');
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page, errors } = await visitor({ width: 320, height: 800 }, true, scheme);
      try {
        expect((await page.goto(`${origin}/status/${p.slug}`))?.status()).toBe(200);
        for (const width of [320, 390, 1280]) {
          await resizeTo(page, width, 800);
          const layout = await page.evaluate(() => {
            const doc = (globalThis as unknown as { document: DomDocument }).document;
            return {
              scroll: doc.documentElement.scrollWidth,
              client: doc.documentElement.clientWidth,
              // A date broken at its hyphen ("2026-11- / 28") shows as a <time> drawn on two lines.
              brokenTimes: [...doc.querySelectorAll('time')].filter((t) => t.getClientRects().length > 1).length,
            };
          });
          expect([scheme, width, layout.scroll, layout.brokenTimes]).toEqual([scheme, width, layout.client, 0]);
          await screenshot(page, join(ARTIFACTS, `status-page-${width}-${scheme}.png`));
          expect([scheme, width, await axeViolations(page)]).toEqual([scheme, width, []]);
          expect(errors).toEqual([]);
        }
      } finally {
        await context.close();
      }
    }
  }, 120_000);

  it('adjacent bar levels differ by 3:1 or more, and every level from the card behind it, light and dark', async () => {
    const p = await seedPage('Acme Colours');
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page } = await visitor(undefined, false, scheme);
      try {
        await page.goto(`${origin}/status/${p.slug}`);
        const colour = (selector: string) =>
          page
            .locator(selector)
            .first()
            .evaluate((el) => (globalThis as unknown as Browserish).getComputedStyle(el).backgroundColor);
        const card = await colour('section.components');
        const levels = [];
        for (const level of ['b-up', 'b-deg', 'b-part', 'b-down']) levels.push(await colour(`.key .swatch.${level}`));
        for (let i = 0; i < levels.length; i++) {
          expect([scheme, i, contrast(levels[i]!, card) >= 3]).toEqual([scheme, i, true]);
          if (i > 0) expect([scheme, i, contrast(levels[i - 1]!, levels[i]!) >= 3]).toEqual([scheme, i, true]);
        }
      } finally {
        await context.close();
      }
    }
  }, 60_000);

  it("each day's bar detail opens by keyboard without JavaScript", async () => {
    const p = await seedPage('Acme Keys');
    const { context, page } = await visitor();
    try {
      await page.goto(`${origin}/status/${p.slug}`);
      const api = page.locator('.component', { has: page.locator('.name', { hasText: 'Public API' }) });
      const detail = api.locator('details.day-detail');
      expect(await detail.locator('.days').isVisible()).toBe(false);
      await detail.locator('summary').focus();
      await page.keyboard.press('Enter');
      const days = detail.locator('.days li');
      expect(await days.first().isVisible()).toBe(true);
      expect(await days.count()).toBe(90);
      // Each day in words, the same as its bar tells a mouse: today's comes first.
      const today = await api.locator('.bar').last().getAttribute('title');
      expect(await days.first().innerText()).toBe(today);
      expect(today).toMatch(/^\d{4}-\d\d-\d\d: (no data|[\d.]+% uptime, .+)$/);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a refused address shows its reason beside the field, with the typed value kept', async () => {
    const p = await seedPage('Acme Subscribe');
    const { context, page, errors } = await visitor({ width: 390, height: 800 });
    try {
      await page.goto(`${origin}/status/${p.slug}`);
      await page.fill('#sub-email', 'x@y');
      const [answer] = await Promise.all([
        page.waitForResponse(`${origin}/status/${p.slug}/subscribe`),
        page.click('#subscribe ~ .card button'),
      ]);
      expect(answer.status()).toBe(400);
      expect(await page.inputValue('#sub-email')).toBe('x@y');
      expect(await page.locator('#sub-email').getAttribute('aria-describedby')).toBe('sub-email-error');
      expect(await page.locator('#sub-email-error').textContent()).toBe('Must be an email address');
      const field = (await page.locator('#sub-email').boundingBox())!;
      const error = (await page.locator('#sub-email-error').boundingBox())!;
      expect(error.y - (field.y + field.height)).toBeLessThan(40);
      await screenshot(page, join(ARTIFACTS, 'status-page-subscribe-error.png'));
      expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('an incident`s page, the history and the subscribe page, branded: 320, 390 and 1280 px, light and dark, JavaScript on and off: no sideways scroll, 0 axe violations', async () => {
    const p = await seedPage('Acme Story');
    // A brand colour that reads at 1.4:1 on white: the page must use a readable shade of it (axe checks).
    await h.prisma.statusPage.update({ where: { id: p.id }, data: { brandColor: '#ffd400' } });
    const month = new Date(Date.now() - 3 * DAY).toISOString().slice(0, 7);
    const pages = [
      ['', 'branded'],
      [`/incidents/${p.openId}`, 'incident'],
      [`/incidents/${p.pastId}`, 'incident-resolved'],
      [`/history?month=${month}`, 'history'],
      ['/subscribe', 'subscribe'],
    ] as const;
    const layoutOf = (page: Page) =>
      page.evaluate(() => {
        const doc = (globalThis as unknown as { document: DomDocument }).document;
        return {
          scroll: doc.documentElement.scrollWidth,
          client: doc.documentElement.clientWidth,
          brokenTimes: [...doc.querySelectorAll('time')].filter((t) => t.getClientRects().length > 1).length,
        };
      });
    for (const javaScript of [true, false])
      for (const scheme of ['light', 'dark'] as const) {
        const { context, page, errors, requests } = await visitor({ width: 320, height: 800 }, javaScript, scheme);
        try {
          for (const [path, name] of pages) {
            expect([
              name,
              javaScript,
              scheme,
              (await page.goto(`${origin}/status/${p.slug}${path}`))?.status(),
            ]).toEqual([name, javaScript, scheme, 200]);
            // Each page loaded once per scheme and resized (see resizeTo); without JavaScript at 320 only.
            for (const width of javaScript ? [320, 390, 1280] : [320]) {
              const at = [name, javaScript, scheme, width];
              await resizeTo(page, width, 800);
              const layout = await layoutOf(page);
              expect([...at, layout.scroll, layout.brokenTimes]).toEqual([...at, layout.client, 0]);
              if (!javaScript) {
                // Without JavaScript every time stays in UTC, said so.
                const times = await page.locator('time').allTextContents();
                expect([...at, times.every((t) => t.endsWith(' UTC'))]).toEqual([...at, true]);
                continue;
              }
              await screenshot(page, join(ARTIFACTS, `status-${name}-${width}-${scheme}.png`));
              expect([...at, await axeViolations(page)]).toEqual([...at, []]);
            }
          }
          expect(requests.every((u) => u.startsWith(origin))).toBe(true);
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      }
  }, 240_000);

  it('shows times in the visitor`s zone with JavaScript, in UTC without; the incident page links back and to its month', async () => {
    const p = await seedPage('Acme Times');
    const { context, page, errors } = await visitor(undefined, true, 'light', 'Asia/Kolkata');
    try {
      await page.goto(`${origin}/status/${p.slug}/incidents/${p.pastId}`);
      const time = page.locator('.facts time').first();
      const utc = await time.getAttribute('title');
      expect(utc).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      const local = (await time.textContent())!;
      expect(local).not.toMatch(/UTC$/);
      expect(local).toMatch(/GMT\+5:30|IST/);
      expect(await page.locator('h1').textContent()).toBe('Slow API responses');
      expect(await page.locator('.affected .name').allTextContents()).toEqual(['Public API']);
      expect(await page.locator('.timeline li').count()).toBe(1);
      // The month's history lists it, linking back to its page.
      await Promise.all([page.waitForURL(/\/history\?month=/), page.click('text=Incidents of')]);
      expect(await page.locator(`a[href="/status/${p.slug}/incidents/${p.pastId}"]`).count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
