import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express, { type Express } from 'express';
import request from 'supertest';
import { errorHandler } from '../apps/api/src/middleware/error-handler.js';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../apps/api/src/routes/public-pages/login-public-page.handler.js';
import { publicPagesRouter } from '../apps/api/src/routes/public-pages/public-pages.router.js';
import {
  arrangeStatusPage,
  clearStatusPagePassword,
  setStatusPagePassword,
} from '../apps/api/src/admin/status-page-commands.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const MIN = 60_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const opts = () => ({ publicBaseUrl: h.config.publicBaseUrl });

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

async function monitor(w: Workspace, name: string, status?: 'up' | 'degraded' | 'down' | 'pending', enabled = true) {
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .send(makeMonitorInput({ name }));
  expect(res.status).toBe(201);
  if (status || !enabled)
    await h.prisma.monitor.update({
      where: { id: res.body.data.id },
      data: { ...(status ? { status } : {}), enabled },
    });
  return { id: res.body.data.id as string, componentId: res.body.data.componentId as string, name };
}

async function page(w: Workspace, body: Record<string, unknown> = {}) {
  const res = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('page'), name: 'Acme', ...body });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; slug: string; name: string };
}

async function maintenance(w: Workspace, body: Record<string, unknown>) {
  const res = await request(h.app).post('/api/v1/maintenance').set(bearer(w.tokens.owner)).send(body);
  expect(res.status).toBe(201);
  return res.body.data as { id: string };
}

const incident = (
  w: Workspace,
  data: { title: string; status: 'open' | 'acknowledged' | 'resolved'; monitorId?: string | null; startedAt?: Date },
) =>
  h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: data.monitorId ?? null,
      // As the worker writes it (the database refuses anything else): an unresolved monitor incident holds its monitor.
      openMonitorId: data.monitorId && data.status !== 'resolved' ? data.monitorId : null,
      title: data.title,
      status: data.status,
      source: data.monitorId ? 'monitor' : 'manual',
      startedAt: data.startedAt ?? new Date(),
      ...(data.status === 'acknowledged' ? { acknowledgedAt: new Date() } : {}),
      ...(data.status === 'resolved' ? { resolvedAt: new Date() } : {}),
    },
  });

/** A page without its own (hashed, deferred) script tag: what is left must hold no script at all. */
const withoutOwnScript = (text: string) =>
  text.replace(/<script src="\/app\/assets\/status-page-[A-Z0-9]+\.js" defer><\/script>/, '');

const html = (slug: string, app: Express = h.app) => request(app).get(`/status/${slug}`).set('Accept', 'text/html');
const json = (slug: string, app: Express = h.app) =>
  request(app).get(`/status/${slug}`).set('Accept', 'application/json');

