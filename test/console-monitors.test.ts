// The console's monitors page and what every console answer carries: the list through the API's own verbs with
// the member's live role, counts and filters, writes that are audited as the user, a viewer without write controls
// whose forged POST is 403, the security headers, and the hashed assets.
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { rebuildRollups } from '@statusvane/shared';
import { LIVE_TIMING } from '../apps/api/src/console/monitors/live-status.js';
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
import { consoleBrowser, csrfOf, setCookie, setUserPassword } from './support/console.js';

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
      // What browsers send over HTTPS (gzip listed first): brotli, as for the pages (rendered-answer.ts).
      const brotli = await request(h.app).get(url).set('Accept-Encoding', 'gzip, deflate, br');
      expect(brotli.headers['content-encoding']).toBe('br');
      expect(Number(brotli.headers['content-length'])).toBeLessThan(Buffer.byteLength(plain.text));
      expect(brotli.text).toBe(plain.text);
    }
    expect((await request(h.app).get('/app/assets/console-NOPE.css')).status).toBe(404);
    expect((await request(h.app).get('/app/assets/..%2f..%2fpackage.json')).status).toBe(404);
  });
});

describe('the monitors page, stage 2', () => {
  it('filters by type and metadata, sorts by each column both ways, and keeps the filters in the count links', async () => {
    const { w } = await seeded();
    await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.owner))
      .send({ type: 'tcp', name: 'Database', target: '93.184.215.14:5432', metadata: { team: 'data' } });
    const { b } = await signedIn(w, 'viewer');
    const base = `/app/${w.ws.slug}/monitors`;
    expect(rowsOf((await b.get(`${base}?type=tcp`)).text)).toEqual([['Database', 'pending']]);
    expect(rowsOf((await b.get(`${base}?meta=team%3Ddata`)).text)).toEqual([['Database', 'pending']]);
    const bad = await b.get(`${base}?meta=nokey`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="monitor-meta-error"');
    const byName = rowsOf((await b.get(`${base}?sort=name`)).text).map(([n]) => n);
    expect(byName).toEqual(['Billing', 'Checkout', 'Database', 'New thing', 'Old batch job', 'Public API', 'Search']);
    expect(rowsOf((await b.get(`${base}?sort=-name`)).text).map(([n]) => n)).toEqual([...byName].reverse());
    expect(rowsOf((await b.get(`${base}?sort=status`)).text).map(([, s]) => s)).toEqual([
      'down',
      'degraded',
      'up',
      'pending',
      'pending',
      'maintenance',
      'paused',
    ]);
    // The sorted column says so (aria-sort) and its link turns the order around; filters ride along.
    const sorted = await b.get(`${base}?sort=name&type=http`);
    expect(sorted.text).toMatch(
      /<th scope="col" class="name" aria-sort="ascending"><a class="sort" href="[^"]*sort=-name/,
    );
    expect(sorted.text).toContain(`href="${base}?status=down&amp;type=http&amp;sort=name"`);
    for (const q of ['?sort=colour', '?type=ftp', '?page=0', '?status=up&status=down'])
      expect([q, (await b.get(`${base}${q}`)).status]).toEqual([q, 400]);
  });

  it('shows 100 monitors a page, with the next page a link away', async () => {
    const w = await makeWorkspace(h.prisma);
    await h.prisma.$transaction(
      async (tx) => {
        for (let i = 0; i < 101; i++) {
          const component = await tx.component.create({ data: { workspaceId: w.ws.id, name: `m-${i}` } });
          await tx.monitor.create({
            data: {
              workspaceId: w.ws.id,
              componentId: component.id,
              name: `m-${String(i).padStart(3, '0')}`,
              type: 'http',
              target: 'https://93.184.215.14/',
              createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
            },
          });
        }
      },
      { timeout: 60_000 },
    );
    const { b } = await signedIn(w, 'viewer');
    const first = await b.get(`/app/${w.ws.slug}/monitors`);
    expect(rowsOf(first.text)).toHaveLength(100);
    expect(first.text).toContain('1–100 of 101');
    const second = await b.get(`/app/${w.ws.slug}/monitors?page=2`);
    expect(rowsOf(second.text)).toEqual([['m-100', 'pending']]);
    expect(second.text).toContain('101–101 of 101');
    // Gzipped for a browser that takes it (a tenth of the bytes), as it is for one that does not.
    const zipped = await b.get(`/app/${w.ws.slug}/monitors`).set('Accept-Encoding', 'gzip');
    expect([zipped.headers['content-encoding'], zipped.headers.vary]).toEqual(['gzip', 'Accept-Encoding']);
    expect(Number(zipped.headers['content-length'])).toBeLessThan(first.text.length / 5);
    expect(rowsOf(zipped.text)).toHaveLength(100);
    const plain = await b.get(`/app/${w.ws.slug}/monitors`).set('Accept-Encoding', 'identity');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(rowsOf(plain.text)).toHaveLength(100);
  });

  it('shows the 24-hour uptime, a sparkline drawn on the server and certificate days from the rollups', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await monitorShowing(h, w, 'Shop', 'up');
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await h.prisma.checkResult.createMany({
      data: [
        [hour - 7_200_000, 'up', 120],
        [hour - 3_600_000, 'up', 80],
        [hour - 3_540_000, 'down', null],
        [hour, 'up', 100],
      ].map(([t, outcome, ms]) => ({
        monitorId: m.id,
        region: 'local',
        slot: new Date(t as number),
        checkedAt: new Date(t as number),
        outcome: outcome as 'up' | 'down',
        responseMs: ms as number | null,
      })),
    });
    await rebuildRollups(h.prisma, m.id);
    await h.prisma.monitor.update({
      where: { id: m.id },
      data: {
        certificate: {
          subject: 'CN=shop',
          issuer: 'CN=CA',
          validFrom: '2026-01-01T00:00:00.000Z',
          validTo: new Date(Date.now() + 3.5 * 86_400_000).toISOString(),
          daysRemaining: 3,
          fingerprint256: 'AA',
        },
      },
    });
    // The 24-hour uptime comes from the accounting function (time, not checks): the monitor is older than the window,
    // and an incident kept it down for 6 of its 24 hours: 18 / 24 = 75.00%, "poor".
    await h.prisma.monitor.update({ where: { id: m.id }, data: { createdAt: new Date(Date.now() - 25 * 3_600_000) } });
    const now = Date.now();
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: m.id,
        title: 'Shop is down',
        status: 'resolved',
        impact: 'major',
        source: 'monitor',
        startedAt: new Date(now - 10 * 3_600_000),
        resolvedAt: new Date(now - 4 * 3_600_000),
        reason: 'status_code',
      },
    });
    const { b } = await signedIn(w, 'viewer');
    const page = await b.get(`/app/${w.ws.slug}/monitors`);
    expect(page.text).toContain('<span class="uptime poor">75.00%</span>');
    // Three hours with answers: three points, in a server-drawn SVG with its figures in words.
    const svg = /<svg class="spark"[^>]*aria-label="([^"]*)"[^>]*>(.*?)<\/svg>/.exec(page.text)!;
    expect(svg[1]).toBe('Response time over the last 24 hours: 100 ms on average, 120 ms in the slowest hour');
    expect(svg[2]).toMatch(/<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
    expect(page.text).toContain('<span class="spark-value">100 ms</span>');
    expect(page.text).toMatch(/<span class="cert soon" title="[^"]+">3 days<\/span>/);
  });

  it("weighs a sparkline's hour by its checks in every region", async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await monitorShowing(h, w, 'Shop', 'up');
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    // Two hours ago: one check of 100 ms in one region and two of 200 and 300 ms in another (an average of 200 ms
    // over the three, not of the regions' averages); an hour ago, one check of 60 ms: 660 ms in 4 checks, 165 on
    // average.
    await h.prisma.checkResult.createMany({
      data: (
        [
          [hour - 7_200_000, 'local', 100],
          [hour - 7_200_000, 'eu-west', 200],
          [hour - 7_140_000, 'eu-west', 300],
          [hour - 3_600_000, 'local', 60],
        ] as const
      ).map(([t, region, ms]) => ({
        monitorId: m.id,
        region,
        slot: new Date(t),
        checkedAt: new Date(t),
        outcome: 'up' as const,
        responseMs: ms,
      })),
    });
    await rebuildRollups(h.prisma, m.id);
    const { b } = await signedIn(w, 'viewer');
    const page = await b.get(`/app/${w.ws.slug}/monitors`);
    const svg = /<svg class="spark"[^>]*aria-label="([^"]*)"[^>]*>(.*?)<\/svg>/.exec(page.text)!;
    expect(svg[1]).toBe('Response time over the last 24 hours: 165 ms on average, 200 ms in the slowest hour');
    expect(svg[2]).toMatch(/<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
    expect(page.text).toContain('<span class="spark-value">165 ms</span>');
  });
});

