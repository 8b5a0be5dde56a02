// Beside the public page: Atom and RSS feeds, SVG badges, and Statuspage-format JSON; CORS and access rules.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { z } from 'zod';
import { arrangeStatusPage, setStatusPagePassword } from '../apps/api/src/admin/status-page-commands.js';
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

const monitor = (w: Workspace, name: string, status: 'up' | 'degraded' | 'down') => monitorShowing(h, w, name, status);

/** Markup and quotes: the API takes them in names and titles. */
const EVIL = `<script>alert(1)</script>&"'`;
/** Plus a character XML forbids: the API refuses it in names, but rows written before that rule (and update text) may hold it. */
const EVIL_STORED = `${EVIL}\u0001`;

/** A page with one component of each state, an open incident with updates, a resolved one and two windows. */
async function seed(opts: { evil?: boolean } = {}) {
  const w = await makeWorkspace(h.prisma);
  const name = (s: string) => (opts.evil ? `${s} ${EVIL}` : s);
  const stored = (s: string) => (opts.evil ? `${s} ${EVIL_STORED}` : s);
  const api = await monitor(w, name('API'), 'down');
  const web = await monitor(w, 'Web', 'degraded');
  const docs = await monitor(w, 'Docs', 'up');
  const t = Date.now();
  const open = await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: api.id,
      openMonitorId: api.id,
      title: stored('API errors'),
      impact: 'critical',
      startedAt: new Date(t - 30 * MIN),
    },
  });
  await h.prisma.incidentUpdate.createMany({
    data: [
      { incidentId: open.id, status: 'investigating', message: stored('Looking'), createdAt: new Date(t - 20 * MIN) },
      { incidentId: open.id, status: 'monitoring', message: 'Fix deployed', createdAt: new Date(t - 5 * MIN) },
    ],
  });
  await h.prisma.incident.create({
    data: {
      workspaceId: w.ws.id,
      monitorId: web.id,
      title: 'Web was slow',
      status: 'resolved',
      impact: 'minor',
      startedAt: new Date(t - 2 * DAY),
      resolvedAt: new Date(t - 2 * DAY + 30 * MIN),
    },
  });
  for (const [title, from, to] of [
    [name('DB upgrade'), t - 5 * MIN, t + 30 * MIN],
    ['Network work', t + DAY, t + DAY + 60 * MIN],
  ] as const) {
    const res = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(w.tokens.owner))
      .send({
        title,
        body: 'Short notice',
        startsAt: new Date(from).toISOString(),
        endsAt: new Date(to).toISOString(),
        componentIds: [docs.componentId],
      });
    expect(res.status).toBe(201);
  }
  const created = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('feeds'), name: name('Acme') });
  expect(created.status).toBe(201);
  const page = created.body.data as { id: string; slug: string; url: string };
  await arrangeStatusPage(h.prisma, {
    id: page.id,
    json: JSON.stringify([
      { name: 'Core', componentIds: [api.componentId, web.componentId] },
      { name: 'Docs', componentIds: [docs.componentId] },
    ]),
  });
  return { w, page, api, web, docs, open };
}

/**
 * A strict well-formedness check of what we emit (no XML parser among the dependencies): every tag closed in
 * order, attribute values quoted, text free of raw `<` and of `&` that does not start an entity, no control
 * characters.
 */
function assertWellFormedXml(xml: string): string[] {
  expect(xml.startsWith('<?xml version="1.0" encoding="utf-8"?>\n')).toBe(true);
  expect(xml).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/);
  const body = xml.slice(xml.indexOf('\n') + 1);
  const stack: string[] = [];
  const names: string[] = [];
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = token.exec(body))) {
    consumed = token.lastIndex;
    const [, close, name, , selfClose, text] = m;
    if (text !== undefined) {
      expect(text).not.toMatch(/&(?!(amp|lt|gt|quot|#39);)/);
      continue;
    }
    if (close) {
      expect(stack.pop()).toBe(name);
      continue;
    }
    if (!selfClose) stack.push(name!);
    names.push(name!);
  }
  expect(consumed).toBe(body.length);
  expect(stack).toEqual([]);
  return names;
}

// The fields Statuspage readers use (the v2 public API as aggregators and widgets read it); strict on the
// values they switch on.
const iso = z.iso.datetime({ offset: true });
const spPage = z.object({ id: z.string(), name: z.string(), url: z.url(), time_zone: z.string(), updated_at: iso });
const spStatus = z.object({
  indicator: z.enum(['none', 'minor', 'major', 'critical']),
  description: z.string().min(1),
});
const spComponent = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance']),
  created_at: iso,
  updated_at: iso,
  position: z.number().int(),
  description: z.string().nullable(),
  showcase: z.boolean(),
  start_date: z.string().nullable(),
  group_id: z.string().nullable(),
  page_id: z.string(),
  group: z.boolean(),
  only_show_if_degraded: z.boolean(),
  components: z.array(z.string()).optional(),
});
const spUpdate = z.object({
  id: z.string(),
  status: z.string(),
  body: z.string(),
  incident_id: z.string(),
  created_at: iso,
  updated_at: iso,
  display_at: iso,
});
const spIncidentBase = {
  id: z.string(),
  name: z.string(),
  created_at: iso,
  updated_at: iso,
  monitoring_at: iso.nullable(),
  resolved_at: iso.nullable(),
  shortlink: z.url(),
  started_at: iso,
  page_id: z.string(),
  incident_updates: z.array(spUpdate),
  components: z.array(spComponent),
};
const spSummary = z.object({
  page: spPage,
  components: z.array(spComponent),
  incidents: z.array(
    z.object({
      ...spIncidentBase,
      status: z.enum(['investigating', 'identified', 'monitoring', 'resolved', 'postmortem']),
      impact: z.enum(['none', 'minor', 'major', 'critical']),
    }),
  ),
  scheduled_maintenances: z.array(
    z.object({
      ...spIncidentBase,
      status: z.enum(['scheduled', 'in_progress', 'verifying', 'completed']),
      impact: z.literal('maintenance'),
      scheduled_for: iso,
      scheduled_until: iso,
    }),
  ),
  status: spStatus,
});