describe('GET /status/:slug: what is served', () => {
  it('404 for an unknown slug and for a page that is not public, as HTML or JSON', async () => {
    const w = await makeWorkspace(h.prisma);
    const hidden = await page(w, { isPublic: false });
    for (const slug of ['no-such-page-here', hidden.slug, 'UPPER..case', 'x'.repeat(80)]) {
      const a = await html(slug);
      expect([slug, a.status, a.type]).toEqual([slug, 404, 'text/html']);
      expect(a.text).toContain('Status page not found');
      expect(a.headers['content-security-policy']).toContain("default-src 'none'");
      const b = await json(slug);
      expect([slug, b.status, b.body.error?.code]).toEqual([slug, 404, 'not_found']);
    }
  });

  it('needs no token, negotiates HTML or JSON on Accept, and varies on it', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = await page(w);
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'text/html'],
      ['*/*', 'text/html'],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html'],
      ['application/json', 'application/json'],
      ['application/json;q=0.5, text/html', 'text/html'],
      ['text/html;q=0.1, application/json', 'application/json'],
    ];
    for (const [accept, type] of cases) {
      const req = request(h.app).get(`/status/${p.slug}`);
      const res = await (accept ? req.set('Accept', accept) : req);
      expect([accept, res.status, res.type]).toEqual([accept, 200, type]);
      expect(res.headers.vary).toMatch(/Accept/);
      expect(res.headers['cache-control']).toBe('public, max-age=30');
    }
    expect((await html(p.slug.toUpperCase())).status).toBe(200);
  });

  it('answers the HTML with a strict CSP, only its own script and no outside assets', async () => {
    const w = await makeWorkspace(h.prisma);
    await monitor(w, 'API', 'up');
    const p = await page(w);
    const res = await html(p.slug);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toBe(
      "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(csp).not.toMatch(/unsafe|\*/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    // One script: the hashed local-time script, deferred, never inline.
    expect(res.text.match(/<script/gi)).toHaveLength(1);
    expect(res.text).toMatch(/<script src="\/app\/assets\/status-page-[A-Z0-9]+\.js" defer><\/script>/);
    expect(res.text).not.toMatch(/\sstyle="/i);
    // Only the page's own feeds, history and subscribe form, and the hashed assets (same origin, relative).
    expect(res.text).not.toMatch(
      new RegExp(
        `(src|href|action)="(?!/app/assets/|/status/${p.slug}/(feed\\.atom|feed\\.rss|subscribe|history)")`,
        'i',
      ),
    );
    expect(res.text).toMatch(/<link rel="stylesheet" href="\/app\/assets\/status-page-[A-Z0-9]+\.css"\/>/);
    expect(res.text).not.toMatch(/https?:\/\//);
    expect(res.text).not.toMatch(/@import|url\(/);
  });
});

describe('the page contents', () => {
  it('shows every workspace component, ungrouped and by name, with its state; maintenance wins', async () => {
    const w = await makeWorkspace(h.prisma);
    const up = await monitor(w, 'Website', 'up');
    const degraded = await monitor(w, 'Search', 'degraded');
    const down = await monitor(w, 'Checkout', 'down');
    const paused = await monitor(w, 'Reports', 'up', false);
    const pending = await monitor(w, 'Webhooks');
    const maint = await monitor(w, 'Billing', 'down');
    const endsAt = iso(Date.now() + 45 * MIN);
    await maintenance(w, {
      title: 'Billing upgrade',
      startsAt: iso(Date.now() - MIN),
      endsAt,
      componentIds: [maint.componentId],
    });
    const p = await page(w, { name: 'Acme Cloud' });

    const res = await json(p.slug);
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.page).toEqual({
      name: 'Acme Cloud',
      slug: p.slug,
      url: `${h.config.publicBaseUrl}/status/${p.slug}`,
      brand: { logoUrl: null, faviconUrl: null, brandColor: null, websiteUrl: null },
    });
    // One component of six down is a partial outage of the page, not a red banner for everything.
    expect(d.summary).toBe('partial_outage');
    // Paused and pending monitors report nothing wrong: operational, in the page's one vocabulary.
    expect(d.components).toMatchObject([
      { id: maint.componentId, name: 'Billing', state: 'under_maintenance', maintenanceUntil: endsAt },
      { id: down.componentId, name: 'Checkout', state: 'major_outage', maintenanceUntil: null },
      { id: paused.componentId, name: 'Reports', state: 'operational', maintenanceUntil: null },
      { id: degraded.componentId, name: 'Search', state: 'degraded_performance', maintenanceUntil: null },
      { id: pending.componentId, name: 'Webhooks', state: 'operational', maintenanceUntil: null },
      { id: up.componentId, name: 'Website', state: 'operational', maintenanceUntil: null, description: '' },
    ]);
    expect(d.sections).toEqual([{ name: null, componentIds: d.components.map((c: { id: string }) => c.id) }]);

    const page_ = await html(p.slug);
    expect(page_.text).toContain('<h1>Acme Cloud</h1>');
    expect(page_.text).toContain('<div class="banner partial_outage" role="status">Partial outage</div>');
    for (const [name, label] of [
      ['Billing', 'Under maintenance'],
      ['Checkout', 'Major outage'],
      ['Reports', 'Operational'],
      ['Search', 'Degraded performance'],
      ['Webhooks', 'Operational'],
      ['Website', 'Operational'],
    ]) {
      expect(page_.text).toMatch(new RegExp(`<span class="name">${name}</span><span class="state [a-z_]+">${label}`));
    }
  });

  it('summarises: operational, degraded (also for an open incident), maintenance', async () => {
    const w = await makeWorkspace(h.prisma);
    const a = await monitor(w, 'A', 'up');
    const p = await page(w);
    expect((await json(p.slug)).body.data.summary).toBe('operational');
    expect((await html(p.slug)).text).toContain('All systems operational');
    const win = await maintenance(w, {
      title: 'Now',
      startsAt: iso(Date.now() - MIN),
      endsAt: iso(Date.now() + MIN * 10),
    });
    expect((await json(p.slug)).body.data.summary).toBe('under_maintenance');
    await request(h.app).patch(`/api/v1/maintenance/${win.id}`).set(bearer(w.tokens.owner)).send({ status: 'cancel' });
    await incident(w, { title: 'A is down', status: 'open', monitorId: a.id });
    // Its only component has an open incident of major impact: that component, and so the page, is a partial outage.
    expect((await json(p.slug)).body.data.summary).toBe('partial_outage');
  });

  it('lists open and acknowledged incidents of shown components and manual ones, newest first; resolved ones apart', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitor(w, 'API', 'down');
    const web = await monitor(w, 'Web', 'up');
    const hiddenMon = await monitor(w, 'Internal', 'down');
    const t = Date.now();
    await incident(w, { title: 'API is down', status: 'open', monitorId: api.id, startedAt: new Date(t - 10 * MIN) });
    await incident(w, {
      title: 'Web is slow',
      status: 'acknowledged',
      monitorId: web.id,
      startedAt: new Date(t - 20 * MIN),
    });
    await incident(w, {
      title: 'Web was down',
      status: 'resolved',
      monitorId: web.id,
      startedAt: new Date(t - 60 * MIN),
    });
    await incident(w, { title: 'Email delays', status: 'open', startedAt: new Date(t - 5 * MIN) });
    await incident(w, {
      title: 'Internal is down',
      status: 'open',
      monitorId: hiddenMon.id,
      startedAt: new Date(t - MIN),
    });
    const old = await incident(w, {
      title: 'Long ago',
      status: 'resolved',
      monitorId: api.id,
      startedAt: new Date(t - 16 * DAY),
    });
    await h.prisma.incident.update({ where: { id: old.id }, data: { resolvedAt: new Date(t - 15 * DAY) } });
    const p = await page(w);
    await arrangeStatusPage(h.prisma, {
      id: p.id,
      json: JSON.stringify([{ name: 'Public', componentIds: [api.componentId, web.componentId] }]),
    });

    const d = (await json(p.slug)).body.data;
    expect(
      d.incidents.map((i: { title: string; status: string; components: unknown[] }) => [
        i.title,
        i.status,
        i.components,
      ]),
    ).toEqual([
      ['Email delays', 'open', []],
      ['API is down', 'open', [{ id: api.componentId, name: 'API' }]],
      ['Web is slow', 'acknowledged', [{ id: web.componentId, name: 'Web' }]],
    ]);
    expect(d.incidents[1]).toMatchObject({ impact: 'major', startedAt: iso(t - 10 * MIN), acknowledgedAt: null });
    expect(d.incidents[2].acknowledgedAt).toEqual(expect.any(String));

    const text = (await html(p.slug)).text;
    expect(text).toContain('Active incidents');
    expect(text).toContain('API is down');
    expect(text).toContain(`started <time datetime="${iso(t - 10 * MIN)}">`);
    expect(text).not.toContain('Internal is down');
    expect(text).not.toContain('Long ago');
    // Resolved within the last 14 days: under "Past incidents", not among the active ones.
    expect(d.pastIncidents.map((i: { title: string; status: string }) => [i.title, i.status])).toEqual([
      ['Web was down', 'resolved'],
    ]);
    expect(text.split('Past incidents')[0]).not.toContain('Web was down');
    expect(text.split('Past incidents')[1]).toContain('Web was down');
  });

  it('lists in-progress, upcoming and cancelled maintenance that touches the page; not completed or elsewhere', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitor(w, 'API', 'up');
    const other = await monitor(w, 'Other', 'up');
    const t = Date.now();
    const now = await maintenance(w, {
      title: 'Database failover',
      body: 'Line one\nLine two',
      startsAt: iso(t - MIN),
      endsAt: iso(t + 30 * MIN),
    });
    const next = await maintenance(w, {
      title: 'API upgrade',
      startsAt: iso(t + DAY),
      endsAt: iso(t + DAY + 60 * MIN),
      componentIds: [api.componentId, other.componentId],
    });
    await maintenance(w, { title: 'Done already', startsAt: iso(t - 60 * MIN), endsAt: iso(t - 30 * MIN) });
    const off = await maintenance(w, {
      title: 'Called off',
      body: 'Not needed after all.',
      startsAt: iso(t + DAY + MIN),
      endsAt: iso(t + 2 * DAY),
    });
    const cancel = await request(h.app)
      .patch(`/api/v1/maintenance/${off.id}`)
      .set(bearer(w.tokens.owner))
      .send({ status: 'cancel' });
    const cancelledAt = (
      await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: off.id } })
    ).cancelledAt!.toISOString();
    expect(cancel.body.data.status).toBe('cancelled');
    await maintenance(w, {
      title: 'Elsewhere only',
      startsAt: iso(t + DAY),
      endsAt: iso(t + 2 * DAY),
      componentIds: [other.componentId],
    });
    const p = await page(w);
    await arrangeStatusPage(h.prisma, {
      id: p.id,
      json: JSON.stringify([{ name: 'Main', componentIds: [api.componentId] }]),
    });

    const d = (await json(p.slug)).body.data;
    expect(d.maintenance).toMatchObject([
      {
        id: now.id,
        title: 'Database failover',
        body: 'Line one\nLine two',
        status: 'in_progress',
        startsAt: iso(t - MIN),
        endsAt: iso(t + 30 * MIN),
        cancelledAt: null,
        components: [],
      },
      // Only the components this page shows are named.
      {
        id: next.id,
        title: 'API upgrade',
        body: '',
        status: 'scheduled',
        startsAt: iso(t + DAY),
        endsAt: iso(t + DAY + 60 * MIN),
        cancelledAt: null,
        components: [{ id: api.componentId, name: 'API' }],
      },
      // Called off but kept on the public record, marked as such.
      {
        id: off.id,
        title: 'Called off',
        body: 'Not needed after all.',
        status: 'cancelled',
        startsAt: iso(t + DAY + MIN),
        endsAt: iso(t + 2 * DAY),
        cancelledAt,
        components: [],
      },
    ]);
    expect(d.components).toMatchObject([
      { id: api.componentId, name: 'API', state: 'under_maintenance', maintenanceUntil: iso(t + 30 * MIN) },
    ]);

    const text = (await html(p.slug)).text;
    expect(text).toMatch(/Maintenance in progress<\/h2><article[^>]*>\s*<h3>Database failover<\/h3>/);
    expect(text).toContain('<p class="body">Line one\nLine two</p>');
    expect(text).toContain('Affects: all components');
    expect(text).toMatch(/Upcoming maintenance<\/h2><article[^>]*>\s*<h3>API upgrade<\/h3>/);
    expect(text).toMatch(
      new RegExp(
        `Cancelled maintenance</h2><article class="card notice maintenance cancelled" id="maintenance-${off.id}" data-maintenance-id="${off.id}">\\s*<h3><span class="tag">Cancelled</span> Called off</h3>`,
      ),
    );
    expect(text).toContain(`called off <time datetime="${cancelledAt}">`);
    // A cancelled window is in neither of the other lists.
    expect(text.split('Cancelled maintenance</h2>')[0]).not.toContain('Called off');
    expect(text).not.toMatch(/Done already|Elsewhere only|>Other</);
  });

  it('a cancelled window stays listed, marked cancelled, until its announced end; it never puts a component in maintenance', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await monitor(w, 'API', 'up');
    const startsAt = Date.parse('2031-08-01T10:00:00.000Z');
    const endsAt = startsAt + 60 * MIN;
    const running = await maintenance(w, {
      title: 'Running, then off',
      startsAt: iso(startsAt - 10 * MIN),
      endsAt: iso(endsAt),
      componentIds: [m.componentId],
    });
    const p = await page(w);
    const clock = { now: new Date(startsAt) };
    const app = express();
    app.use(publicPagesRouter(h.deps, () => clock.now));
    app.use(errorHandler(h.deps.logger));
    await h.prisma.maintenanceWindow.update({ where: { id: running.id }, data: { cancelledAt: new Date(startsAt) } });
    const at = async (ms: number) => {
      clock.now = new Date(ms);
      const d = (await json(p.slug, app)).body.data;
      return [
        d.components[0].state,
        d.summary,
        d.maintenance.map((x: { status: string; cancelledAt: string | null }) => [x.status, x.cancelledAt]),
      ];
    };
    const shown = [['cancelled', iso(startsAt)]];
    expect(await at(startsAt)).toEqual(['operational', 'operational', shown]);
    expect(await at(endsAt - 1)).toEqual(['operational', 'operational', shown]);
    expect(await at(endsAt)).toEqual(['operational', 'operational', []]);
    clock.now = new Date(endsAt - 1);
    expect((await html(p.slug, app)).text).toContain('<span class="tag">Cancelled</span> Running, then off');
    clock.now = new Date(endsAt);
    expect((await html(p.slug, app)).text).not.toContain('Running, then off');
  });

  it('follows the arranged layout: sections and components in order, nothing else', async () => {
    const w = await makeWorkspace(h.prisma);
    const a = await monitor(w, 'Alpha', 'up');
    const b = await monitor(w, 'Bravo', 'up');
    const c = await monitor(w, 'Charlie', 'up');
    await monitor(w, 'Not shown', 'down');
    const p = await page(w);
    await arrangeStatusPage(h.prisma, {
      id: p.id,
      json: JSON.stringify([
        { name: 'Edge', componentIds: [c.componentId, a.componentId] },
        { name: 'Core', componentIds: [b.componentId] },
      ]),
    });
    const d = (await json(p.slug)).body.data;
    expect(d.sections).toEqual([
      { name: 'Edge', componentIds: [c.componentId, a.componentId] },
      { name: 'Core', componentIds: [b.componentId] },
    ]);
    expect(d.components.map((x: { name: string }) => x.name)).toEqual(['Charlie', 'Alpha', 'Bravo']);
    expect(d.summary).toBe('operational');
    const text = (await html(p.slug)).text;
    const order = ['>Edge</h3>', '>Charlie<', '>Alpha<', '>Core</h3>', '>Bravo<'].map((s) => text.indexOf(s));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(text).not.toContain('Not shown');
  });

  it('90-day uptime per component from the accounting function under the workspace policy, beside the daily check counts; grey where there is no data', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await monitor(w, 'API', 'up');
    const empty = await monitor(w, 'Quiet', 'up');
    const today = new Date(Math.floor(Date.now() / DAY) * DAY);
    const day = (n: number) => new Date(today.getTime() - n * DAY);
    await h.prisma.monitor.update({ where: { id: m.id }, data: { createdAt: day(100) } });
    await h.prisma.monitor.update({ where: { id: empty.id }, data: { createdAt: new Date(Date.now() - 60_000) } });
    await h.prisma.checkRollupDaily.createMany({
      data: [
        { monitorId: m.id, region: 'eu', day: day(5), total: 100, downCount: 1, degradedCount: 2 },
        { monitorId: m.id, region: 'us', day: day(5), total: 100, downCount: 3, degradedCount: 0 },
        { monitorId: m.id, region: 'eu', day: day(90), total: 100, downCount: 100, degradedCount: 0 },
      ],
    });
    // Day 5: 2 h 24 min down (10% of the day); day 3: 6 hours of maintenance on the component.
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: m.id,
        title: 'API is down',
        source: 'monitor',
        status: 'resolved',
        startedAt: new Date(day(5).getTime() + 12 * 3_600_000),
        downStartedAt: new Date(day(5).getTime() + 12 * 3_600_000),
        resolvedAt: new Date(day(5).getTime() + 14.4 * 3_600_000),
      },
    });
    await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'upgrade',
        startsAt: day(3),
        endsAt: new Date(day(3).getTime() + 6 * 3_600_000),
        components: { create: [{ componentId: m.componentId }] },
      },
    });
    const p = await page(w);
    const d = (await json(p.slug)).body.data;
    expect(d.uptime).toMatchObject({
      days: 90,
      from: iso(day(89).getTime()).slice(0, 10),
      to: iso(today.getTime()).slice(0, 10),
      policy: { maintenance: 'excluded', degraded: 'up', noData: 'excluded', version: 1 },
    });
    const api = d.uptime.components.find((u: { componentId: string }) => u.componentId === m.componentId);
    expect(api.days).toHaveLength(90);
    expect(api.days[84]).toEqual({
      date: iso(day(5).getTime()).slice(0, 10),
      total: 200,
      downCount: 4,
      degradedCount: 2,
      percent: 90,
      downSeconds: 8640,
      degradedSeconds: 0,
      maintenanceSeconds: 0,
      noDataSeconds: 0,
    });
    expect(api.days[86]).toMatchObject({ percent: 100, maintenanceSeconds: 21_600, total: 0 });
    expect(api.days.filter((x: { percent: number | null }) => x.percent === null)).toHaveLength(0);
    expect(api.percent).toBeLessThan(100);
    // Created a minute ago: no data before, up since.
    const quiet = d.uptime.components.find((u: { componentId: string }) => u.componentId === empty.componentId);
    expect(quiet.days.filter((x: { percent: number | null }) => x.percent === null)).toHaveLength(89);

    const text = (await html(p.slug)).text;
    expect(text).toContain(`title="${iso(day(5).getTime()).slice(0, 10)}: 90% uptime, 2 h 24 min down"`);
    expect(text).toContain('No data');
    expect(text.match(/class="bar b-none"/g)!.length).toBe(89);
    expect(text.match(/class="bar /g)!.length).toBe(180);

    // A policy change changes the bars at once: maintenance counted down makes day 3 75% up.
    const put = await request(h.app)
      .put('/api/v1/settings/accounting')
      .set(bearer(w.tokens.owner))
      .send({ maintenance: 'down' });
    expect(put.status).toBe(200);
    const after = (await json(p.slug)).body.data;
    expect(after.uptime.policy).toMatchObject({ maintenance: 'down', version: 2 });
    const apiAfter = after.uptime.components.find((u: { componentId: string }) => u.componentId === m.componentId);
    expect(apiAfter.days[86]).toMatchObject({ percent: 75, maintenanceSeconds: 21_600 });
  });

  it('escapes every piece of user text', async () => {
    const w = await makeWorkspace(h.prisma);
    const evil = `<img src=x onerror="alert(1)">&'`;
    const m = await monitor(w, `API ${evil}`, 'up');
    await maintenance(w, {
      title: `<script>alert(2)</script>`,
      body: `</p><iframe src="//evil.test"></iframe>`,
      startsAt: iso(Date.now() - MIN),
      endsAt: iso(Date.now() + MIN * 5),
    });
    await incident(w, { title: `"><svg onload=alert(3)>`, status: 'open', monitorId: m.id });
    const p = await page(w, { name: `</title><script>alert(4)</script>` });
    await arrangeStatusPage(h.prisma, {
      id: p.id,
      json: JSON.stringify([{ name: `<b onmouseover=alert(5)>Core</b>`, componentIds: [m.componentId] }]),
    });
    const text = withoutOwnScript((await html(p.slug)).text);
    expect(text).not.toMatch(/<script|<img|<iframe|<svg|<b /i);
    // preact escapes what can open markup (<, &, and " in attributes); > and ' are harmless as text.
    expect(text).toContain(`API &lt;img src=x onerror=&quot;alert(1)&quot;>&amp;'`);
    expect(text).toContain('&lt;script>alert(2)&lt;/script>');
    expect(text).toContain('&lt;/p>&lt;iframe src=&quot;//evil.test&quot;>&lt;/iframe>');
    expect(text).toContain('&quot;>&lt;svg onload=alert(3)>');
    expect(text).toContain('<title>&lt;/title>&lt;script>alert(4)&lt;/script> status</title>');
    expect(text).toContain('&lt;b onmouseover=alert(5)>Core&lt;/b>');
  });
});

