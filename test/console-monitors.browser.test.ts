// The monitors pages in a real browser (Debian's Chromium driven by playwright-core) under the console's CSP: a monitor
// created through the form turns up without a reload (server-sent events fed by the event log), the response-time chart
// is drawn on a canvas (pixels read back), bulk pause through the preview, and axe-core with no serious or critical
// violation at 1280 and 390 px, light and dark, on each page, no sideways scroll at 390 px. Screenshots go to
// test-artifacts/console/.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { rebuildRollups } from '@statusvane/shared';
import { LIVE_TIMING } from '../apps/api/src/console/monitors/live-status.js';
import request from 'supertest';
import {
  bearer,
  createMonitorNamed,
  maintenanceInProgress,
  makeHarness,
  makeUser,
  makeWorkspace,
  monitorShowing,
  type Harness,
} from './support/harness.js';
import { launchChromium } from './support/browser.js';
import {
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
let server: Server;
let origin: string;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let owner: { email: string };
let shop: { id: string };
let flow: { id: string };

/** Results over the last days in two regions (four an hour, one of them slow), for the chart and the sparklines. */
async function history(monitorId: string, base: number) {
  const now = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const rows = Array.from({ length: 72 }, (_, i) =>
    (
      [
        ['eu-west', 0],
        ['us-east', 60],
      ] as const
    ).flatMap(([region, offset]) => {
      const wave = Math.round(base + offset + 40 * Math.sin(i / 4) + (i % 7) * 6);
      return [0, 12, 25, 140 + (i % 5) * 30].map((extra, k) => {
        const at = new Date(now - i * 3_600_000 + k * 900_000 + 60_000);
        const down = i === 30 && k === 2 && region === 'us-east';
        return {
          monitorId,
          region,
          slot: at,
          checkedAt: at,
          outcome: down ? ('down' as const) : ('up' as const),
          responseMs: down ? null : wave + extra,
          dnsMs: 4,
          connectMs: 12,
          tlsMs: 25,
          waitingMs: wave + extra - 45,
          statusCode: down ? 503 : 200,
          address: '93.184.215.14',
        };
      });
    }),
  ).flat();
  await h.prisma.checkResult.createMany({ data: rows.filter((r) => r.checkedAt.getTime() < Date.now()) });
  await rebuildRollups(h.prisma, monitorId);
}

beforeAll(async () => {
  LIVE_TIMING.pollMs = 200;
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = makeHarness({ PUBLIC_BASE_URL: origin, CHECK_REGIONS: 'eu-west,us-east' });
  server.on('request', h.app);
  browser = await launchChromium('console monitors');

  w = await makeWorkspace(h.prisma, { plan: 'solo' });
  await h.prisma.workspace.update({ where: { id: w.ws.id }, data: { name: 'Acme Production' } });
  shop = await monitorShowing(h, w, 'Shop front', 'up');
  const api = await monitorShowing(h, w, 'Public API', 'up');
  await monitorShowing(h, w, 'Checkout', 'down');
  await monitorShowing(h, w, 'Search (eu-west, a long name that has to wrap on a phone)', 'degraded');
  const billing = await monitorShowing(h, w, 'Billing', 'up');
  await createMonitorNamed(h, w, 'Nightly export');
  const created = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .send({
      type: 'api',
      name: 'Orders API flow',
      steps: [
        {
          name: 'log in',
          method: 'POST',
          url: 'https://93.184.215.14/login',
          headers: { 'X-Trace': 'console' },
          body: '{"user":"probe"}',
          assertions: [{ source: 'status', operator: 'eq', value: 200 }],
          extract: [{ as: 'token', from: 'json', path: '$.token' }],
        },
        {
          name: 'read the orders of the last day, a long step name that has to wrap on a phone',
          method: 'GET',
          url: 'https://93.184.215.14/orders?since=1d',
          headers: { Authorization: 'Bearer {{token}}' },
          assertions: [
            { source: 'json', property: '$.items', operator: 'exists' },
            { source: 'responseMs', operator: 'lt', value: 800 },
          ],
        },
        { name: 'log out', method: 'DELETE', url: 'https://93.184.215.14/session', always: true },
      ],
    });
  expect(created.status).toBe(201);
  flow = { id: created.body.data.id as string };
  await maintenanceInProgress(h, w, [billing.componentId]);
  await history(shop.id, 180);
  await history(api.id, 90);
  await h.prisma.monitor.updateMany({
    where: { workspaceId: w.ws.id },
    data: { lastCheckedAt: new Date(Date.now() - 90_000) },
  });
  await h.prisma.monitor.update({
    where: { id: shop.id },
    data: {
      certificate: {
        subject: 'CN=shop.example.com',
        issuer: "C=US, O=Let's Encrypt, CN=R11",
        validFrom: '2026-09-01T00:00:00.000Z',
        validTo: new Date(Date.now() + 41 * 86_400_000).toISOString(),
        daysRemaining: 41,
        fingerprint256:
          'AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89',
      },
    },
  });
  owner = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'owner' }]);
  await h.prisma.user.update({ where: { email: owner.email }, data: { name: 'Ada Operator' } });
  await setUserPassword(h.prisma, owner.email, PASSWORD);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  await h?.close();
});

