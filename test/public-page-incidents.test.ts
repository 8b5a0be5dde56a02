// Below a status page: each public incident's own page (permalink) and the history by month.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { arrangeStatusPage, setStatusPagePassword } from '../apps/api/src/admin/status-page-commands.js';
import { errorHandler } from '../apps/api/src/middleware/error-handler.js';
import { publicPagesRouter } from '../apps/api/src/routes/public-pages/public-pages.router.js';
import { bearer, makeHarness, makeWorkspace, monitorShowing, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const MIN = 60_000;
const DAY = 86_400_000;
type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

async function page(w: Workspace, name = 'Acme') {
  const res = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('perma'), name });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; slug: string; url: string };
}

const incident = (
  w: Workspace,
  data: { title: string; monitorId?: string; startedAt: Date; resolvedAt?: Date; impact?: 'minor' | 'major' },
) =>
  h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: data.monitorId ?? null,
      openMonitorId: data.monitorId && !data.resolvedAt ? data.monitorId : null,
      title: data.title,
      status: data.resolvedAt ? 'resolved' : 'open',
      source: data.monitorId ? 'monitor' : 'manual',
      impact: data.impact ?? 'major',
      startedAt: data.startedAt,
      resolvedAt: data.resolvedAt ?? null,
    },
  });

/** The public routes on a clock of the test's choosing. */
function appAt(now: Date) {
  const app = express();
  app.use(publicPagesRouter(h.deps, () => now));
  app.use(errorHandler(h.deps.logger));
  return app;
}

const get = (app: express.Express, path: string) => request(app).get(path).set('Accept', 'text/html');

describe('an incident`s own page', () => {
  it('shows the whole timeline newest first, times, duration and the affected components with their impact', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'up');
    const p = await page(w);
    const t = Date.now();
    const i = await incident(w, {
      title: 'API errors',
      monitorId: api.id,
      startedAt: new Date(t - 3 * DAY),
      resolvedAt: new Date(t - 3 * DAY + 95 * MIN),
    });
    await h.prisma.incidentUpdate.createMany({
      data: [
        { incidentId: i.id, status: 'investigating', message: 'First look', createdAt: new Date(t - 3 * DAY + MIN) },
        { incidentId: i.id, status: 'identified', message: 'Bad deploy', createdAt: new Date(t - 3 * DAY + 9 * MIN) },
        { incidentId: i.id, status: 'resolved', message: 'Rolled back', createdAt: new Date(t - 3 * DAY + 95 * MIN) },
      ],
    });
    const res = await get(h.app, `/status/${p.slug}/incidents/${i.id}`).set('Accept-Encoding', 'identity');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html');
    expect(res.headers['cache-control']).toBe('public, max-age=30');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.text).toContain('<title>API errors · Acme status</title>');
    expect(res.text).toContain('<h1>API errors</h1>');
    expect(res.text).toContain('1 h 35 min');
    // A monitor's incident: its component was down, a major outage, as the page's component list says during it.
    expect(res.text).toMatch(/<span class="name">API<\/span> <span class="state major_outage">Major outage<\/span>/);
    const order = ['Rolled back', 'Bad deploy', 'First look'].map((m) => res.text.indexOf(m));
    expect(order.every((n) => n > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // Back to the page and to the history of the incident's month.
    expect(res.text).toContain(`href="/status/${p.slug}"`);
    expect(res.text).toContain(
      `href="/status/${p.slug}/history?month=${new Date(t - 3 * DAY).toISOString().slice(0, 7)}"`,
    );
    // The page links it from its past incidents, and links the history.
    const home = (await get(h.app, `/status/${p.slug}`)).text;
    expect(home).toContain(`<a href="/status/${p.slug}/incidents/${i.id}">API errors</a>`);
    expect(home).toContain(`href="/status/${p.slug}/history"`);
    // An id in capitals is the same incident; gzip when accepted.
    const upper = await get(h.app, `/status/${p.slug}/incidents/${i.id.toUpperCase()}`).set('Accept-Encoding', 'gzip');
    expect([upper.status, upper.headers['content-encoding']]).toEqual([200, 'gzip']);
  });

  it('404 for another page`s incident, an incident not public on this page, another workspace`s, or no incident', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'down');
    const internal = await monitorShowing(h, w, 'Internal', 'down');
    const p = await page(w);
    // This page shows API only; a second page of the workspace shows Internal.
    await arrangeStatusPage(h.prisma, {
      id: p.id,
      json: JSON.stringify([{ name: 'Core', componentIds: [api.componentId] }]),
    });
    const other = await page(w, 'Ops');
    await arrangeStatusPage(h.prisma, {
      id: other.id,
      json: JSON.stringify([{ name: 'Ops', componentIds: [internal.componentId] }]),
    });
    const now = new Date();
    const shown = await incident(w, { title: 'Shown', monitorId: api.id, startedAt: now });
    const hidden = await incident(w, { title: 'Hidden', monitorId: internal.id, startedAt: now });
    const manual = await incident(w, { title: 'Everything', startedAt: now });
    const w2 = await makeWorkspace(h.prisma);
    const foreign = await incident(w2, { title: 'Elsewhere', startedAt: now });

    expect((await get(h.app, `/status/${p.slug}/incidents/${shown.id}`)).status).toBe(200);
    // A manual incident naming no component belongs to the whole workspace: on every page.
    const declared = await get(h.app, `/status/${p.slug}/incidents/${manual.id}`);
    expect(declared.status).toBe(200);
    // A declared incident gives its impact's status (major: a partial outage), as the component list says.
    expect(declared.text).toContain('All components <span class="state partial_outage">(Partial outage)</span>');
    expect((await get(h.app, `/status/${other.slug}/incidents/${manual.id}`)).status).toBe(200);
    expect((await get(h.app, `/status/${other.slug}/incidents/${hidden.id}`)).status).toBe(200);
    for (const id of [hidden.id, foreign.id, '00000000-0000-4000-8000-000000000000', 'not-an-id', 'x'.repeat(64)]) {
      const res = await get(h.app, `/status/${p.slug}/incidents/${id}`);
      expect([id, res.status, res.type]).toEqual([id, 404, 'text/html']);
      expect(res.text).toContain('Incident not found');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect((await get(h.app, `/status/${other.slug}/incidents/${shown.id}`)).status).toBe(404);
    // An unknown page is the page's own 404.
    expect((await get(h.app, `/status/no-such-page-here/incidents/${shown.id}`)).text).toContain(
      'Status page not found',
    );
  });

  it('a password-protected page asks its password first, for the incident and the history alike', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = await page(w);
    const i = await incident(w, { title: 'Private trouble', startedAt: new Date() });
    await setStatusPagePassword(
      h.prisma,
      { id: p.id, password: 'correct horse battery' },
      {
        publicBaseUrl: h.config.publicBaseUrl,
      },
    );
    for (const path of [`/incidents/${i.id}`, '/history']) {
      const res = await get(h.app, `/status/${p.slug}${path}`);
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.text).not.toContain('Private trouble');
      expect(res.text).toContain(`action="/status/${p.slug}/login"`);
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
    const login = await request(h.app)
      .post(`/status/${p.slug}/login`)
      .type('form')
      .send({ password: 'correct horse battery' });
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const res = await get(h.app, `/status/${p.slug}/incidents/${i.id}`).set('Cookie', cookie);
    expect([res.status, res.headers['cache-control']]).toEqual([200, 'private, no-store']);
    expect(res.text).toContain('Private trouble');
  });

  it('is served on the page`s custom domain too, with links from its root', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = await page(w);
    const domain = `${uniq('status').toLowerCase()}.acme.test`;
    await h.prisma.statusPage.update({ where: { id: p.id }, data: { customDomain: domain } });
    const i = await incident(w, { title: 'On the domain', startedAt: new Date() });
    const res = await request(h.app).get(`/incidents/${i.id}`).set('Host', domain);
    expect(res.status).toBe(200);
    expect(res.text).toContain('href="/history?month=');
    expect((await request(h.app).get('/history').set('Host', domain)).text).toContain(`href="/incidents/${i.id}"`);
  });
});