describe('Statuspage-format JSON', () => {
  it('summary.json and status.json have the fields aggregators read, with CORS *', async () => {
    const { page, api, web, docs } = await seed();
    const res = await request(h.app).get(`/status/${page.slug}/api/v2/summary.json`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const s = spSummary.parse(res.body);
    expect(s.page).toMatchObject({ id: page.id, name: 'Acme', url: page.url });
    // One component of three in a major outage (a critical incident on it) and one degraded: the page is a partial
    // outage, in the words the page itself shows.
    expect(s.status).toEqual({ indicator: 'major', description: 'Partial outage' });
    const byId = new Map(s.components.map((c) => [c.id, c]));
    expect(byId.get(api.componentId)).toMatchObject({ status: 'major_outage', position: 1, group: false });
    expect(byId.get(web.componentId)!.status).toBe('degraded_performance');
    expect(byId.get(docs.componentId)!.status).toBe('under_maintenance');
    const groups = s.components.filter((c) => c.group);
    expect(groups.map((g) => [g.name, g.status, g.components])).toEqual([
      ['Core', 'major_outage', [api.componentId, web.componentId]],
      ['Docs', 'under_maintenance', [docs.componentId]],
    ]);
    expect(byId.get(api.componentId)!.group_id).toBe(groups[0]!.id);
    // Unresolved incidents only; updates newest first; the status is the latest update's.
    expect(s.incidents.map((i) => [i.name, i.status, i.impact])).toEqual([['API errors', 'monitoring', 'critical']]);
    expect(s.incidents[0]!.incident_updates.map((u) => u.body)).toEqual(['Fix deployed', 'Looking']);
    expect(s.incidents[0]!.monitoring_at).toBe(s.incidents[0]!.incident_updates[0]!.created_at);
    // The shortlink is the incident's own page, which answers.
    expect(s.incidents[0]!.shortlink).toBe(`${page.url}/incidents/${s.incidents[0]!.id}`);
    const permalink = await request(h.app).get(new URL(s.incidents[0]!.shortlink).pathname);
    expect([permalink.status, permalink.text]).toEqual([200, expect.stringContaining('API errors')]);
    expect(s.scheduled_maintenances.map((m) => [m.name, m.status])).toEqual([
      ['DB upgrade', 'in_progress'],
      ['Network work', 'scheduled'],
    ]);

    const st = await request(h.app).get(`/status/${page.slug}/api/v2/status.json`);
    expect(st.headers['access-control-allow-origin']).toBe('*');
    expect(z.object({ page: spPage, status: spStatus }).strict().parse(st.body).status.indicator).toBe('major');
  });

  it('an operational page is indicator none; maintenance alone too', async () => {
    const w = await makeWorkspace(h.prisma);
    await monitor(w, 'API', 'up');
    const created = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(w.tokens.owner))
      .send({ vanityUrl: uniq('ok'), name: 'Calm' });
    const body = (await request(h.app).get(`/status/${created.body.data.slug}/api/v2/summary.json`)).body;
    expect(spSummary.parse(body).status).toEqual({ indicator: 'none', description: 'All systems operational' });
  });
});

