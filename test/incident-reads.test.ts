import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
const day = 86_400_000;
const now = Date.now();
let inc: Record<'open' | 'acked' | 'recent' | 'old' | 'foreign', { id: string }>;
let monitorId: string;

beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
  const component = await h.prisma.component.create({ data: { workspaceId: ws.ws.id, name: 'API' } });
  monitorId = (
    await h.prisma.monitor.create({
      data: { workspaceId: ws.ws.id, componentId: component.id, name: 'API', target: 'https://93.184.215.14/' },
    })
  ).id;
  const make = (data: Record<string, unknown>, workspaceId = ws.ws.id) =>
    h.prisma.incident.create({ data: { workspaceId, title: 't', source: 'manual', ...data } });
  inc = {
    open: await make({
      title: 'open',
      monitorId,
      openMonitorId: monitorId,
      source: 'monitor',
      startedAt: new Date(now - 1000),
    }),
    acked: await make({ title: 'acked', status: 'acknowledged', startedAt: new Date(now - 2 * day) }),
    recent: await make({
      title: 'recent',
      status: 'resolved',
      startedAt: new Date(now - 3 * day),
      resolvedAt: new Date(now - day),
    }),
    old: await make({
      title: 'old',
      monitorId,
      status: 'resolved',
      source: 'monitor',
      startedAt: new Date(now - 30 * day),
      resolvedAt: new Date(now - 29 * day),
    }),
    foreign: await make({ title: 'foreign', startedAt: new Date(now - 1000) }, other.ws.id),
  };
});
afterAll(async () => {
  await h.close();
});

const get = (path: string) => request(h.app).get(`/api/v1${path}`).set(bearer(ws.tokens.viewer));
const titles = async (query: string) => {
  const res = await get(`/incidents${query}`);
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.data as Array<{ title: string }>).map((i) => i.title);
};

describe('GET /incidents/{id}', () => {
  it('returns the record the list shows, old or resolved, and 404 for a foreign or unknown id', async () => {
    const listed = (await get('/incidents')).body.data.find((i: { id: string }) => i.id === inc.open.id);
    const one = await get(`/incidents/${inc.open.id.toUpperCase()}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(listed);
    expect(one.body.data).toMatchObject({ title: 'open', status: 'open', monitorId, source: 'monitor' });
    expect((await get(`/incidents/${inc.old.id}`)).body.data).toMatchObject({ title: 'old', status: 'resolved' });
    expect((await get(`/incidents/${inc.foreign.id}`)).status).toBe(404);
    expect((await get('/incidents/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('/incidents/nope')).status).toBe(404);
  });
});

describe('GET /incidents filters', () => {
  it('keeps the default list, and reaches every incident with a filter, newest first', async () => {
    expect(await titles('')).toEqual(['open', 'acked', 'recent']);
    expect(await titles('?status=resolved')).toEqual(['recent', 'old']);
    expect(await titles('?status=open,acknowledged')).toEqual(['open', 'acked']);
    expect(await titles(`?monitorId=${monitorId.toUpperCase()}`)).toEqual(['open', 'old']);
    expect(await titles(`?monitorId=${monitorId}&status=resolved`)).toEqual(['old']);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await titles(`?startedAfter=${iso(now - 40 * day)}&startedBefore=${iso(now - 2 * day)}`)).toEqual([
      'recent',
      'old',
    ]);
    expect(await titles(`?startedAfter=${iso(now - 2 * day)}`)).toEqual(['open', 'acked']);
    expect(
      await titles(
        `?startedBefore=${encodeURIComponent(new Date(now - 20 * day).toISOString().replace('Z', '+00:00'))}`,
      ),
    ).toEqual(['old']);
    const page = await get('/incidents?status=open,acknowledged,resolved&perPage=2&page=2');
    expect(page.body.pagination).toMatchObject({ total: 4, totalPages: 2 });
    expect(page.body.data.map((i: { title: string }) => i.title)).toEqual(['recent', 'old']);
  });

  it('answers 400 naming every invalid filter', async () => {
    const res = await get(
      '/incidents?status=open,closed&monitorId=x&startedAfter=yesterday&startedBefore=2026-01-01T00:00:00&colour=1',
    );
    expect(res.status).toBe(400);
    expect((res.body.error.details.issues as Array<{ path: string }>).map((i) => i.path).sort()).toEqual([
      'colour',
      'monitorId',
      'startedAfter',
      'startedBefore',
      'status[1]',
    ]);
  });
});
