// The console in a real browser (Debian's Chromium driven by playwright-core), under its own Content-Security-
// Policy: sign in through the form, see the monitors page, no serious or critical axe-core violation at 1280 and
// 390 px in light and dark, no sideways scroll at 390 px, and sign out. Screenshots go to test-artifacts/console/.
// This suite never skips: without Chromium it fails and says how to install it.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import {
  bearer,
  createMonitorNamed,
  makeUser,
  makeWorkspace,
  monitorShowing,
  type Harness,
} from './support/harness.js';
import {
  consoleInBrowser,
  consoleVisitor,
  inspectConsolePage,
  OPENING_WIDTH,
  SCHEMES,
  signInThroughForm,
  type Scheme,
} from './support/console-browser.js';
import { setUserPassword } from './support/console.js';

const PASSWORD = 'correct horse battery staple';

let h: Harness;
let browser: Browser;
let served: Awaited<ReturnType<typeof consoleInBrowser>>;
let origin: string;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let owner: { email: string };
let viewer: { email: string };

beforeAll(async () => {
  served = await consoleInBrowser('console');
  ({ h, origin, browser } = served);

  w = await makeWorkspace(h.prisma);
  await h.prisma.workspace.update({ where: { id: w.ws.id }, data: { name: 'Acme Production' } });
  await monitorShowing(h, w, 'Public API', 'up');
  await monitorShowing(h, w, 'Checkout', 'down');
  await monitorShowing(h, w, 'Search (eu-west, a long name that has to wrap on a phone)', 'degraded');
  await monitorShowing(h, w, 'Billing', 'up');
  await createMonitorNamed(h, w, 'Nightly export');
  const old = await monitorShowing(h, w, 'Legacy admin', 'down');
  await request(h.app).patch(`/api/v1/monitors/${old.id}`).set(bearer(w.tokens.owner)).send({ enabled: false });
  const now = new Date();
  await h.prisma.monitor.updateMany({
    where: { workspaceId: w.ws.id },
    data: { lastCheckedAt: new Date(now.getTime() - 90_000) },
  });
  owner = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'owner' }]);
  await h.prisma.user.update({ where: { email: owner.email }, data: { name: 'Ada Operator' } });
  await setUserPassword(h.prisma, owner.email, PASSWORD);
  viewer = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'viewer' }]);
  await setUserPassword(h.prisma, viewer.email, PASSWORD);
}, 60_000);

afterAll(async () => {
  await served?.close();
});

const visitor = (width: number, colorScheme: Scheme = 'light') =>
  // A refused sign-in answers 401 on purpose.
  consoleVisitor(browser, width, colorScheme, /status of 401/);
const signIn = (page: Page, email: string) =>
  signInThroughForm(page, origin, email, PASSWORD, `/app/${w.ws.slug}/monitors`);
const inspect = inspectConsolePage;