describe('feeds', () => {
  it('Atom: one entry per incident (open and resolved in 14 days) and announced window, newest first', async () => {
    const { page, open } = await seed();
    const res = await request(h.app).get(`/status/${page.slug}/feed.atom`);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/atom+xml');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const names = assertWellFormedXml(res.text);
    expect(names.filter((n) => n === 'entry')).toHaveLength(4);
    expect(res.text).toContain(`<link rel="self" type="application/atom+xml" href="${page.url}/feed.atom"/>`);
    expect(res.text).toContain(`<id>urn:uuid:${open.id}</id>`);
    const titles = [...res.text.matchAll(/<entry>\n<id>[^<]+<\/id>\n<title>([^<]*)<\/title>/g)].map((m) => m[1]);
    expect(titles).toEqual(
      expect.arrayContaining(['API errors', 'Resolved: Web was slow', 'Maintenance in progress: DB upgrade']),
    );
    // The update text is inside the escaped HTML content.
    expect(res.text).toContain('&lt;strong&gt;monitoring&lt;/strong&gt;');
  });

  it('RSS 2.0 with the same entries and RFC 822 dates', async () => {
    const { page } = await seed();
    const res = await request(h.app).get(`/status/${page.slug}/feed.rss`);
    expect(res.type).toBe('application/rss+xml');
    const names = assertWellFormedXml(res.text);
    expect(names.filter((n) => n === 'item')).toHaveLength(4);
    for (const m of res.text.matchAll(/<pubDate>([^<]+)<\/pubDate>/g))
      expect(m[1]).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
  });

  it('escapes hostile text and drops characters XML forbids', async () => {
    const { page } = await seed({ evil: true });
    for (const path of ['feed.atom', 'feed.rss']) {
      const text = (await request(h.app).get(`/status/${page.slug}/${path}`)).text;
      assertWellFormedXml(text);
      expect(text).not.toContain('<script');
      expect(text).toContain('API errors &lt;script&gt;');
      expect(text).not.toContain('\u0001');
    }
  });
});

describe('badges', () => {
  it('the overall badge and a component badge: SVG with the state in words, CORS *', async () => {
    const { page, api, docs } = await seed();
    const all = await request(h.app).get(`/status/${page.slug}/badge.svg`);
    expect(all.status).toBe(200);
    expect(all.type).toBe('image/svg+xml');
    expect(all.headers['access-control-allow-origin']).toBe('*');
    expect(all.headers['cache-control']).toBe('public, max-age=30');
    const svg = all.body instanceof Buffer ? all.body.toString() : all.text;
    expect(svg).toContain('aria-label="status: partial outage"');
    expect(svg).toContain('<title>status: partial outage</title>');
    const one = await request(h.app).get(`/status/${page.slug}/components/${api.componentId}/badge.svg`);
    expect(String(one.body)).toContain('<title>API: major outage</title>');
    const two = await request(h.app).get(`/status/${page.slug}/components/${docs.componentId.toUpperCase()}/badge.svg`);
    expect(String(two.body)).toContain('<title>Docs: under maintenance</title>');
  });

  it('404 for a component the page does not show, or not a component id; hostile names are escaped', async () => {
    const { page } = await seed({ evil: true });
    const other = await seed();
    for (const id of [other.api.componentId, 'not-an-id', '..%2F..%2Fbadge']) {
      const res = await request(h.app).get(`/status/${page.slug}/components/${id}/badge.svg`);
      expect([id, res.status]).toEqual([id, 404]);
    }
    const svg = String((await request(h.app).get(`/status/${page.slug}/badge.svg`)).body);
    expect(svg).not.toContain('<script');
  });
});

describe('access', () => {
  it('a password-protected page keeps feeds, badges and JSON behind its session: 401, nothing leaks', async () => {
    const { page, api } = await seed();
    await setStatusPagePassword(
      h.prisma,
      { id: page.id, password: 'members only!' },
      { publicBaseUrl: h.config.publicBaseUrl },
    );
    const paths = [
      'feed.atom',
      'feed.rss',
      'badge.svg',
      `components/${api.componentId}/badge.svg`,
      'api/v2/summary.json',
      'api/v2/status.json',
    ];
    for (const p of paths) {
      const res = await request(h.app).get(`/status/${page.slug}/${p}`);
      expect([p, res.status, res.body?.error?.code]).toEqual([p, 401, 'unauthorized']);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.text).not.toContain('API errors');
    }
    // With the session cookie they answer.
    const login = await request(h.app)
      .post(`/status/${page.slug}/login`)
      .type('form')
      .send({ password: 'members only!' });
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!;
    for (const p of paths) {
      const res = await request(h.app).get(`/status/${page.slug}/${p}`).set('Cookie', cookie);
      expect([p, res.status]).toEqual([p, 200]);
    }
  });

  it('unknown and non-public pages are 404 for every resource', async () => {
    const w = await makeWorkspace(h.prisma);
    const hidden = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(w.tokens.owner))
      .send({ vanityUrl: uniq('hid'), name: 'Hidden', isPublic: false });
    for (const slug of ['no-such-page', hidden.body.data.slug])
      for (const p of ['feed.atom', 'badge.svg', 'api/v2/summary.json']) {
        expect([slug, p, (await request(h.app).get(`/status/${slug}/${p}`)).status]).toEqual([slug, p, 404]);
      }
  });
});
