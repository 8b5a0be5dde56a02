import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { errorHandler } from '../apps/api/src/middleware/error-handler.js';
import { publicPagesRouter } from '../apps/api/src/routes/public-pages/public-pages.router.js';
import { PAGE_MAX_AGE_MS, publicPageCache } from '../apps/api/src/services/status-pages/public-page-cache.js';
import type { PublicPageRef } from '../apps/api/src/services/status-pages/public-page.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400_000;

/** A workspace with one monitor, a page showing it, and an app of its own whose clock the test moves. */
async function setUp() {
  const w = await makeWorkspace(h.prisma);
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .send(makeMonitorInput({ name: 'API' }));
  expect(res.status).toBe(201);
  const m = res.body.data as { id: string; componentId: string };
  await h.prisma.monitor.update({ where: { id: m.id }, data: { status: 'up' } });
  const created = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('page'), name: 'Acme' });
  expect(created.status).toBe(201);
  const slug = created.body.data.slug as string;
  const clock = { now: new Date() };
  const app = express();
  app.use(publicPagesRouter(h.deps, () => clock.now));
  app.use(errorHandler(h.deps.logger));
  const json = async () => {
    const r = await request(app).get(`/status/${slug}`).set('Accept', 'application/json');
    expect(r.status).toBe(200);
    return r.body.data;
  };
  const html = async () => (await request(app).get(`/status/${slug}`).set('Accept', 'text/html')).text;
  const today = new Date(Math.floor(clock.now.getTime() / DAY) * DAY);
  return { w, m, slug, clock, app, json, html, today };
}

