// Debian's Chromium driven by playwright-core, and axe-core injected from node_modules: what the browser suites
// (status page, console) share. Never `npx playwright install` (it downloads a browser).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

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

/** Launches Chromium, or fails saying how to install it: the browser suites never skip. */
export async function launchChromium(suite: string): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium was not found at ${CHROMIUM_PATH}. The ${suite} browser test needs it: install it with ` +
        '`apt-get install -y chromium` (Debian) or point CHROMIUM_PATH at a Chrome/Chromium binary.',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
export type AxeViolation = { id: string; impact: string; help: string; nodes: Array<{ target: unknown[] }> };

/**
 * Runs axe-core in the page (WCAG 2.x A and AA rules, best practices) and returns its violations. It needs a
 * context with JavaScript on (its scheduler uses timers); the page's CSP stays on (evaluate() runs through the
 * DevTools protocol). axe's 500 KB are evaluated once per document, not on every run: a page checked at several
 * widths compiles them once. Every rule runs as before; `resultTypes` only spares axe collecting every node that
 * passed (it keeps one per rule), which nobody here reads.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
}

/**
 * Resizes the page's viewport and waits two frames (ResizeObserver callbacks and layout have run): how a suite checks
 * one loaded page at several widths instead of opening it again in a context per width. The server renders the same
 * HTML whatever the width (it never sees it) and the layout follows the viewport; a script that measures on load
 * would not, and must redraw on resize (the console's chart does).
 */
export async function resizeTo(page: Page, width: number, height: number): Promise<void> {
  const now = page.viewportSize();
  if (now?.width === width && now.height === height) return;
  await page.setViewportSize({ width, height });
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
}

/**
 * A PNG of the whole page (or of the viewport) written to `path`: the image `page.screenshot({ fullPage })` takes, in
 * about half the time. Chromium's `optimizeForSpeed` encodes the PNG with faster compression (a somewhat larger file);
 * Playwright does not expose it, hence the DevTools protocol, with the clip Playwright would give. Web fonts are waited
 * for first, as Playwright does.
 */
export async function screenshot(page: Page, path: string, { fullPage = true } = {}): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await page.evaluate('document.fonts.ready.then(() => true)');
    const { cssContentSize: size, cssVisualViewport: view } = await cdp.send('Page.getLayoutMetrics');
    const clip = fullPage
      ? { x: 0, y: 0, width: Math.ceil(size.width), height: Math.ceil(size.height), scale: 1 }
      : { x: view.pageX, y: view.pageY, width: view.clientWidth, height: view.clientHeight, scale: view.scale };
    const shot = await cdp.send('Page.captureScreenshot', {
      format: 'png',
      optimizeForSpeed: true,
      captureBeyondViewport: fullPage,
      clip,
    });
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, Buffer.from(shot.data, 'base64'));
  } finally {
    await cdp.detach();
  }
}

/** Where the browser suites write their screenshots. */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

/**
 * An app served on 127.0.0.1 for a browser to visit, and Chromium: what each browser suite's beforeAll sets up
 * (and `close` takes down). Screenshots go to ARTIFACTS.
 */
export async function serveToBrowser(
  app: { listen(port: number, host: string): Server },
  suite: string,
): Promise<{ browser: Browser; origin: string; close(): Promise<void> }> {
  const browser = await launchChromium(suite);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    browser,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
