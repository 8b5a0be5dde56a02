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
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        const { context, page, errors } = await visitor(width, scheme);
        try {
          await page.goto(`${origin}/app/login`);
          await inspect(page, errors, 'login', width, scheme);
          await signIn(page, owner.email);
          await inspect(page, errors, 'monitors', width, scheme);
          await page.goto(`${origin}/app/account`);
          await inspect(page, errors, 'account', width, scheme);
          // Setting up two-factor sign-in: the QR code drawn on the server, the key as text, the code field. (After
          // the first round the set-up is already under way, and the page shows it at once.)
          const start = page.getByRole('button', { name: 'Set up two-factor sign-in' });
          if (await start.count())
            await Promise.all([page.waitForURL(`${origin}/app/account#two-factor`), start.click()]);
          expect(await page.getByRole('img', { name: 'QR code of the two-factor key' }).isVisible()).toBe(true);
          await inspect(page, errors, 'account-two-factor', width, scheme);
        } finally {
          await context.close();
        }
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