describe('the console in Chromium', () => {
  it('signs in through the form and lands on the monitors page', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page, owner.email);
      await expect(page.title()).resolves.toBe('Monitors · Statusvane');
      expect(await page.locator('h1').textContent()).toBe('Monitors');
      expect(await page.locator('table.monitors tbody tr').count()).toBe(6);
      expect(await page.locator('.count-down strong').textContent()).toBe('1');
      // Styles applied from the hashed stylesheet (the CSP allowed it): the table has its border radius.
      const radius = await page
        .locator('table.monitors')
        .evaluate(
          (el) =>
            (
              globalThis as unknown as { getComputedStyle(e: unknown): { borderTopLeftRadius: string } }
            ).getComputedStyle(el).borderTopLeftRadius,
        );
      expect(radius).toBe('8px');
      // The enhancement script ran (it marks the document).
      expect(await page.locator('html.js').count()).toBe(1);
      // Filtering by status through the select (submitted by the script on change).
      await Promise.all([page.waitForURL(/status=down/), page.selectOption('#monitor-status', 'down')]);
      expect(await page.locator('table.monitors tbody tr').count()).toBe(1);
      expect(await page.locator('table.monitors td.name a').textContent()).toBe('Checkout');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('passes axe with no sideways scroll at 1280 and 390 px, light and dark: sign-in, monitors, account, 2FA set-up', async () => {
    for (const scheme of SCHEMES) {
      const { context, page, errors } = await visitor(OPENING_WIDTH[scheme], scheme);
      try {
        await page.goto(`${origin}/app/login`);
        await inspect(page, errors, 'login', scheme);
        await signIn(page, owner.email);
        await inspect(page, errors, 'monitors', scheme);
        await page.goto(`${origin}/app/account`);
        await inspect(page, errors, 'account', scheme);
        // Setting up two-factor sign-in: the QR code drawn on the server, the key as text, the code field. (After
        // the first round the set-up is already under way, and the page shows it at once.)
        const start = page.getByRole('button', { name: 'Set up two-factor sign-in' });
        if (await start.count())
          await Promise.all([page.waitForURL(`${origin}/app/account#two-factor`), start.click()]);
        expect(await page.getByRole('img', { name: 'QR code of the two-factor key' }).isVisible()).toBe(true);
        await inspect(page, errors, 'account-two-factor', scheme);
      } finally {
        await context.close();
      }
    }
  }, 180_000);

  it('shows a viewer no write control; signing out ends the session', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page, viewer.email);
      expect(await page.locator('table.monitors tbody tr').count()).toBe(6);
      expect(await page.locator('table.monitors button').count()).toBe(0);
      expect(await page.locator('form[method=post]').count()).toBe(1); // sign out only
      await Promise.all([page.waitForURL(`${origin}/app/login?done=signed-out`), page.click('text=Sign out')]);
      expect(await page.getByRole('status').textContent()).toBe('You are signed out.');
      await page.goto(`${origin}/app/${w.ws.slug}/monitors`);
      expect(page.url()).toBe(`${origin}/app/login?next=${encodeURIComponent(`/app/${w.ws.slug}/monitors`)}`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});

// Incidents, maintenance, status pages, settings and the wall view (console engineer B's pages).
describe('the operations pages in Chromium', () => {
  let base: string;
  let incidentId: string;
  let wallUrl: string;
  let wallId: string;
  /** Each page once, by the name of its screenshot. */
  let pages: Array<[string, string]>;

  beforeAll(async () => {
    base = `${origin}/app/${w.ws.slug}`;
    const api = (method: 'post' | 'put', path: string, body: object) =>
      request(h.app)[method](`/api/v1${path}`).set(bearer(w.tokens.owner)).send(body);
    const components = await h.prisma.component.findMany({ where: { workspaceId: w.ws.id }, orderBy: { name: 'asc' } });
    const checkout = components.find((c) => c.name === 'Checkout')!;
    const policy = await api('post', '/escalation-policies', {
      name: 'Primary on-call',
      isDefault: true,
      steps: [
        { delayMinutes: 0, targets: [{ channel: 'email', target: 'oncall@example.test' }] },
        { delayMinutes: 15, targets: [{ channel: 'email', target: 'lead@example.test' }] },
      ],
    });
    expect(policy.status).toBe(201);
    const incident = await api('post', '/incidents', {
      title: 'Checkout returns 503 for card payments',
      impact: 'major',
      componentIds: [checkout.id],
      message: 'We are looking into failed card payments.',
    });
    expect(incident.status).toBe(201);
    incidentId = incident.body.data.id as string;
    const old = await api('post', '/incidents', { title: 'Search results slow', impact: 'minor' });
    await request(h.app).post(`/api/v1/incidents/${old.body.data.id}/resolve`).set(bearer(w.tokens.owner)).send({});
    const hour = Math.ceil(Date.now() / 3_600_000) * 3_600_000;
    const window = await api('post', '/maintenance', {
      title: 'Database upgrade to PostgreSQL 17',
      body: 'Writes pause for about ten minutes while the primary fails over.',
      startsAt: new Date(hour + 24 * 3_600_000).toISOString(),
      endsAt: new Date(hour + 26 * 3_600_000).toISOString(),
      componentIds: [checkout.id],
    });
    expect(window.status).toBe(201);
    const statusPage = await api('post', '/status-pages', { name: 'Acme status', vanityUrl: `acme-${w.ws.slug}` });
    expect(statusPage.status).toBe(201);
    await request(h.app)
      .patch(`/api/v1/status-pages/${statusPage.body.data.id}`)
      .set(bearer(w.tokens.owner))
      .send({
        sections: [
          { name: 'Customer facing', componentIds: components.slice(0, 3).map((c) => c.id) },
          { name: 'Internal', componentIds: components.slice(3).map((c) => c.id) },
        ],
      });
    const hook = await api('post', '/webhooks', {
      url: 'https://93.184.215.14/hooks/statusvane',
      description: 'Chat bridge',
      types: ['incident.opened', 'incident.resolved'],
    });
    expect(hook.status).toBe(201);
    await api('post', '/tokens', { name: 'Deploy pipeline', role: 'member' });
    const wall = await api('post', '/wall-tokens', { name: 'Office screen' });
    expect(wall.status).toBe(201);
    wallUrl = wall.body.data.url as string;
    wallId = wall.body.data.id as string;
    pages = [
      ['incidents', `${base}/incidents`],
      ['incident', `${base}/incidents/${incidentId}`],
      ['incident-new', `${base}/incidents/new`],
      ['maintenance', `${base}/maintenance`],
      ['maintenance-window', `${base}/maintenance/${window.body.data.id}`],
      ['maintenance-new', `${base}/maintenance/new`],
      ['status-pages', `${base}/status-pages`],
      ['status-page', `${base}/status-pages/${statusPage.body.data.id}`],
      ['components', `${base}/components`],
      ['settings-members', `${base}/settings/members`],
      ['settings-tokens', `${base}/settings/tokens`],
      ['settings-policies', `${base}/settings/escalation-policies`],
      ['settings-policy', `${base}/settings/escalation-policies/${policy.body.data.id}`],
      ['settings-webhooks', `${base}/settings/webhooks`],
      ['settings-webhook', `${base}/settings/webhooks/${hook.body.data.id}`],
      ['settings-wall', `${base}/settings/wall`],
      ['settings-audit', `${base}/settings/audit`],
      ['wall', wallUrl],
    ];
  }, 60_000);

  it('passes axe with no sideways scroll at 1280 and 390 px, light and dark, on every page', async () => {
    const problems: string[] = [];
    for (const scheme of SCHEMES) {
      const { context, page, errors } = await visitor(OPENING_WIDTH[scheme], scheme);
      try {
        await signIn(page, owner.email);
        for (const [name, url] of pages) {
          const res = await page.goto(url);
          expect([name, res?.status()]).toEqual([name, 200]);
          // Every page's problems at once, rather than the first page's only.
          await inspect(page, errors, name, scheme).catch((e: Error) => problems.push(e.message));
        }
      } finally {
        await context.close();
      }
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('acknowledges and resolves an incident through its buttons', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page, owner.email);
      const path = `${base}/incidents/${incidentId}`;
      await page.goto(path);
      await Promise.all([
        page.waitForURL(`${path}?done=acknowledged`),
        page.getByRole('button', { name: 'Acknowledge' }).click(),
      ]);
      expect(await page.getByText('Acknowledged by Ada Operator').count()).toBeGreaterThan(0);
      page.once('dialog', (d) => void d.accept());
      await Promise.all([
        page.waitForURL(`${path}?done=resolved`),
        page.getByRole('button', { name: 'Resolve' }).click(),
      ]);
      expect(await page.getByRole('button', { name: 'Resolve' }).count()).toBe(0);
      const stored = await h.prisma.incident.findUniqueOrThrow({ where: { id: incidentId } });
      expect(stored.status).toBe('resolved');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('shows the wall without sign-in, and stops it as soon as its link is deleted', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      const shown = await page.goto(wallUrl);
      expect(shown?.status()).toBe(200);
      expect(await page.locator('.wall-tile').count()).toBe(6);
      expect(await page.locator('meta[name=robots]').getAttribute('content')).toContain('noindex');
      // With JavaScript the page redraws itself in place: the meta refresh (for screens without it) is inert.
      expect(await page.locator('meta[http-equiv=refresh]').count()).toBe(0);
      expect(await page.locator('body[data-refresh]').count()).toBe(1);
      const gone = await request(h.app).delete(`/api/v1/wall-tokens/${wallId}`).set(bearer(w.tokens.owner));
      expect(gone.status).toBe(204);
      expect((await page.reload())?.status()).toBe(404);
      expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
