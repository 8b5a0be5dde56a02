// Debian's Chromium driven by playwright-core, and axe-core injected from node_modules: what the browser suites
// (status page, console) share. Never `npx playwright install` (it downloads a browser).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
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
 * DevTools protocol).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  return page.evaluate(
    `(async () => { ${AXE_SOURCE}; const r = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } }); return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })); })()`,
  );
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
