// The console's monitors page and what every console answer carries: the list through the API's own verbs with
// the member's live role, counts and filters, writes that are audited as the user, a viewer without write controls
// whose forged POST is 403, the security headers, and the hashed assets.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { CONSOLE_CSP } from '../apps/api/src/console/security-headers.js';
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
import { consoleBrowser, csrfOf, setUserPassword } from './support/console.js';

const PASSWORD = 'correct horse battery staple';
let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

async function signedIn(w: Workspace, role: 'owner' | 'admin' | 'member' | 'viewer') {
  const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role }]);
  await setUserPassword(h.prisma, user.email, PASSWORD);
  const b = consoleBrowser(h);
  await b.signIn(user.email, PASSWORD);
  return { b, user };
}

/** A workspace with monitors in every status. */
async function seeded() {
  const w = await makeWorkspace(h.prisma);
  const up = await monitorShowing(h, w, 'Public API', 'up');
  await monitorShowing(h, w, 'Checkout', 'down');
  await monitorShowing(h, w, 'Search', 'degraded');
  const billing = await monitorShowing(h, w, 'Billing', 'up');
  await createMonitorNamed(h, w, 'New thing');
  const paused = await monitorShowing(h, w, 'Old batch job', 'down');
  expect(
    (await request(h.app).patch(`/api/v1/monitors/${paused.id}`).set(bearer(w.tokens.owner)).send({ enabled: false }))
      .status,
  ).toBe(200);
  await maintenanceInProgress(h, w, [billing.componentId]);
  return { w, up, paused };
}

/** The rows of the monitors table: [name, status] in page order. */
const rowsOf = (html: string) =>
  [
    ...html.matchAll(
      /<tr id="monitor-[^"]+" data-monitor="[^"]+" data-status="([a-z]+)">.*?<td class="name"[^>]*><span class="name-cell"><a [^>]*>([^<]*)<\/a>/g,
    ),
  ].map((m) => [m[2], m[1]]);
const countOf = (html: string, label: string) =>
  Number(new RegExp(`${label} <strong>(\\d+)</strong>`).exec(html)?.[1] ?? NaN);

describe('the monitors page', () => {
  it('shows the counts by status and the table, through the API’s verbs, with search and a status filter', async () => {
    const { w } = await seeded();
    const { b } = await signedIn(w, 'viewer');
    const page = await b.get(`/app/${w.ws.slug}/monitors`);
    expect(page.status).toBe(200);
    expect(rowsOf(page.text)).toEqual([
      ['Public API', 'up'],
      ['Checkout', 'down'],
      ['Search', 'degraded'],
      ['Billing', 'maintenance'],
      ['New thing', 'pending'],
      ['Old batch job', 'paused'],
    ]);
    expect(
      ['All', 'Down', 'Degraded', 'Up', 'Pending', 'Maintenance', 'Paused'].map((l) => [l, countOf(page.text, l)]),
    ).toEqual([
      ['All', 6],
      ['Down', 1],
      ['Degraded', 1],
      ['Up', 1],
      ['Pending', 1],
      ['Maintenance', 1],
      ['Paused', 1],
    ]);
    expect(page.text).toContain(`href="/app/${w.ws.slug}/monitors?status=down"`);

    const down = await b.get(`/app/${w.ws.slug}/monitors?status=down&q=`);
    expect(rowsOf(down.text)).toEqual([['Checkout', 'down']]);
    expect(down.text).toMatch(/<a class="count count-down" href="[^"]+" aria-current="true">/);
    const paused = await b.get(`/app/${w.ws.slug}/monitors?status=paused`);
    expect(rowsOf(paused.text)).toEqual([['Old batch job', 'paused']]);
    const search = await b.get(`/app/${w.ws.slug}/monitors?q=che`);
    expect(rowsOf(search.text)).toEqual(
      [
        ['Checkout', 'down'],
        ['Old batch job', 'paused'],
      ].filter(([n]) => n!.toLowerCase().includes('che')),
    );
    expect(countOf(search.text, 'All')).toBe(1);
    const none = await b.get(`/app/${w.ws.slug}/monitors?q=nothing-like-this`);
    expect(none.text).toContain('No monitor matches');

    // The long form reaches the same page; an unknown or repeated parameter is a 400 page, not a 500.
    expect(rowsOf((await b.get(`/app/w/${w.ws.slug}/monitors`)).text)).toHaveLength(6);
    for (const bad of ['?colour=red', '?status=sideways', '?status=up&status=down', '?page=0'])
      expect([bad, (await b.get(`/app/${w.ws.slug}/monitors${bad}`)).status]).toEqual([bad, 400]);
  });

  it('escapes what users typed', async () => {
    const w = await makeWorkspace(h.prisma);
    await createMonitorNamed(h, w, '<script>alert(1)</script> & "quotes"');
    const { b } = await signedIn(w, 'member');
    const page = await b.get(`/app/${w.ws.slug}/monitors`);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script>alert(1)&lt;/script> &amp; &quot;quotes&quot;');
  });

  it('says so when a workspace has no monitors, and keeps non-members out (404)', async () => {
    const w = await makeWorkspace(h.prisma);
    const other = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'owner');
    expect((await b.get(`/app/${w.ws.slug}/monitors`)).text).toContain('No monitors yet');
    const foreign = await b.get(`/app/${other.ws.slug}/monitors`);
    expect(foreign.status).toBe(404);
    expect((await b.get('/app/no-such-workspace/monitors')).status).toBe(404);
  });
});

