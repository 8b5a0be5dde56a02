// What the console's browser suites share: the console on a real port with Chromium, a visitor that records console errors, and one check of a page at one
// width and colour scheme (axe, no sideways scroll, a screenshot under test-artifacts/console/, no console error).
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium, type AxeViolation } from './browser.js';
import { makeHarness } from './harness.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
export type Scheme = 'light' | 'dark';

/**
 * A context with JavaScript on (the enhancement script runs; axe needs timers), recording console errors but those
 * matching `expected` (a status the test causes on purpose, such as a refused form); any other (a CSP violation above
 * all) is a defect.
 */
export async function consoleVisitor(browser: Browser, width: number, colorScheme: Scheme, expected: RegExp) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** Signs in through the login form and waits for the page it lands on. */
export async function signInThroughForm(page: Page, origin: string, email: string, password: string, landing: string) {
  await page.goto(`${origin}/app/login`);
  await page.fill('#f-email', email);
  await page.fill('#f-password', password);
  await Promise.all([page.waitForURL(`${origin}${landing}`), page.click('button[type=submit]')]);
}

/** axe-core's serious and critical violations. */
async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

async function sidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => {
    const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } })
      .document.documentElement;
    return d.scrollWidth - d.clientWidth;
  });
}

/** Checks one page at one width and scheme: axe, no sideways scroll at 390, a screenshot, no console error. */
export async function inspectConsolePage(page: Page, errors: string[], name: string, width: number, scheme: Scheme) {
  const label = `${name} ${width} ${scheme}`;
  expect([label, await seriousViolations(page)]).toEqual([label, []]);
  expect([label, await sidewaysScroll(page)]).toEqual([label, 0]);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}-${scheme}.png`), fullPage: true });
  expect([label, errors]).toEqual([label, []]);
}

/**
 * The console on 127.0.0.1 and Chromium for `suite`. The console checks Origin against PUBLIC_BASE_URL: the server
 * listens first, then the app is built for that address (and `env`: SMTP, allowed targets). `close` stops all three.
 */
export async function consoleInBrowser(suite: string, env: Partial<NodeJS.ProcessEnv> = {}) {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const h = makeHarness({ ...env, PUBLIC_BASE_URL: origin });
  server.on('request', h.app);
  const stop = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await h.close();
  };
  let browser: Browser;
  try {
    browser = await launchChromium(suite);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    h,
    origin,
    browser,
    close: async () => {
      await browser.close();
      await stop();
    },
  };
}