describe('the history by month', () => {
  // A fixed clock: the 15th of a month, so months before and after are known.
  const now = new Date('2031-08-15T12:00:00.000Z');

  async function seeded() {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'up');
    const p = await page(w);
    const july = await incident(w, {
      title: 'July outage',
      monitorId: api.id,
      startedAt: new Date('2031-07-03T10:00:00.000Z'),
      resolvedAt: new Date('2031-07-03T10:45:00.000Z'),
    });
    const august = await incident(w, {
      title: 'August trouble',
      startedAt: new Date('2031-08-02T08:00:00.000Z'),
      resolvedAt: new Date('2031-08-02T09:00:00.000Z'),
      impact: 'minor',
    });
    const old = await incident(w, {
      title: 'Long ago',
      startedAt: new Date('2030-07-10T08:00:00.000Z'),
      resolvedAt: new Date('2030-07-10T09:00:00.000Z'),
    });
    const win = await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'July upgrade',
        body: '',
        startsAt: new Date('2031-07-20T02:00:00.000Z'),
        endsAt: new Date('2031-07-20T03:00:00.000Z'),
      },
    });
    // Later this month, not begun at `now`: the page's upcoming maintenance, not history.
    await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'Not yet',
        body: '',
        startsAt: new Date(now.getTime() + DAY),
        endsAt: new Date(now.getTime() + DAY + 60 * MIN),
      },
    });
    return { w, p, july, august, old, win };
  }

  it('the current month by default; months before with links both ways; each incident links its page', async () => {
    const { p, july, august, win } = await seeded();
    const app = appAt(now);
    const cur = await get(app, `/status/${p.slug}/history`);
    expect(cur.status).toBe(200);
    expect(cur.text).toContain('<strong aria-current="page">August 2031</strong>');
    expect(cur.text).toContain(`<a href="/status/${p.slug}/incidents/${august.id}">August trouble</a>`);
    expect(cur.text).not.toContain('July outage');
    expect(cur.text).not.toContain('Not yet');
    expect(cur.text).toContain(`href="/status/${p.slug}/history?month=2031-07" rel="prev"`);
    // The current month is the last one: no link to the next.
    expect(cur.text).not.toContain('rel="next"');

    const jul = await get(app, `/status/${p.slug}/history?month=2031-07`);
    expect(jul.status).toBe(200);
    expect(jul.text).toContain(`<a href="/status/${p.slug}/incidents/${july.id}">July outage</a>`);
    expect(jul.text).toContain('45 min 00 s');
    expect(jul.text).toContain(`data-maintenance-id="${win.id}"`);
    expect(jul.text).toContain(`href="/status/${p.slug}/history?month=2031-08" rel="next"`);
    expect(jul.text).toContain(`href="/status/${p.slug}/history?month=2031-06" rel="prev"`);
    expect(jul.text).not.toContain('August trouble');

    const empty = await get(app, `/status/${p.slug}/history?month=2031-03`);
    expect(empty.text).toContain('No incidents in March 2031.');
  });

  it('goes back 400 days: the first month has no link before it; months outside, or not YYYY-MM, are 400', async () => {
    const { p, old } = await seeded();
    const app = appAt(now);
    // 400 days before 2031-08-15 is 2030-07-11: July 2030 is the first month served, whole.
    const first = await get(app, `/status/${p.slug}/history?month=2030-07`);
    expect(first.status).toBe(200);
    expect(first.text).toContain(`href="/status/${p.slug}/incidents/${old.id}"`);
    expect(first.text).not.toContain('rel="prev"');
    for (const month of ['2030-06', '2031-09', '2031-13', '2031-7', '31-07', 'july', '2031-07-01', '']) {
      const res = await get(app, `/status/${p.slug}/history?month=${encodeURIComponent(month)}`);
      expect([month, res.status, res.type]).toEqual([month, 400, 'text/html']);
      expect(res.text).toContain('July 2030 to August 2031');
    }
    expect((await get(app, `/status/${p.slug}/history?month=2031-07&month=2031-08`)).status).toBe(400);
  });

  it('lists only what the page shows: another component`s incident and another workspace`s are not there', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'up');
    const internal = await monitorShowing(h, w, 'Internal', 'up');
    const p = await page(w);
    await arrangeStatusPage(h.prisma, {
      id: p.id,
      json: JSON.stringify([{ name: 'Core', componentIds: [api.componentId] }]),
    });
    const at = new Date('2031-08-05T10:00:00.000Z');
    await incident(w, {
      title: 'Public one',
      monitorId: api.id,
      startedAt: at,
      resolvedAt: new Date(at.getTime() + MIN),
    });
    await incident(w, {
      title: 'Internal one',
      monitorId: internal.id,
      startedAt: at,
      resolvedAt: new Date(at.getTime() + MIN),
    });
    await incident(await makeWorkspace(h.prisma), { title: 'Foreign one', startedAt: at });
    const text = (await get(appAt(now), `/status/${p.slug}/history`)).text;
    expect(text).toContain('Public one');
    expect(text).not.toContain('Internal one');
    expect(text).not.toContain('Foreign one');
  });
});

