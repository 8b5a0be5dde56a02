// What the public page says, in one vocabulary everywhere (banner, components, badges, feeds, summary.json), and
// the defects of issue 28 a visitor saw: missing descriptions, a manual incident that changed nothing, a red banner
// for one component of eight, a monitor's incident without a word, "status status", feeds dated in the future and
// linking nowhere, Statuspage dates that were the time of the answer, a subscribe error on a dead-end page.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
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
    .send({ vanityUrl: uniq('words'), name });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; slug: string; url: string };
}

const get = (slug: string, path = '', accept = 'text/html') =>
  request(h.app).get(`/status/${slug}${path}`).set('Accept', accept);
const data = async (slug: string) => (await get(slug, '', 'application/json')).body.data;
const summary = async (slug: string) => (await get(slug, '/api/v2/summary.json', 'application/json')).body;

describe('one vocabulary: operational, degraded performance, partial outage, major outage, under maintenance', () => {
  it('one component of eight down is a partial outage everywhere; all of them down is a major outage', async () => {
    const w = await makeWorkspace(h.prisma);
    const monitors = [];
    for (let i = 0; i < 8; i++) monitors.push(await monitorShowing(h, w, `Service ${i}`, 'up'));
    await h.prisma.monitor.update({ where: { id: monitors[0]!.id }, data: { status: 'down' } });
    const p = await page(w);
    const html = (await get(p.slug)).text;
    expect(html).toContain('<div class="banner partial_outage" role="status">Partial outage</div>');
    expect(html).not.toMatch(/Service disruption|>Outage</);
    expect((await data(p.slug)).summary).toBe('partial_outage');
    expect((await summary(p.slug)).status).toEqual({ indicator: 'major', description: 'Partial outage' });
    const badge = String((await get(p.slug, '/badge.svg')).body);
    expect(badge).toContain('<title>status: partial outage</title>');
    expect(badge).toContain('fill="#b54708"');
    const one = String((await get(p.slug, `/components/${monitors[0]!.componentId}/badge.svg`)).body);
    expect(one).toContain('<title>Service 0: major outage</title>');

    await h.prisma.monitor.updateMany({ where: { workspaceId: w.ws.id }, data: { status: 'down' } });
    expect((await get(p.slug)).text).toContain('<div class="banner major_outage" role="status">Major outage</div>');
    expect((await summary(p.slug)).status).toEqual({ indicator: 'critical', description: 'Major outage' });
  });

  it("a manual incident's components take its impact, on the page, in summary.json and on the badge", async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'up');
    await monitorShowing(h, w, 'Web', 'up');
    const p = await page(w);
    const declare = (impact: string, componentIds: string[]) =>
      request(h.app)
        .post('/api/v1/incidents')
        .set(bearer(w.tokens.owner))
        .send({ title: `Declared ${impact}`, impact, componentIds, message: 'We are on it.' });
    const first = await declare('minor', [api.componentId]);
    expect(first.status).toBe(201);
    const states = async () =>
      Object.fromEntries(
        ((await data(p.slug)).components as Array<{ name: string; state: string }>).map((c) => [c.name, c.state]),
      );
    expect(await states()).toEqual({ API: 'degraded_performance', Web: 'operational' });
    await declare('critical', [api.componentId]);
    expect(await states()).toEqual({ API: 'major_outage', Web: 'operational' });
    const html = (await get(p.slug)).text;
    expect(html).toMatch(/<span class="name">API<\/span><span class="state major_outage">Major outage/);
    const sp = await summary(p.slug);
    expect(sp.components.find((c: { id: string }) => c.id === api.componentId).status).toBe('major_outage');
    expect(String((await get(p.slug, `/components/${api.componentId}/badge.svg`)).body)).toContain(
      '<title>API: major outage</title>',
    );
    // Naming no component is the whole workspace: every component takes its impact.
    await declare('major', []);
    expect(await states()).toEqual({ API: 'major_outage', Web: 'partial_outage' });
  });
});

describe('what a visitor was missing', () => {
  it('shows component descriptions in the HTML, the JSON and summary.json', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'up');
    const patched = await request(h.app)
      .patch(`/api/v1/components/${api.componentId}`)
      .set(bearer(w.tokens.owner))
      .send({ description: 'The public REST API & webhooks' });
    expect(patched.status).toBe(200);
    const p = await page(w);
    expect((await get(p.slug)).text).toContain('<p class="description muted">The public REST API &amp; webhooks</p>');
    expect((await data(p.slug)).components[0].description).toBe('The public REST API & webhooks');
    expect((await summary(p.slug)).components[0].description).toBe('The public REST API & webhooks');
  });

  it('an incident opened by a monitor says what was seen before anyone writes an update', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'Checkout API', 'down');
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: api.id,
        openMonitorId: api.id,
        title: 'Checkout API is down',
        reason: 'connection_refused',
      },
    });
    const p = await page(w);
    const html = (await get(p.slug)).text;
    expect(html).toContain(
      '<p class="body">Our automated checks find Checkout API failing. We are looking into it.</p>',
    );
    // The technical reason stays in the console.
    expect(html).not.toContain('connection_refused');
    expect((await get(p.slug, '/feed.atom')).text).toContain('Our automated checks find Checkout API failing.');
  });

  it('titles say "status" once', async () => {
    const w = await makeWorkspace(h.prisma);
    const named = await page(w, 'Acme Status');
    expect((await get(named.slug)).text).toContain('<title>Acme Status</title>');
    expect((await get(named.slug, '/feed.atom')).text).toContain('<title>Acme Status</title>');
    expect((await get(named.slug, '/feed.rss')).text).toContain('<title>Acme Status</title>');
    const plain = await page(w, 'Acme');
    expect((await get(plain.slug)).text).toContain('<title>Acme status</title>');
  });
});

