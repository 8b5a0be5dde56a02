// The API reference in Chromium (JavaScript off for the reading, on for axe): readable on a phone, no sideways
// scroll, no serious or critical axe violation, a first view under 60 KB gzipped. Screenshots in test-artifacts/.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { ARTIFACTS, axeViolations, resizeTo, screenshot, serveToBrowser } from './support/browser.js';
import { makeHarness, type Harness } from './support/harness.js';

let h: Harness;
let browser: Browser;
let origin: string;
let served: Awaited<ReturnType<typeof serveToBrowser>> | undefined;

beforeAll(async () => {
  h = makeHarness();
  served = await serveToBrowser(h.app, 'docs page');
  ({ browser, origin } = served);
}, 60_000);

afterAll(async () => {
  await served?.close();
  await h?.close();
});

type Doc = { documentElement: { scrollWidth: number; clientWidth: number } };

describe('the API reference in Chromium', () => {
  it('first view under 60 KB gzipped (the page and its stylesheet)', async () => {
    const page = await request(h.app).get('/docs').set('Accept-Encoding', 'identity');
    const css = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)![1]!;
    const sheet = await request(h.app).get(css).set('Accept-Encoding', 'identity');
    const bytes = gzipSync(page.text).length + gzipSync(sheet.text).length;
    expect(bytes).toBeLessThan(60_000);
  });

  it('at 390 and 1280 px, light and dark: no sideways scroll and no serious or critical axe violation', async () => {
    // A context per scheme, each page loaded once in it and resized (see resizeTo).
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport: { width: 390, height: 900 }, colorScheme });
      const page = await context.newPage();
      try {
        for (const path of [
          '/docs',
          '/docs/monitors',
          '/docs/status-pages',
          '/docs/reference',
          '/docs/search?q=monitor',
        ]) {
          expect((await page.goto(`${origin}${path}`))?.status()).toBe(200);
          for (const width of [390, 1280]) {
            await resizeTo(page, width, 900);
            const w = await page.evaluate(() => {
              const d = (globalThis as unknown as { document: Doc }).document.documentElement;
              return { scroll: d.scrollWidth, client: d.clientWidth };
            });
            expect([path, width, colorScheme, w.scroll]).toEqual([path, width, colorScheme, w.client]);
            // The whole reference is every tag's page at once (the same components): axe over it, the slowest
            // check of the suite, runs at both widths and in both schemes, not in all four pairs of them.
            if (path !== '/docs/reference' || (width === 390) === (colorScheme === 'light')) {
              const serious = (await axeViolations(page)).filter(
                (v) => v.impact === 'serious' || v.impact === 'critical',
              );
              expect([path, width, colorScheme, serious]).toEqual([path, width, colorScheme, []]);
            }
            if (colorScheme === 'light' && path !== '/docs/reference')
              await screenshot(page, join(ARTIFACTS, `docs${path.replace(/[/?=]+/g, '-')}-${width}.png`), {
                fullPage: path === '/docs',
              });
          }
        }
      } finally {
        await context.close();
      }
    }
  }, 240_000);

  it('the contents are collapsed on a phone and shown beside the content on a wide screen', async () => {
    for (const [width, shown] of [
      [390, false],
      [1280, true],
    ] as const) {
      const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height: 800 } });
      const page = await context.newPage();
      try {
        await page.goto(`${origin}/docs`);
        const link = page.locator('nav a', { hasText: 'Escalation policies' });
        expect([width, await link.isVisible()]).toEqual([width, shown]);
        if (!shown) {
          await page.locator('.contents summary').click();
          expect(await link.isVisible()).toBe(true);
        }
      } finally {
        await context.close();
      }
    }
  }, 60_000);

  it('finds an operation with the filter, JavaScript off', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${origin}/docs`);
      await page.fill('#q', 'maintenance post');
      await Promise.all([page.waitForURL(/\/docs\/search\?q=maintenance\+post$/), page.click('.filter button')]);
      await page.click('text=POST /maintenance');
      expect(page.url()).toBe(`${origin}/docs/maintenance#op-createMaintenanceWindow`);
      expect(await page.locator('#op-createMaintenanceWindow').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  }, 60_000);
});