describe('incident updates, manual incidents and the maintenance horizon', () => {
  it('shows each incident with its update timeline: newest first in HTML, oldest first in JSON', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitor(w, 'API', 'down');
    const t = Date.now();
    const inc = await incident(w, {
      title: 'API errors',
      status: 'open',
      monitorId: api.id,
      startedAt: new Date(t - 30 * MIN),
    });
    await h.prisma.incidentUpdate.createMany({
      data: [
        {
          incidentId: inc.id,
          status: 'investigating',
          message: 'Looking into <errors>.',
          createdAt: new Date(t - 25 * MIN),
        },
        {
          incidentId: inc.id,
          status: 'identified',
          message: 'A bad deploy.\nRolling back.',
          createdAt: new Date(t - 10 * MIN),
        },
      ],
    });
    const p = await page(w);
    const d = (await json(p.slug)).body.data;
    expect(d.incidents[0].updates.map((u: { status: string; message: string }) => [u.status, u.message])).toEqual([
      ['investigating', 'Looking into <errors>.'],
      ['identified', 'A bad deploy.\nRolling back.'],
    ]);
    expect(d.incidents[0].updates[1].createdAt).toBe(iso(t - 10 * MIN));
    const text = (await html(p.slug)).text;
    // The stage shown is the latest update's; the timeline reads newest first; messages keep their line breaks.
    expect(text).toMatch(/<div class="muted">Identified · Major impact · started/);
    const timeline = text.slice(text.indexOf('<ol class="timeline"'));
    expect(timeline.indexOf('Rolling back.')).toBeLessThan(timeline.indexOf('Looking into &lt;errors>.'));
    expect(timeline).toContain('<p class="body">A bad deploy.\nRolling back.</p>');
  });

  it('a manual incident shows on pages showing a component it names, or on every page when it names none', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitor(w, 'API', 'up');
    const web = await monitor(w, 'Web', 'up');
    const named = await incident(w, { title: 'Web only', status: 'open' });
    await h.prisma.incidentComponent.create({ data: { incidentId: named.id, componentId: web.componentId } });
    await incident(w, { title: 'Everything', status: 'open' });
    const both = await page(w);
    const apiOnly = await page(w);
    await arrangeStatusPage(h.prisma, {
      id: apiOnly.id,
      json: JSON.stringify([{ name: 'A', componentIds: [api.componentId] }]),
    });
    const titles = async (slug: string) =>
      (await json(slug)).body.data.incidents.map((i: { title: string; components: unknown[] }) => [
        i.title,
        i.components,
      ]);
    expect(await titles(both.slug)).toEqual(
      expect.arrayContaining([
        ['Web only', [{ id: web.componentId, name: 'Web' }]],
        ['Everything', []],
      ]),
    );
    expect(await titles(apiOnly.slug)).toEqual([['Everything', []]]);
    expect((await html(apiOnly.slug)).text).not.toContain('Web only');
  });

  it('announces maintenance starting within 7 days, not later', async () => {
    const w = await makeWorkspace(h.prisma);
    const t = Date.now();
    await maintenance(w, { title: 'In six days', startsAt: iso(t + 6 * DAY), endsAt: iso(t + 6 * DAY + 60 * MIN) });
    await maintenance(w, { title: 'In eight days', startsAt: iso(t + 8 * DAY), endsAt: iso(t + 8 * DAY + 60 * MIN) });
    const p = await page(w);
    const d = (await json(p.slug)).body.data;
    expect(d.maintenance.map((m: { title: string; status: string }) => [m.title, m.status])).toEqual([
      ['In six days', 'scheduled'],
    ]);
    expect((await html(p.slug)).text).not.toContain('In eight days');
  });

  it('escapes hostile incident updates', async () => {
    const w = await makeWorkspace(h.prisma);
    const inc = await incident(w, { title: 'x', status: 'open' });
    await h.prisma.incidentUpdate.create({
      data: {
        incidentId: inc.id,
        status: 'monitoring',
        message: `</li><script>alert(1)</script><a href="javascript:x">`,
      },
    });
    const p = await page(w);
    const text = withoutOwnScript((await html(p.slug)).text);
    expect(text).not.toMatch(/<script|<a href="javascript/i);
    expect(text).toContain('&lt;/li>&lt;script>alert(1)&lt;/script>&lt;a href=&quot;javascript:x&quot;>');
  });
});