describe('the public page cache', () => {
  it('serves uptime counts up to PAGE_MAX_AGE_MS old, then reloads them (in the background up to twice that)', async () => {
    const { m, clock, json, html, today } = await setUp();
    const before = await json();
    const beforeHtml = await html();
    expect(before.uptime.components[0].days[89].total).toBe(0);
    const t0 = clock.now.getTime();
    // A rollup is not part of the fingerprint: within the max age the page keeps its counts and its render.
    const rollup = (total: number) =>
      h.prisma.checkRollupDaily.upsert({
        where: { monitorId_region_day: { monitorId: m.id, region: 'eu', day: today } },
        create: { monitorId: m.id, region: 'eu', day: today, total, downCount: 1, degradedCount: 0 },
        update: { total },
      });
    await rollup(10);
    clock.now = new Date(t0 + PAGE_MAX_AGE_MS - 1);
    expect((await json()).uptime.components[0].days[89].total).toBe(0);
    expect((await json()).generatedAt).toBe(before.generatedAt);
    expect(await html()).toBe(beforeHtml);
    // Older than the max age: still served once more while it reloads, then the reload is served.
    clock.now = new Date(t0 + PAGE_MAX_AGE_MS);
    expect((await json()).generatedAt).toBe(before.generatedAt);
    for (let i = 0; i < 100 && (await json()).generatedAt === before.generatedAt; i++)
      await new Promise((r) => setTimeout(r, 20));
    const after = await json();
    expect(after.generatedAt).toBe(clock.now.toISOString());
    expect(after.uptime.components[0].days[89]).toMatchObject({ total: 10, downCount: 1 });
    // Twice the max age: the request waits for a reload of its own.
    await rollup(20);
    clock.now = new Date(t0 + 3 * PAGE_MAX_AGE_MS);
    expect((await json()).uptime.components[0].days[89]).toMatchObject({ total: 20, downCount: 1 });
  });

  it('a change to anything else the page shows is seen on the next request, whoever wrote it', async () => {
    const { w, m, clock, json, html } = await setUp();
    const frozen = clock.now;
    const expectNow = async (check: (d: ReturnType<typeof JSON.parse>) => void) => {
      clock.now = frozen; // the same instant: only the fingerprint can tell
      check(await json());
    };
    await json();
    await h.prisma.monitor.update({ where: { id: m.id }, data: { status: 'down' } });
    await expectNow((d) => expect(d.components[0].state).toBe('major_outage'));
    expect(await html()).toContain('Major outage');
    await h.prisma.component.update({ where: { id: m.componentId }, data: { name: 'Renamed API' } });
    await expectNow((d) => expect(d.components[0].name).toBe('Renamed API'));

    const incident = await h.prisma.incident.create({
      data: { workspaceId: w.ws.id, title: 'Everything is slow', status: 'open', source: 'manual' },
    });
    await expectNow((d) => expect(d.incidents.map((i: { title: string }) => i.title)).toEqual(['Everything is slow']));
    await h.prisma.incidentUpdate.create({
      data: { incidentId: incident.id, status: 'identified', message: 'A full disk' },
    });
    await expectNow((d) =>
      expect(d.incidents[0].updates.map((u: { message: string }) => u.message)).toEqual(['A full disk']),
    );
    await h.prisma.incidentUpdate.updateMany({
      where: { incidentId: incident.id },
      data: { message: 'A full disk, cleaned' },
    });
    await expectNow((d) => expect(d.incidents[0].updates[0].message).toBe('A full disk, cleaned'));
    await h.prisma.incident.update({
      where: { id: incident.id },
      data: { status: 'resolved', resolvedAt: frozen },
    });
    await expectNow((d) => {
      expect(d.incidents).toEqual([]);
      expect(d.pastIncidents.map((i: { title: string }) => i.title)).toEqual(['Everything is slow']);
    });

    const window = await h.prisma.maintenanceWindow.create({
      data: {
        workspaceId: w.ws.id,
        title: 'Upgrade',
        startsAt: new Date(frozen.getTime() - 1000),
        endsAt: new Date(frozen.getTime() + 3_600_000),
      },
    });
    await expectNow((d) => expect(d.components[0].state).toBe('under_maintenance'));
    await h.prisma.maintenanceWindow.update({ where: { id: window.id }, data: { cancelledAt: frozen } });
    await expectNow((d) => {
      expect(d.components[0].state).toBe('major_outage');
      expect(d.maintenance[0].status).toBe('cancelled');
    });
  });

  it('time alone moves the page on: an incident leaving its 14 days and the next UTC day are loads of their own', async () => {
    const { w, clock, json } = await setUp();
    const t0 = clock.now.getTime();
    await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        title: 'Old news',
        status: 'resolved',
        source: 'manual',
        startedAt: new Date(t0 - 14 * DAY),
        resolvedAt: new Date(t0 - 14 * DAY + 1000),
      },
    });
    expect((await json()).pastIncidents).toHaveLength(1);
    clock.now = new Date(t0 + 2000);
    expect((await json()).pastIncidents).toHaveLength(0);
    const nextDay = Math.floor(t0 / DAY) * DAY + DAY;
    clock.now = new Date(nextDay - 1);
    const last = (await json()).uptime.to;
    clock.now = new Date(nextDay);
    expect((await json()).uptime.to).not.toBe(last);
  });

  it('keeps at most its number of pages: the one least recently asked for goes', async () => {
    const w = await makeWorkspace(h.prisma);
    const slugs: string[] = [];
    for (const name of ['A', 'B', 'C']) {
      const created = await request(h.app)
        .post('/api/v1/status-pages')
        .set(bearer(w.tokens.owner))
        .send({ vanityUrl: uniq('page'), name });
      expect(created.status).toBe(201);
      slugs.push(created.body.data.slug as string);
    }
    const rows = await h.prisma.statusPage.findMany({ where: { workspaceId: w.ws.id } });
    const [a, b, c] = slugs.map((slug) => {
      const { id, workspaceId, name, passwordHash, logoUrl, faviconUrl, brandColor, websiteUrl } = rows.find(
        (r) => r.slug === slug,
      )!;
      return { id, workspaceId, name, slug, passwordHash, brand: { logoUrl, faviconUrl, brandColor, websiteUrl } };
    }) as [PublicPageRef, PublicPageRef, PublicPageRef];
    const cache = publicPageCache(
      { prisma: h.prisma, publicBaseUrl: 'http://127.0.0.1', checkRegions: h.deps.config.checkRegions },
      2,
    );
    const now = new Date();
    const firstA = await cache.load(a, now);
    const firstB = await cache.load(b, now);
    // A asked for again: B is now the least recently asked for, though A was loaded first.
    expect(await cache.load(a, now)).toBe(firstA);
    await cache.load(c, now);
    expect(await cache.load(a, now)).toBe(firstA);
    const againB = await cache.load(b, now);
    expect(againB).not.toBe(firstB);
    expect(againB.data.page.name).toBe('B');
  });
});
