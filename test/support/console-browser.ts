// What the console's browser suites share: the console on a real port with Chromium, a visitor that records console
// errors, and the check of a page at each width in one colour scheme (axe, no sideways scroll, a screenshot under
// test-artifacts/console/, no console error).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium, resizeTo, screenshot, type AxeViolation } from './browser.js';
import { makeHarness } from './harness.js';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
export type Scheme = 'light' | 'dark';
/** Both colour schemes, each checked in a context of its own. */
export const SCHEMES = ['light', 'dark'] as const;
const HEIGHT = 900;

/**
 * A context with JavaScript on (the enhancement script runs; axe needs timers), recording console errors but those
 * matching `expected` (a status the test causes on purpose, such as a refused form); any other (a CSP violation above
 * all) is a defect.
 */
export async function consoleVisitor(browser: Browser, width: number, colorScheme: Scheme, expected: RegExp) {
  const context = await browser.newContext({ viewport: { width, height: HEIGHT }, colorScheme });
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

/** The widths every console page is checked at: a laptop and a phone. */
const WIDTHS = [1280, 390] as const;
/**
 * The width a scheme's context opens at, where a test clicks and types its way to the pages it checks: a laptop in
 * light, a phone in dark, so that each journey is made on a phone too.
 */
export const OPENING_WIDTH: Record<Scheme, number> = { light: 1280, dark: 390 };

/**
 * Checks the loaded page at each of `widths` in the context's colour scheme: axe, no sideways scroll, a screenshot, no
 * console error. The viewport is resized (resizeTo) rather than the page opened again in a new context; the colour
 * scheme is the context's own: the chart reads its colours when drawn, so each scheme gets a context (and a load of
 * the page) of its own.
 */
export async function inspectConsolePage(
  page: Page,
  errors: string[],
  name: string,
  scheme: Scheme,
  widths: readonly number[] = WIDTHS,
) {
  const opened = page.viewportSize()!.width;
  // Each width's problems, not the first width's only.
  const failures: Error[] = [];
  for (const width of widths) {
    await resizeTo(page, width, HEIGHT);
    const label = `${name} ${width} ${scheme}`;
    try {
      expect([label, await seriousViolations(page)]).toEqual([label, []]);
      expect([label, await sidewaysScroll(page)]).toEqual([label, 0]);
      await screenshot(page, join(ARTIFACTS, `${name}-${width}-${scheme}.png`));
      expect([label, errors]).toEqual([label, []]);
    } catch (err) {
      failures.push(err as Error);
    }
  }
  // Back to the width the test works at (OPENING_WIDTH): its clicks and typing happen there.
  await resizeTo(page, opened, HEIGHT);
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new Error(failures.map((f) => f.message).join('\n\n'));
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