describe('clock boundaries on the public page', () => {
  it('a component is in maintenance from startsAt to just before endsAt; the window is upcoming before and gone at the end', async () => {
    const w = await makeWorkspace(h.prisma);
    const m = await monitor(w, 'API', 'up');
    const startsAt = Date.parse('2031-07-01T10:00:00.000Z');
    const endsAt = startsAt + 60 * MIN;
    await maintenance(w, {
      title: 'Boundary',
      startsAt: iso(startsAt),
      endsAt: iso(endsAt),
      componentIds: [m.componentId],
    });
    const p = await page(w);
    const clock = { now: new Date(startsAt - 1) };
    const app = express();
    app.use(publicPagesRouter(h.deps, () => clock.now));
    app.use(errorHandler(h.deps.logger));
    const at = async (ms: number) => {
      clock.now = new Date(ms);
      const d = (await json(p.slug, app)).body.data;
      return [d.components[0].state, d.maintenance.map((x: { status: string }) => x.status)];
    };
    expect(await at(startsAt - 1)).toEqual(['operational', ['scheduled']]);
    expect(await at(startsAt)).toEqual(['under_maintenance', ['in_progress']]);
    expect(await at(endsAt - 1)).toEqual(['under_maintenance', ['in_progress']]);
    expect(await at(endsAt)).toEqual(['operational', []]);
  });
});