const visitor = (width: number, colorScheme: Scheme = 'light') =>
  // A form refused with its issues beside the fields answers 400 on purpose.
  consoleVisitor(browser, width, colorScheme, /status of 400/);
const signIn = (page: Page) => signInThroughForm(page, origin, owner.email, PASSWORD, `/app/${w.ws.slug}/monitors`);
const inspect = inspectConsolePage;

/** How many pixels of the chart's canvas are painted (not transparent). */
const paintedPixels = (page: Page) =>
  page.evaluate(`(() => {
    const canvas = document.querySelector('.chart-canvas canvas');
    if (!canvas) return -1;
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
    return n;
  })()`) as Promise<number>;

describe('the monitors pages in Chromium', () => {
  it('creates a monitor through the form and watches it turn up without a reload', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page);
      await Promise.all([page.waitForURL(/\/monitors\/new/), page.click('text=New monitor')]);
      await page.fill('#f-name', 'Status API');
      await page.fill('#f-target', 'https://93.184.215.14/status');
      await Promise.all([page.waitForURL(/done=created/), page.click('button:has-text("Create monitor")')]);
      const id = /\/monitors\/([0-9a-f-]{36})/.exec(page.url())![1]!;
      const header = page.locator(`.monitor-header[data-monitor="${id}"]`);
      expect(await header.getAttribute('data-status')).toBe('pending');
      // The first check passes (the worker's write to the monitor: the event log records the change).
      await page.waitForTimeout(300);
      await h.prisma.monitor.update({ where: { id }, data: { status: 'up', lastCheckedAt: new Date() } });
      await page.waitForSelector(`.monitor-header[data-monitor="${id}"][data-status="up"]`, { timeout: 15_000 });
      expect(await header.locator('.badge-text').textContent()).toBe('Up');
      expect(await page.locator('#live-announcer').textContent()).toBe('Status API is up.');
      // And on the list, a row changes as well.
      await page.goto(`${origin}/app/${w.ws.slug}/monitors`);
      await page.waitForTimeout(300);
      await h.prisma.monitor.update({ where: { id }, data: { status: 'down' } });
      await page.waitForSelector(`#monitor-${id}[data-status="down"]`, { timeout: 15_000 });
      expect(await page.locator(`#monitor-${id} .badge-text`).textContent()).toBe('Down');
      expect(errors).toEqual([]);
      await h.prisma.monitor.delete({ where: { id } });
    } finally {
      await context.close();
    }
  }, 90_000);

  it('draws the response-time chart on a canvas (pixels painted), p50 and p95 per region', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page);
      await page.goto(`${origin}/app/${w.ws.slug}/monitors/${shop.id}?range=7d`);
      await page.waitForSelector('.chart.chart-drawn .chart-canvas canvas');
      expect(await paintedPixels(page)).toBeGreaterThan(2000);
      expect(await page.locator('.chart-svg').isVisible()).toBe(false);
      const legend = await page.locator('.u-legend .u-series .u-label').allTextContents();
      expect(legend).toEqual(['Time', 'eu-west p50', 'eu-west p95', 'us-east p50', 'us-east p95']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('bulk-pauses through the preview', async () => {
    const { context, page, errors } = await visitor(1280);
    try {
      await signIn(page);
      await page.check('#select-all');
      expect(await page.locator('#bulk-count').textContent()).toMatch(/^\d+ selected$/);
      await page.uncheck('#select-all');
      await page.check('input[aria-label="Select Public API"]');
      await page.check('input[aria-label="Select Checkout"]');
      expect(await page.locator('#bulk-count').textContent()).toBe('2 selected');
      await Promise.all([page.waitForURL(/\/monitors\/bulk\?/), page.click('button:has-text("Pause selected")')]);
      expect(await page.locator('h1').textContent()).toBe('Pause 2 monitors?');
      for (const scheme of ['light', 'dark'] as const) await page.emulateMedia({ colorScheme: scheme });
      await Promise.all([page.waitForURL(/done=bulk-paused&n=2/), page.click('button:has-text("Pause 2 monitors")')]);
      expect(await page.getByRole('status').first().textContent()).toBe('2 monitors paused.');
      expect(await page.locator('tr[data-status="paused"]').count()).toBe(2);
      expect(errors).toEqual([]);
      await h.prisma.monitor.updateMany({ where: { workspaceId: w.ws.id }, data: { enabled: true } });
    } finally {
      await context.close();
    }
  }, 60_000);

  it('passes axe with no sideways scroll at 1280 and 390 px, light and dark, on each monitors page', async () => {
    for (const scheme of SCHEMES) {
      const { context, page, errors } = await visitor(OPENING_WIDTH[scheme], scheme);
      try {
        await signIn(page);
        await inspect(page, errors, 'monitors-list', scheme);
        await page.goto(`${origin}/app/${w.ws.slug}/monitors/${shop.id}`);
        await page.waitForSelector('.chart.chart-drawn');
        await inspect(page, errors, 'monitor', scheme);
        await page.goto(`${origin}/app/${w.ws.slug}/monitors/${shop.id}/edit`);
        await inspect(page, errors, 'monitor-edit', scheme);
        await page.goto(`${origin}/app/${w.ws.slug}/monitors/new?type=http`);
        await page.fill('#f-name', '');
        await page.fill('#f-target', 'ftp://nowhere');
        await page.fill('#f-degradedAfterMs', '20000');
        await page.click('button:has-text("Create monitor")');
        await page.waitForSelector('.field-error');
        await inspect(page, errors, 'monitor-new-errors', scheme);
        // The api monitor's form: its steps, a step added with the button, then a 400 beside a step's field.
        await page.goto(`${origin}/app/${w.ws.slug}/monitors/${flow.id}`);
        expect(await page.locator('.step-summary li').count()).toBe(3);
        await inspect(page, errors, 'monitor-api', scheme);
        await page.goto(`${origin}/app/${w.ws.slug}/monitors/${flow.id}/edit`);
        await inspect(page, errors, 'monitor-api-edit', scheme);
        await page.goto(`${origin}/app/${w.ws.slug}/monitors/new?type=api`);
        await page.fill('[name="steps.0.name"]', 'log in');
        await page.fill('[name="steps.0.url"]', 'https://93.184.215.14/login');
        await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: '+ Add step' }).click()]);
        await page.waitForSelector('[name="steps.1.url"]');
        expect(await page.inputValue('[name="steps.0.url"]')).toBe('https://93.184.215.14/login');
        await page.fill('#f-name', 'Orders API flow 2');
        await page.fill('[name="steps.1.name"]', 'read');
        await page.fill('[name="steps.1.url"]', 'ftp://nowhere/{{token}}');
        await page.getByRole('button', { name: 'Create monitor' }).click();
        await page.waitForSelector('#f-steps-1-url-error');
        await inspect(page, errors, 'monitor-api-new-errors', scheme);
        await page.goto(`${origin}/app/${w.ws.slug}/monitors/bulk?action=pause&id=${shop.id}`);
        await inspect(page, errors, 'monitors-bulk-preview', scheme);
      } finally {
        await context.close();
      }
    }
  }, 300_000);
});
