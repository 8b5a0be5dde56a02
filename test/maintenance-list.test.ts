import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
const hour = 3_600_000;
const now = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
let componentA: string;
let componentB: string;

beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
  componentA = (await h.prisma.component.create({ data: { workspaceId: ws.ws.id, name: 'A' } })).id;
  componentB = (await h.prisma.component.create({ data: { workspaceId: ws.ws.id, name: 'B' } })).id;
  const make = (
    title: string,
    start: number,
    end: number,
    extra: Record<string, unknown> = {},
    workspaceId = ws.ws.id,
  ) =>
    h.prisma.maintenanceWindow.create({
      data: { workspaceId, title, startsAt: new Date(now + start), endsAt: new Date(now + end), ...extra },
    });
  await make('past', -10 * hour, -9 * hour, { components: { create: [{ componentId: componentA }] } });
  await make('now-all', -hour, hour);
  await make('future-b', 5 * hour, 6 * hour, { components: { create: [{ componentId: componentB }] } });
  await make('cancelled', 2 * hour, 3 * hour, { cancelledAt: new Date(now - hour) });
  await make('cut-short', -8 * hour, -2 * hour, { cancelledAt: new Date(now - 7 * hour) });
  await make('theirs', -hour, hour, {}, other.ws.id);
});
afterAll(async () => {
  await h.close();
});

const titles = async (query: string) => {
  const res = await request(h.app).get(`/api/v1/maintenance${query}`).set(bearer(ws.tokens.viewer));
  expect([query, res.status]).toEqual([query, 200]);
  return (res.body.data as Array<{ title: string }>).map((w) => w.title);
};

describe('GET /maintenance', () => {
  it('lists the workspace windows newest startsAt first, paginated', async () => {
    expect(await titles('')).toEqual(['future-b', 'cancelled', 'now-all', 'cut-short', 'past']);
    const res = await request(h.app).get('/api/v1/maintenance?perPage=2&page=2').set(bearer(ws.tokens.viewer));
    expect(res.body.pagination).toEqual({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(res.body.data.map((w: { title: string }) => w.title)).toEqual(['now-all', 'cut-short']);
    expect(res.body.data[0]).toMatchObject({ status: 'in_progress', components: [] });
  });

  it('filters by state, component and instant', async () => {
    expect(await titles('?state=in_progress')).toEqual(['now-all']);
    expect(await titles('?state=scheduled,completed')).toEqual(['future-b', 'past']);
    expect(await titles('?state=cancelled')).toEqual(['cancelled', 'cut-short']);
    expect(await titles(`?componentId=${componentB.toUpperCase()}`)).toEqual([
      'future-b',
      'cancelled',
      'now-all',
      'cut-short',
    ]);
    expect(await titles(`?componentId=${componentA}&state=completed`)).toEqual(['past']);
    expect(await titles(`?activeAt=${iso(now - 9.5 * hour)}`)).toEqual(['past']);
    expect(await titles(`?activeAt=${iso(now - 7.5 * hour)}`)).toEqual(['cut-short']); // before its cancellation
    expect(await titles(`?activeAt=${iso(now - 5 * hour)}`)).toEqual([]); // cut-short was cancelled by then
    expect(await titles(`?activeAt=${iso(now + 5.5 * hour)}`)).toEqual(['future-b']);
  });

  it('answers 400 naming every invalid filter', async () => {
    const res = await request(h.app)
      .get('/api/v1/maintenance?state=done&componentId=1&activeAt=now&perPage=0&x=1')
      .set(bearer(ws.tokens.viewer));
    expect(res.status).toBe(400);
    expect((res.body.error.details.issues as Array<{ path: string }>).map((i) => i.path).sort()).toEqual([
      'activeAt',
      'componentId',
      'perPage',
      'state[0]',
      'x',
    ]);
  });
});
