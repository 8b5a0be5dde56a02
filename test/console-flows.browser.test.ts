// Whole journeys through the console in a real browser (Debian's Chromium driven by playwright-core), under its CSP:
// an invitation from the members page, read from the mail (a local SMTP server), to a password, sign-in, sign-out and
// sign-in again; a form sent without its CSRF token is refused (403) and writes nothing; and a monitor created through
// the form, seen in the list, whose status changes on the open list (server-sent events) when a real check of a
// local target (a worker on this suite's queues) fails.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { consoleInBrowser, consoleVisitor, signInThroughForm } from './support/console-browser.js';
import { linkInMail, setUserPassword, TEST_PASSWORD } from './support/console.js';
import { startSmtp } from './support/smtp.js';
import { checkOnce, startSwitchTarget, startWorker, waitFor } from './support/worker-harness.js';
import { LIVE_TIMING } from '../apps/api/src/console/monitors/live-status.js';

let h: Harness;
let browser: Browser;
let served: Awaited<ReturnType<typeof consoleInBrowser>>;
let origin: string;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let worker: ReturnType<typeof startWorker>;
let target: Awaited<ReturnType<typeof startSwitchTarget>>;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let owner: { email: string };
let base: string;

beforeAll(async () => {
  LIVE_TIMING.pollMs = 200;
  smtp = await startSmtp();
  target = await startSwitchTarget();
  served = await consoleInBrowser('console flows', {
    SMTP_URL: smtp.url,
    SMTP_FROM: 'Statusvane <console@statusvane.test>',
    ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
  });
  ({ h, origin, browser } = served);
  // Checks of this suite's monitors only: the worker reads the harness's own queues.
  worker = startWorker(h);
  w = await makeWorkspace(h.prisma);
  await h.prisma.workspace.update({ where: { id: w.ws.id }, data: { name: 'Acme Production' } });
  owner = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'owner' }]);
  await setUserPassword(h.prisma, owner.email, TEST_PASSWORD);
  base = `${origin}/app/${w.ws.slug}`;
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await served?.close();
  await target?.close();
  await smtp?.close();
});

/** A context with JavaScript on; the refusals these journeys cause on purpose (403) are expected console errors. */
const visitor = (width = 1280) => consoleVisitor(browser, width, 'light', /status of 403/);
const landing = () => `/app/${w.ws.slug}/monitors`;

/** Marks the document: the mark survives only as long as the page is not loaded again. */
const markPage = (page: Page) => page.evaluate(`window.__notReloaded = true`);
const stillMarked = (page: Page) => page.evaluate(`window.__notReloaded === true`) as Promise<boolean>;