describe('password protection', () => {
  async function protectedPage() {
    const w = await makeWorkspace(h.prisma);
    await monitor(w, 'Secret API', 'up');
    const p = await page(w, { name: 'Private status' });
    await setStatusPagePassword(h.prisma, { id: p.id, password: 'correct horse battery' }, opts());
    return { w, p };
  }
  const login = (slug: string, password: string | undefined) => {
    const req = request(h.app).post(`/status/${slug}/login`).type('form');
    return password === undefined ? req.send('') : req.send({ password });
  };
  const cookieOf = (res: request.Response) => {
    const set = res.headers['set-cookie'] as unknown as string[] | undefined;
    return set?.[0];
  };

  it('shows the form (401) without the cookie, and JSON clients a 401 envelope; nothing of the page leaks', async () => {
    const { p } = await protectedPage();
    const form = await html(p.slug);
    expect(form.status).toBe(401);
    expect(form.type).toBe('text/html');
    expect(form.headers['cache-control']).toBe('private, no-store');
    expect(form.text).toContain(`<form method="post" action="/status/${p.slug}/login">`);
    expect(form.text).toMatch(/<input id="password" name="password" type="password"/);
    expect(form.text).not.toContain('Secret API');
    expect(form.text).not.toContain('That password is not right');
    const j = await json(p.slug);
    expect(j.status).toBe(401);
    expect(j.body.error.code).toBe('unauthorized');
    expect(JSON.stringify(j.body)).not.toContain('Secret API');
  });

  it('a wrong password shows the form again with 401; the right one sets the cookie and redirects 303', async () => {
    const { p } = await protectedPage();
    for (const pw of ['wrong password', '', undefined, 'x'.repeat(201)]) {
      const res = await login(p.slug, pw);
      expect([pw, res.status, res.headers['set-cookie']]).toEqual([pw, 401, undefined]);
      expect(res.text).toContain('That password is not right');
    }
    const ok = await login(p.slug, 'correct horse battery');
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe(`/status/${p.slug}`);
    const cookie = cookieOf(ok)!;
    expect(cookie).toMatch(new RegExp(`^sv_page_access=v1\\.${p.id}\\.\\d+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+;`));
    expect(cookie).toContain(`Path=/status/${p.slug}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure'); // PUBLIC_BASE_URL is http in tests
    const expires = Date.parse(/Expires=([^;]+)/.exec(cookie)![1]!);
    expect(Math.abs(expires - (Date.now() + 7 * DAY))).toBeLessThan(60_000);

    const value = cookie.split(';')[0]!;
    const inside = await html(p.slug).set('Cookie', value);
    expect(inside.status).toBe(200);
    expect(inside.text).toContain('Secret API');
    const j = await json(p.slug).set('Cookie', `other=1; ${value}`);
    expect(j.status).toBe(200);
    expect(j.body.data.components[0].name).toBe('Secret API');
  });

  it("a tampered cookie, another page's cookie, or one from before a password change does not open the page", async () => {
    const { p } = await protectedPage();
    const { p: p2 } = await protectedPage();
    const value = cookieOf(await login(p.slug, 'correct horse battery'))!.split(';')[0]!;
    const other = cookieOf(await login(p2.slug, 'correct horse battery'))!.split(';')[0]!;
    const parts = value.split('.');
    const later = [parts[0], parts[1], String(Number(parts[2]) + 365 * 86400), parts[3], parts[4]].join('.');
    for (const c of [later, `${value.slice(0, -3)}abc`, other, 'sv_page_access=garbage']) {
      expect([c, (await html(p.slug).set('Cookie', c)).status]).toEqual([c, 401]);
    }
    expect((await html(p.slug).set('Cookie', value)).status).toBe(200);
    // A new password (even the same one: a new salt) invalidates every earlier cookie.
    await setStatusPagePassword(h.prisma, { id: p.id, password: 'correct horse battery' }, opts());
    expect((await html(p.slug).set('Cookie', value)).status).toBe(401);
    // Clearing it opens the page to everyone.
    await clearStatusPagePassword(h.prisma, { id: p.id }, opts());
    expect((await html(p.slug)).status).toBe(200);
  });

  it('login edge cases: no password set (303), unknown page (404), oversized form (413)', async () => {
    const w = await makeWorkspace(h.prisma);
    const open = await page(w);
    const r = await login(open.slug, 'anything at all');
    expect([r.status, r.headers.location]).toEqual([303, `/status/${open.slug}`]);
    expect((await login('no-such-page-here', 'x')).status).toBe(404);
    const { p } = await protectedPage();
    const big = await request(h.app)
      .post(`/status/${p.slug}/login`)
      .type('form')
      .send(`password=${'x'.repeat(5000)}`);
    expect(big.status).toBe(413);
    const jsonBody = await request(h.app).post(`/status/${p.slug}/login`).send({ password: 'correct horse battery' });
    expect(jsonBody.status).toBe(401);
  });

  it(`caps guesses at ${LOGIN_ATTEMPTS_PER_MINUTE} a minute per page and address (429)`, async () => {
    const { p } = await protectedPage();
    for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i++)
      expect((await login(p.slug, `guess ${i} wrong`)).status).toBe(401);
    const limited = await login(p.slug, 'correct horse battery');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['set-cookie']).toBeUndefined();
    // Keys are per page: another page is unaffected.
    const { p: fresh } = await protectedPage();
    expect((await login(fresh.slug, 'correct horse battery')).status).toBe(303);
  });
});