describe('bulk actions', () => {
  const boxesOf = (html: string) => [...html.matchAll(/<input type="checkbox" name="id" value="([^"]+)" form="bulk"/g)];

  it('preview first (nothing written), then confirm: paused as the user, the versions of the preview', async () => {
    const { w } = await seeded();
    const { b, user } = await signedIn(w, 'member');
    const base = `/app/${w.ws.slug}/monitors`;
    const list = await b.get(`${base}?status=up`);
    expect(boxesOf(list.text)).toHaveLength(1);
    const all = await h.prisma.monitor.findMany({ where: { workspaceId: w.ws.id }, orderBy: { createdAt: 'asc' } });
    const up = all.find((m) => m.name === 'Public API')!;
    const paused = all.find((m) => m.name === 'Old batch job')!;
    const preview = await b.get(
      `${base}/bulk?action=pause&id=${up.id}&id=${paused.id}&back=${encodeURIComponent(base)}`,
    );
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('<h1>Pause 1 monitor?</h1>');
    expect(preview.text).toContain('Paused: no checks until resumed');
    expect(preview.text).toContain('No change: already paused');
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } })).enabled).toBe(true);
    const items = /name="items" value="([^"]*)"/.exec(preview.text)![1]!;
    expect(items).toBe(`${up.id}:${up.version}`);
    // Without the token: 403, nothing written.
    expect((await b.post(`${base}/bulk/pause`, { items, back: base })).status).toBe(403);
    const done = await b.post(`${base}/bulk/pause`, { _csrf: csrfOf(preview.text), items, back: base });
    expect([done.status, done.headers.location]).toEqual([303, `${base}?done=bulk-paused&n=1`]);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } })).enabled).toBe(false);
    expect((await b.get(done.headers.location!)).text).toContain('1 monitor paused.');
    const audit = await h.prisma.auditEvent.findMany({ where: { resourceId: up.id, action: 'monitor.updated' } });
    expect(audit.at(-1)).toMatchObject({ actorType: 'user', actorId: user.id });

    // The same confirmation again: the version it carries is stale now. 409, the preview as things are, nothing done.
    await request(h.app).patch(`/api/v1/monitors/${up.id}`).set(bearer(w.tokens.owner)).send({ enabled: true });
    const stale = await b.post(`${base}/bulk/pause`, { _csrf: csrfOf(preview.text), items, back: base });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('changed since the preview');
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } })).enabled).toBe(true);
  });

  it('deletes only for managers; a viewer has no boxes, no preview and a forged POST is 403', async () => {
    const { w, up } = await seeded();
    const base = `/app/${w.ws.slug}/monitors`;
    const viewer = await signedIn(w, 'viewer');
    const seen = await viewer.b.get(base);
    expect(boxesOf(seen.text)).toHaveLength(0);
    expect(seen.text).not.toContain('id="bulk"');
    expect((await viewer.b.get(`${base}/bulk?action=pause&id=${up.id}`)).status).toBe(403);
    const row = await h.prisma.monitor.findUniqueOrThrow({ where: { id: up.id } });
    const forged = await viewer.b.post(`${base}/bulk/pause`, {
      _csrf: csrfOf(seen.text),
      items: `${up.id}:${row.version}`,
    });
    expect(forged.status).toBe(403);
    const member = await signedIn(w, 'member');
    const memberList = await member.b.get(base);
    expect(memberList.text).not.toContain('value="delete"');
    expect((await member.b.get(`${base}/bulk?action=delete&id=${up.id}`)).status).toBe(403);
    expect(
      (await member.b.post(`${base}/bulk/delete`, { _csrf: csrfOf(memberList.text), items: `${up.id}:${row.version}` }))
        .status,
    ).toBe(403);
    expect(await h.prisma.monitor.count({ where: { id: up.id, enabled: true } })).toBe(1);

    const admin = await signedIn(w, 'admin');
    const preview = await admin.b.get(`${base}/bulk?action=delete&id=${up.id}`);
    expect(preview.text).toContain('Deleted, with its check results');
    const items = /name="items" value="([^"]*)"/.exec(preview.text)![1]!;
    const done = await admin.b.post(`${base}/bulk/delete`, { _csrf: csrfOf(preview.text), items });
    expect(done.headers.location).toBe(`${base}?done=bulk-deleted&n=1`);
    expect(await h.prisma.monitor.count({ where: { id: up.id } })).toBe(0);
    // Nothing ticked: a 400 page saying what to do.
    expect((await admin.b.get(`${base}/bulk?action=pause`)).status).toBe(400);
  });
});

