// The public status page in a real browser (Debian's Chromium driven by playwright-core): what a visitor sees,
// with JavaScript off, under the page's own Content-Security-Policy. This suite never skips: without Chromium
// it fails and says how to install it.
import { existsSync, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import request from 'supertest';
import { arrangeStatusPage, setStatusPagePassword } from '../apps/api/src/services/admin/status-page-commands.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];
const ARTIFACTS = join(process.cwd(), 'test-artifacts');
const MIN = 60_000;
const DAY = 86_400_000;

let h: Harness;
let browser: Browser;
let server: Server;
let origin: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium was not found at ${CHROMIUM_PATH}. The status page browser test needs it: install it with ` +
        '`apt-get install -y chromium` (Debian) or point CHROMIUM_PATH at a Chrome/Chromium binary.',
    );
  }
  h = makeHarness();
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
  server = h.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  await h?.close();
});

/** A fresh context with JavaScript off; records every request and every console error (CSP violations land there). */
async function visitor(): Promise<{ context: BrowserContext; page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1000, height: 900 } });
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
async function monitor(w: Workspace, name: string, status: 'up' | 'degraded' | 'down') {
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .send(makeMonitorInput({ name }));
  expect(res.status).toBe(201);
  await h.prisma.monitor.update({ where: { id: res.body.data.id }, data: { status } });
  return { id: res.body.data.id as string, componentId: res.body.data.componentId as string };
}

async function seedPage(name: string) {
  const w = await makeWorkspace(h.prisma);
  const api = await monitor(w, 'Public API', 'up');
  const checkout = await monitor(w, 'Checkout', 'down');
  const billing = await monitor(w, 'Billing', 'up');
  const today = Math.floor(Date.now() / DAY) * DAY;
  // Some history for the bars: 60 days of data for the API with one bad day, and a week for Checkout.
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
  await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: checkout.id,
      openMonitorId: checkout.id,
      title: 'Checkout is down',
      status: 'open',
      startedAt: new Date(Date.now() - 12 * MIN),
    },
  });
  const created = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('shop'), name });
  expect(created.status).toBe(201);
  const page = created.body.data as { id: string; slug: string };
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
      expect(await page.getByRole('status').textContent()).toBe('Service disruption');

      const names = await page.locator('.component .name').allTextContents();
      expect(names).toEqual(['Checkout', 'Billing', 'Public API']);
      expect(await page.locator('section.components h3').allTextContents()).toEqual(['Storefront', 'Developers']);
      const stateOf = (n: string) =>
        page
          .locator('.component', { has: page.locator('.name', { hasText: n }) })
          .locator('.state')
          .textContent();
      expect(await stateOf('Checkout')).toBe('Outage');
      expect(await stateOf('Billing')).toMatch(/^Under maintenance until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      expect(await stateOf('Public API')).toBe('Operational');

      const maintenance = page.locator('article.maintenance');
      expect(await page.getByRole('heading', { name: 'Maintenance in progress' }).isVisible()).toBe(true);
      expect(await maintenance.locator('h3').textContent()).toBe('Billing database upgrade');
      expect(await maintenance.locator('.body').textContent()).toBe(
        'Invoices may be delayed while we upgrade the billing database.',
      );
      expect(await maintenance.textContent()).toContain('Affects: Billing');

      const incident = page.locator('article.incident');
      expect(await page.getByRole('heading', { name: 'Active incidents' }).isVisible()).toBe(true);
      expect(await incident.locator('h3').textContent()).toBe('Checkout is down');
      expect(await incident.textContent()).toMatch(/Investigating · started \d{4}-\d\d-\d\d \d\d:\d\d UTC/);

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

      expect(requests.every((u) => u.startsWith(origin) || u.startsWith('data:'))).toBe(true);
      expect(errors).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, 'status-page.png'), fullPage: true });
    } finally {
      await context.close();
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
      await page.screenshot({ path: join(ARTIFACTS, 'status-page-protected.png'), fullPage: true });
    } finally {
      await context.close();
    }
  }, 60_000);
});