describe('the page`s overall uptime', () => {
  it('counts every shown component as one, by the accounting function and policy the bars use', async () => {
    const w = await makeWorkspace(h.prisma);
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const api = await monitorShowing(h, w, 'API', 'up');
    const web = await monitorShowing(h, w, 'Web', 'up');
    // Both created two days ago (no data before: not counted); API down 12 hours of them.
    for (const m of [api, web])
      await h.prisma.monitor.update({ where: { id: m.id }, data: { createdAt: new Date(now.getTime() - 2 * DAY) } });
    await incident(w, {
      title: 'API down',
      monitorId: api.id,
      startedAt: new Date(now.getTime() - DAY),
      resolvedAt: new Date(now.getTime() - DAY / 2),
    });
    const p = await page(w);
    const app = appAt(now);
    const data = (await request(app).get(`/status/${p.slug}`).set('Accept', 'application/json')).body.data;
    const byId = new Map(
      data.uptime.components.map((c: { componentId: string; percent: number }) => [c.componentId, c.percent]),
    );
    expect([byId.get(api.componentId), byId.get(web.componentId)]).toEqual([75, 100]);
    // 12 hours down of 96 counted.
    expect(data.uptime.percent).toBe(87.5);
    const text = (await get(app, `/status/${p.slug}`)).text;
    expect(text).toMatch(
      /<p class="overall-uptime" title="Maintenance [a-z]+, degraded counted [a-z]+, no data [a-z]+ \(accounting policy version 1\)"><strong>87.5%<\/strong> uptime over the last 90 days<\/p>/,
    );
  });
});