describe('writes from the console', () => {
  it('a viewer sees no write control, and a forged POST is 403 with nothing written', async () => {
    const { w, up } = await seeded();
    const { b } = await signedIn(w, 'viewer');
    const page = await b.get(`/app/${w.ws.slug}/monitors`);
    expect(page.text).not.toMatch(/\/monitors\/[^/"]+\/(pause|resume)/);
    expect(page.text).not.toContain('>Pause<');
    const forged = await b.post(`/app/${w.ws.slug}/monitors/${up.id}/pause`, {
      _csrf: csrfOf(page.text),
      version: '1',
    });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('Your role (viewer)');
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } })).enabled).toBe(true);
    expect(await h.prisma.auditEvent.count({ where: { resourceId: up.id, actorType: 'user' } })).toBe(0);
  });

  it('a member pauses and resumes from the list: the API’s rules, audited as the user; a stale version is 409', async () => {
    const { w, up } = await seeded();
    const { b, user } = await signedIn(w, 'member');
    const list = `/app/${w.ws.slug}/monitors?status=up`;
    const page = await b.get(list);
    expect(page.text).toContain(`action="/app/${w.ws.slug}/monitors/${up.id}/pause"`);
    const version = /name="version" value="(\d+)"/.exec(page.text)![1]!;

    // Without the token, or from another origin: 403, nothing written.
    expect((await b.post(`/app/${w.ws.slug}/monitors/${up.id}/pause`, { version })).status).toBe(403);
    expect(
      (
        await b.post(
          `/app/${w.ws.slug}/monitors/${up.id}/pause`,
          { _csrf: csrfOf(page.text), version },
          { Origin: 'https://evil.example' },
        )
      ).status,
    ).toBe(403);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } })).enabled).toBe(true);

    const paused = await b.post(`/app/${w.ws.slug}/monitors/${up.id}/pause`, {
      _csrf: csrfOf(page.text),
      version,
      back: list,
    });
    expect(paused.status).toBe(303);
    expect(paused.headers.location).toBe(`${list}&done=paused`);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } })).enabled).toBe(false);
    const after = await b.get(paused.headers.location!);
    expect(after.text).toContain('Monitor paused');
    const events = await h.prisma.auditEvent.findMany({ where: { resourceId: up.id, action: 'monitor.updated' } });
    expect(events.at(-1)).toMatchObject({ actorType: 'user', actorId: user.id, actorName: user.email });
    expect(events.at(-1)!.changes).toMatchObject({ enabled: { from: true, to: false } });

    // The page's version is now stale: 409, the monitor stays paused.
    const stale = await b.post(`/app/${w.ws.slug}/monitors/${up.id}/resume`, { _csrf: csrfOf(page.text), version });
    expect(stale.status).toBe(409);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } })).enabled).toBe(false);

    // A member cannot reach another workspace's monitor through their own.
    const other = await seeded();
    const cross = await b.post(`/app/${w.ws.slug}/monitors/${other.up.id}/pause`, { _csrf: csrfOf(page.text) });
    expect(cross.status).toBe(404);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: other.up.id } })).enabled).toBe(true);
  });
});

describe('every console answer', () => {
  it('carries the CSP (no inline script, no framing) and is never cached; pages load only hashed assets', async () => {
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    const w = await makeWorkspace(h.prisma);
    const { b } = await signedIn(w, 'owner');
    for (const path of [
      '/app/login',
      '/app/forgot',
      `/app/${w.ws.slug}/monitors`,
      '/app/account',
      '/app/nowhere/x',
      '/app/wall',
    ]) {
      const res = await b.get(path);
      expect([
        path,
        res.headers['content-security-policy'],
        res.headers['x-frame-options'],
        res.headers['cache-control'],
      ]).toEqual([path, CONSOLE_CSP, 'DENY', 'no-store']);
    }
    const page = await b.get(`/app/${w.ws.slug}/monitors`);
    expect(page.text).not.toMatch(/<script>|<style| style="| on[a-z]+="/);
    const [css] = /\/app\/assets\/console-[A-Z0-9]+\.css/.exec(page.text)!;
    const [js] = /\/app\/assets\/console-[A-Z0-9]+\.js/.exec(page.text)!;
    for (const [url, type] of [
      [css, 'text/css; charset=utf-8'],
      [js, 'text/javascript; charset=utf-8'],
    ] as const) {
      const plain = await request(h.app).get(url).set('Accept-Encoding', 'identity');
      expect([plain.status, plain.headers['content-type'], plain.headers['cache-control']]).toEqual([
        200,
        type,
        'public, max-age=31536000, immutable',
      ]);
      // (supertest unzips the body; the length sent is the compressed one.)
      const zipped = await request(h.app).get(url).set('Accept-Encoding', 'gzip');
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(Number(zipped.headers['content-length'])).toBeLessThan(Buffer.byteLength(plain.text));
      expect(zipped.text).toBe(plain.text);
    }
    expect((await request(h.app).get('/app/assets/console-NOPE.css')).status).toBe(404);
    expect((await request(h.app).get('/app/assets/..%2f..%2fpackage.json')).status).toBe(404);
  });
});