describe('console journeys in Chromium', () => {
  it('invites a member who sets a password from the mail, signs in, signs out and signs in again', async () => {
    const email = `invitee-${Date.now()}@example.test`;
    const admin = await visitor();
    try {
      await signInThroughForm(admin.page, origin, owner.email, TEST_PASSWORD, landing());
      await admin.page.goto(`${base}/settings/members`);
      await admin.page.fill('#f-email', email);
      await admin.page.selectOption('#f-role', 'member');
      await Promise.all([
        admin.page.waitForURL(/\/settings\/members\?done=added/),
        admin.page.getByRole('button', { name: 'Add member' }).click(),
      ]);
      expect(await admin.page.locator(`#member-${(await userIdOf(email))!} .tag-wait`).textContent()).toBe(
        'Invited, no password yet',
      );
      expect(admin.errors).toEqual([]);
    } finally {
      await admin.context.close();
    }

    const mail = await waitFor(async () => smtp.mails.find((m) => m.to.includes(email)), 10_000, 'the invitation');
    const link = linkInMail(mail.raw, '/app/invite/');
    const { context, page, errors } = await visitor();
    try {
      await page.goto(`${origin}${link}`);
      expect(await page.locator('h1').textContent()).toBe('Welcome to Statusvane');
      const password = 'a new and long enough password';
      await page.fill('#f-password', password);
      await page.fill('#f-confirm', password);
      await Promise.all([
        page.waitForURL(`${origin}/app/login?done=password-set`),
        page.getByRole('button', { name: 'Set password' }).click(),
      ]);
      expect(await page.getByRole('status').textContent()).toBe('Your password is set. Sign in with it.');
      await signInThroughForm(page, origin, email, password, landing());
      expect(await page.locator('h1').textContent()).toBe('Monitors');
      await Promise.all([page.waitForURL(`${origin}/app/login?done=signed-out`), page.click('text=Sign out')]);
      // Signed out: the workspace asks to sign in again.
      await page.goto(`${base}/monitors`);
      expect(page.url()).toBe(`${origin}/app/login?next=${encodeURIComponent(landing())}`);
      await signInThroughForm(page, origin, email, password, landing());
      expect(await page.locator('h1').textContent()).toBe('Monitors');
      // The link worked once.
      expect((await page.goto(`${origin}${link}`))?.status()).toBe(404);
      expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('refuses a form sent without its CSRF token (403) and writes nothing', async () => {
    const { context, page, errors } = await visitor();
    try {
      await signInThroughForm(page, origin, owner.email, TEST_PASSWORD, landing());
      await page.goto(`${base}/monitors/new?type=http`);
      await page.fill('#f-name', 'Forged monitor');
      await page.fill('#f-target', target.url);
      // The same form, from the page itself, without its token (what a forged post from another site lacks).
      await page.evaluate(`document.querySelector('form.monitor-form input[name="_csrf"]').remove()`);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.click('button:has-text("Create monitor")'),
      ]);
      expect(answer.status()).toBe(403);
      await page.waitForLoadState();
      expect(await h.prisma.monitor.count({ where: { workspaceId: w.ws.id, name: 'Forged monitor' } })).toBe(0);
      // The same form with its token goes through: the refusal was the missing token.
      await page.goto(`${base}/monitors/new?type=http`);
      await page.fill('#f-name', 'Forged monitor');
      await page.fill('#f-target', target.url);
      await Promise.all([page.waitForURL(/done=created/), page.click('button:has-text("Create monitor")')]);
      expect(await h.prisma.monitor.count({ where: { workspaceId: w.ws.id, name: 'Forged monitor' } })).toBe(1);
      await h.prisma.monitor.deleteMany({ where: { workspaceId: w.ws.id, name: 'Forged monitor' } });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('creates a monitor through the form, lists it, and shows a real check’s status change live', async () => {
    target.setStatus(200);
    const { context, page, errors } = await visitor();
    try {
      await signInThroughForm(page, origin, owner.email, TEST_PASSWORD, landing());
      await Promise.all([page.waitForURL(/\/monitors\/new/), page.click('text=New monitor')]);
      await page.fill('#f-name', 'Local health');
      await page.fill('#f-target', target.url);
      await Promise.all([page.waitForURL(/done=created/), page.click('button:has-text("Create monitor")')]);
      const id = /\/monitors\/([0-9a-f-]{36})/.exec(page.url())![1]!;
      // The worker runs the first check at once: the target answers 200.
      await waitFor(
        async () => (await h.prisma.monitor.findUnique({ where: { id } }))?.status === 'up',
        15_000,
        'the first check',
      );
      await page.goto(`${base}/monitors`);
      const row = page.locator(`#monitor-${id}`);
      expect(await row.locator('td.name a').textContent()).toBe('Local health');
      expect(await row.getAttribute('data-status')).toBe('up');
      await markPage(page);
      // The target fails; a check through the real queue stores the result, and the open list follows.
      target.setStatus(503);
      await checkOnce(h, worker.completed, id);
      expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id } })).status).toBe('down');
      await page.waitForSelector(`#monitor-${id}[data-status="down"]`, { timeout: 15_000 });
      expect(await row.locator('.badge-text').textContent()).toBe('Down');
      expect(await page.locator('#live-announcer').textContent()).toBe('Local health is down.');
      expect(await stillMarked(page)).toBe(true);
      // And back up.
      target.setStatus(200);
      await checkOnce(h, worker.completed, id);
      await page.waitForSelector(`#monitor-${id}[data-status="up"]`, { timeout: 15_000 });
      expect(await stillMarked(page)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});

async function userIdOf(email: string) {
  return (await h.prisma.user.findUnique({ where: { email } }))?.id;
}