describe('feeds and summary.json tell the right times and links', () => {
  it('a future maintenance does not date the feed; entries link to their own incident or window', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'up');
    const t = Date.now();
    const incident = await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: api.id,
        title: 'Resolved yesterday',
        status: 'resolved',
        startedAt: new Date(t - DAY),
        resolvedAt: new Date(t - DAY + 10 * MIN),
      },
    });
    const win = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(w.tokens.owner))
      .send({
        title: 'Tomorrow',
        startsAt: new Date(t + DAY).toISOString(),
        endsAt: new Date(t + DAY + 60 * MIN).toISOString(),
      });
    expect(win.status).toBe(201);
    const p = await page(w);
    const atom = (await get(p.slug, '/feed.atom')).text;
    const feedUpdated = Date.parse(/<feed[^]*?<updated>([^<]+)<\/updated>/.exec(atom)![1]!);
    expect(feedUpdated).toBeLessThanOrEqual(Date.now());
    for (const [, updated] of atom.matchAll(/<entry>[^]*?<updated>([^<]+)<\/updated>/g))
      expect(Date.parse(updated!)).toBeLessThanOrEqual(Date.now());
    expect(atom).toContain(`<link rel="alternate" type="text/html" href="${p.url}/incidents/${incident.id}"/>`);
    expect(atom).toContain(`<link rel="alternate" type="text/html" href="${p.url}#maintenance-${win.body.data.id}"/>`);
    const rss = (await get(p.slug, '/feed.rss')).text;
    expect(Date.parse(/<lastBuildDate>([^<]+)<\/lastBuildDate>/.exec(rss)![1]!)).toBeLessThanOrEqual(Date.now());
    expect(rss).toContain(`<link>${p.url}/incidents/${incident.id}</link>`);
    // The permalink answers, and the window's anchor exists on the page.
    const permalink = await get(p.slug, `/incidents/${incident.id}`);
    expect([permalink.status, permalink.text]).toEqual([200, expect.stringContaining('Resolved yesterday')]);
    const html = (await get(p.slug)).text;
    expect(html).toContain(`href="/status/${p.slug}/incidents/${incident.id}"`);
    expect(html).toContain(`id="maintenance-${win.body.data.id}"`);
  });

  it('summary.json dates components and maintenance by their own records, not by the time of the answer', async () => {
    const w = await makeWorkspace(h.prisma);
    const api = await monitorShowing(h, w, 'API', 'up');
    const created = new Date('2026-01-02T03:04:05.000Z');
    await h.prisma.component.update({ where: { id: api.componentId }, data: { createdAt: created } });
    const t = Date.now();
    const win = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(w.tokens.owner))
      .send({
        title: 'Soon',
        startsAt: new Date(t + 2 * DAY).toISOString(),
        endsAt: new Date(t + 2 * DAY + 30 * MIN).toISOString(),
      });
    const row = await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: win.body.data.id } });
    const p = await page(w);
    const sp = await summary(p.slug);
    expect(sp.components[0]).toMatchObject({ created_at: created.toISOString(), updated_at: created.toISOString() });
    expect(sp.scheduled_maintenances[0]).toMatchObject({
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      scheduled_for: new Date(t + 2 * DAY).toISOString(),
    });
    // An incident on the component is when its status last changed.
    const startedAt = new Date(t - 5 * MIN);
    await h.prisma.incident.create({
      data: { workspaceId: w.ws.id, monitorId: api.id, openMonitorId: api.id, title: 'Errors', startedAt },
    });
    expect((await summary(p.slug)).components[0].updated_at).toBe(startedAt.toISOString());
  });
});

describe('subscribing from the form', () => {
  it('an address the browser accepts but we refuse comes back in the form with the reason beside the field', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = await page(w);
    const res = await request(h.app).post(`/status/${p.slug}/subscribe`).type('form').send({ email: 'x@y' });
    expect(res.status).toBe(400);
    expect(res.type).toBe('text/html');
    expect(res.text).not.toContain('Request refused');
    expect(res.text).toMatch(
      /<input id="sub-email" name="email" type="email"[^>]* value="x@y" aria-invalid="true" aria-describedby="sub-email-error"\/>/,
    );
    expect(res.text).toContain('<p id="sub-email-error" class="field-error">Must be an email address</p>');
    // JSON clients keep the API's envelope.
    const json = await request(h.app).post(`/status/${p.slug}/subscribe`).send({ email: 'x@y' });
    expect(json.status).toBe(400);
    expect(json.body.error.code).toBe('invalid_request');
  });
});