describe('live status', () => {
  /** An event stream read as it comes, through a real socket with the session cookie. */
  async function openStream(server: Server, path: string, cookie: string) {
    const { port } = server.address() as AddressInfo;
    let buffer = '';
    const res = await new Promise<IncomingMessage>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path, headers: { Cookie: cookie, Accept: 'text/event-stream' } }, resolve).on(
        'error',
        reject,
      ),
    );
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (buffer += chunk));
    return {
      res,
      /** Waits for the text `what` in what came so far. */
      async waitFor(what: string, ms = 10_000) {
        const until = Date.now() + ms;
        while (!buffer.includes(what)) {
          if (Date.now() > until) throw new Error(`no ${what} in the stream: ${buffer}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        return buffer;
      },
      close: () => res.destroy(),
    };
  }

  it('delivers status changes from the event log, as the record shows them, and ends with the session', async () => {
    Object.assign(LIVE_TIMING, { pollMs: 100, recheckMs: 300 });
    const server = createServer(h.app).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { w, up } = await seeded();
      const billing = await h.prisma.monitor.findFirstOrThrow({ where: { workspaceId: w.ws.id, name: 'Billing' } });
      const other = await seeded();
      const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'viewer' }]);
      await setUserPassword(h.prisma, user.email, PASSWORD);
      const b = consoleBrowser(h);
      const signIn = await b.signIn(user.email, PASSWORD);
      const cookie = `sv_session=${setCookie(signIn, 'sv_session')}`;
      const page = await b.get(`/app/${w.ws.slug}/monitors`);
      const after = /data-after="([0-9a-f]{32})"/.exec(page.text)![1]!;
      expect(page.text).toContain(`data-live="/app/${w.ws.slug}/monitors/live"`);

      const stream = await openStream(server, `/app/${w.ws.slug}/monitors/live?after=${after}`, cookie);
      expect(stream.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await stream.waitFor('retry: 2000');
      // A check turns one monitor down (the worker's write: the trigger logs monitor.status_changed), another
      // workspace's too, and one under maintenance.
      await h.prisma.monitor.update({ where: { id: up.id }, data: { status: 'down' } });
      await h.prisma.monitor.update({ where: { id: other.up.id }, data: { status: 'down' } });
      await h.prisma.monitor.update({ where: { id: billing.id }, data: { status: 'down' } });
      const text = await stream.waitFor(`"id":"${billing.id}"`);
      const changes = [...text.matchAll(/event: status\ndata: (.*)\n/g)].flatMap((m) => JSON.parse(m[1]!) as object[]);
      expect(changes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: up.id, name: 'Public API', status: 'down' }),
          // Under maintenance the record shows maintenance, whatever the check said.
          expect.objectContaining({ id: billing.id, status: 'maintenance' }),
        ]),
      );
      expect(text).not.toContain(other.up.id);
      expect(text).toMatch(/id: [0-9a-f]{32}\nevent: status/);

      // Signing out ends the stream at its next check of the session.
      const signedInPage = await b.get(`/app/${w.ws.slug}/monitors`);
      await b.post('/app/logout', { _csrf: csrfOf(signedInPage.text) });
      await stream.waitFor('event: end');
      stream.close();
      // And a stream without a session is no stream: the sign-in page.
      const anonymous = await request(h.app).get(`/app/${w.ws.slug}/monitors/live`);
      expect(anonymous.status).toBe(303);
      expect((await b.get(`/app/${w.ws.slug}/monitors/live?after=nope`)).status).toBe(303);
    } finally {
      server.close();
    }
  }, 60_000);
});
