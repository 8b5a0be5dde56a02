// What the console's browser suites share: a visitor (a context at a width and colour scheme that records console
// errors), signing in through the form, and the check of one page (axe, no sideways scroll, a screenshot in
// test-artifacts/console/, no console error).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from './browser.js';

export const CONSOLE_ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
export type Scheme = 'light' | 'dark';

/**
 * A context with JavaScript on (the enhancement script runs; axe needs timers) at `width` px, recording console
 * errors but those `expected` matches (an answer refused on purpose, such as a sign-in's 401 or a form's 400).
 */
export async function consoleVisitor(browser: Browser, width: number, colorScheme: Scheme, expected: RegExp) {
  mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    // Anything else (a CSP violation above all) is a defect.
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

/** Checks one page at one width and scheme: axe, no sideways scroll at 390, a screenshot, no console error. */
export async function inspectConsolePage(page: Page, errors: string[], name: string, width: number, scheme: Scheme) {
  const label = `${name} ${width} ${scheme}`;
  const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect([label, serious]).toEqual([label, []]);
  const sideways = await page.evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`);
  expect([label, sideways]).toEqual([label, 0]);
  await page.screenshot({ path: join(CONSOLE_ARTIFACTS, `${name}-${width}-${scheme}.png`), fullPage: true });
  expect([label, errors]).toEqual([label, []]);
}
