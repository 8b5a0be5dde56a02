import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../apps/api/src/app.js';
import { maintenanceUntilByComponent } from '@statusvane/shared';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeUser, makeWorkspace, uniq, type Harness } from './support/harness.js';

type Tokens = Awaited<ReturnType<typeof makeWorkspace>>['tokens'];

let h: Harness;
let tokens: Tokens;
let other: Tokens;
beforeAll(async () => {
  h = makeHarness();
  tokens = (await makeWorkspace(h.prisma)).tokens;
  other = (await makeWorkspace(h.prisma)).tokens;
});
afterAll(async () => {
  await h.close();
});

const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const issuePaths = (res: request.Response) =>
  (res.body.error?.details?.issues ?? []).map((i: { path: string }) => i.path).sort();

const post = (body: unknown, token = tokens.owner, app: Express = h.app) =>
  request(app)
    .post('/api/v1/maintenance')
    .set(bearer(token))
    .send(body as object);
const get = (id: string, token = tokens.viewer, app: Express = h.app) =>
  request(app).get(`/api/v1/maintenance/${id}`).set(bearer(token));
const patch = (id: string, body: unknown, token = tokens.owner, app: Express = h.app) =>
  request(app)
    .patch(`/api/v1/maintenance/${id}`)
    .set(bearer(token))
    .send(body as object);

/** The maintenance routes on a clock the test sets: boundaries can be hit to the millisecond. */
function appAt(clock: { now: Date }): Express {
  return createApp({ ...h.deps, clock: () => clock.now });
}

/** A window one hour from now, lasting an hour, unless overridden. */
const windowInput = (overrides: Record<string, unknown> = {}) => ({
  title: 'Database upgrade',
  body: 'We are upgrading the primary database.',
  startsAt: iso(Date.now() + 60 * MIN),
  endsAt: iso(Date.now() + 120 * MIN),
  ...overrides,
});

async function createMonitor(token = tokens.owner, name = 'API') {
  const res = await request(h.app).post('/api/v1/monitors').set(bearer(token)).send(makeMonitorInput({ name }));
  expect(res.status).toBe(201);
  return res.body.data as { id: string; componentId: string; name: string };
}

describe('POST /maintenance', () => {
  it('creates a scheduled window over the whole workspace (201) and reads it back', async () => {
    const input = windowInput();
    const res = await post(input);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      version: 1,
      title: 'Database upgrade',
      body: 'We are upgrading the primary database.',
      status: 'scheduled',
      startsAt: input.startsAt,
      endsAt: input.endsAt,
      components: [],
    });
    const read = await get(res.body.data.id);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(res.body.data);
  });

  it('stores the instant of a time given with an offset, and answers in UTC', async () => {
    const res = await post(
      windowInput({ startsAt: '2031-05-01T12:00:00+02:00', endsAt: '2031-05-01T13:30:00.5-01:00' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ startsAt: '2031-05-01T10:00:00.000Z', endsAt: '2031-05-01T14:30:00.500Z' });
  });

  it('scopes a window to components, listing them with their names; body defaults to empty', async () => {
    const a = await createMonitor(tokens.owner, 'Checkout');
    const b = await createMonitor(tokens.owner, 'Accounts');
    const res = await post({
      title: 'Payments',
      startsAt: iso(Date.now() + MIN),
      endsAt: iso(Date.now() + 2 * MIN),
      componentIds: [a.componentId, b.componentId],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.body).toBe('');
    expect(res.body.data.components).toEqual([
      { id: b.componentId, name: 'Accounts' },
      { id: a.componentId, name: 'Checkout' },
    ]);
    expect((await post(windowInput({ componentIds: [] }))).body.data.components).toEqual([]);
  });

  it('400 when the title is missing, empty or too long, naming the field', async () => {
    const { title: _t, ...noTitle } = windowInput();
    for (const body of [
      noTitle,
      windowInput({ title: '' }),
      windowInput({ title: '   ' }),
      windowInput({ title: 't'.repeat(201) }),
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(issuePaths(res)).toEqual(['title']);
    }
    expect((await post(windowInput({ title: 't'.repeat(200) }))).status).toBe(201);
  });

  it('400 when endsAt is not after startsAt (equal or before)', async () => {
    const t = Date.now() + 60 * MIN;
    for (const endsAt of [iso(t), iso(t - 1)]) {
      const res = await post(windowInput({ startsAt: iso(t), endsAt }));
      expect(res.status).toBe(400);
      expect(issuePaths(res)).toEqual(['endsAt']);
    }
    expect((await post(windowInput({ startsAt: iso(t), endsAt: iso(t + 1) }))).status).toBe(201);
  });

  it('400 for a date-time without an offset, or not a date-time at all', async () => {
    for (const startsAt of [
      '2031-05-01T10:00:00',
      '2031-05-01 10:00:00Z',
      '2031-05-01',
      'tomorrow',
      1893456000000,
      '2031-02-30T10:00:00Z',
    ]) {
      const res = await post(windowInput({ startsAt, endsAt: '2031-06-01T10:00:00Z' }));
      expect([startsAt, res.status, issuePaths(res)]).toEqual([startsAt, 400, ['startsAt']]);
    }
    const res = await post(windowInput({ endsAt: '2031-06-01T10:00:00' }));
    expect(issuePaths(res)).toEqual(['endsAt']);
  });

  it('400 for foreign, unknown, repeated or malformed componentIds, naming each componentIds[i]', async () => {
    const mine = await createMonitor();
    const theirs = await createMonitor(other.owner, 'Theirs');
    const title = uniq('never stored');
    const res = await post(
      windowInput({
        title,
        componentIds: [mine.componentId, theirs.componentId, '8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', mine.componentId],
      }),
    );
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['componentIds[1]', 'componentIds[2]', 'componentIds[3]']);
    // Foreign and unknown read the same: another workspace's ids are not revealed.
    const messages = res.body.error.details.issues.map((i: { message: string }) => i.message);
    expect(messages[0]).toBe(messages[1]);
    expect(issuePaths(await post(windowInput({ title, componentIds: ['not-a-uuid'] })))).toEqual(['componentIds[0]']);
    // A bad field of the schema does not hide a foreign component: one 400 names both, on create and on PATCH.
    expect(issuePaths(await post(windowInput({ title, body: 7, componentIds: [theirs.componentId] })))).toEqual([
      'body',
      'componentIds[0]',
    ]);
    const created = (await post(windowInput({ title: uniq('judged together') }))).body.data;
    expect(issuePaths(await patch(created.id, { title: '', componentIds: [theirs.componentId] })).sort()).toEqual([
      'componentIds[0]',
      'title',
    ]);
    expect((await get(created.id)).body.data).toEqual(created);
    // The requests above carried this title: none of them stored a window.
    expect(await h.prisma.maintenanceWindow.count({ where: { title } })).toBe(0);
    expect((await post(windowInput({ title, componentIds: [mine.componentId] }))).status).toBe(201);
    expect(await h.prisma.maintenanceWindow.count({ where: { title } })).toBe(1);
  });

  it('400, not 500, for times outside what the database stores (year 0 or 10000 once in UTC); the edges are stored', async () => {
    const title = uniq('out of range');
    const outside = [
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:30:00+01:00',
      '0000-12-31T23:59:59.999Z',
      '9999-12-31T23:59:59-01:00',
      '9999-12-31T23:30:00-00:31',
    ];
    for (const bad of outside) {
      for (const [field, body] of [
        ['startsAt', { title, startsAt: bad, endsAt: '2031-06-01T10:00:00Z' }],
        ['endsAt', { title, startsAt: '2031-06-01T10:00:00Z', endsAt: bad }],
      ] as const) {
        const res = await post(body);
        expect([bad, field, res.status, res.body.error?.details?.issues]).toEqual([
          bad,
          field,
          400,
          [{ path: field, message: expect.stringContaining('0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z') }],
        ]);
      }
    }
    // Past the four-digit year Zod's format check already refuses them.
    for (const bad of ['+275760-09-13T00:00:00Z', '10000-01-01T00:00:00Z']) {
      expect([bad, ...issuePaths(await post({ title, startsAt: '2031-06-01T10:00:00Z', endsAt: bad }))]).toEqual([
        bad,
        'endsAt',
      ]);
    }
    expect(await h.prisma.maintenanceWindow.count({ where: { title } })).toBe(0);
    const edges = await post({ title, startsAt: '0001-01-01T01:00:00+01:00', endsAt: '9999-12-31T23:59:59.999Z' });
    expect(edges.status).toBe(201);
    expect(edges.body.data).toMatchObject({
      startsAt: '0001-01-01T00:00:00.000Z',
      endsAt: '9999-12-31T23:59:59.999Z',
      status: 'in_progress',
    });
    expect((await get(edges.body.data.id)).body.data).toEqual(edges.body.data);
  });

  it("accepts the workspace's own component ids in upper case, stored and answered in lower case; a case-only repeat is a repeat", async () => {
    const a = await createMonitor(tokens.owner, 'Upper A');
    const b = await createMonitor(tokens.owner, 'Upper B');
    const res = await post(windowInput({ componentIds: [a.componentId.toUpperCase(), b.componentId] }));
    expect(res.status).toBe(201);
    expect(res.body.data.components).toEqual([
      { id: a.componentId, name: 'Upper A' },
      { id: b.componentId, name: 'Upper B' },
    ]);
    const stored = await h.prisma.maintenanceComponent.findMany({
      where: { maintenanceId: res.body.data.id },
      select: { componentId: true },
    });
    expect(stored.map((c) => c.componentId).sort()).toEqual([a.componentId, b.componentId].sort());
    const twice = await post(windowInput({ componentIds: [a.componentId, a.componentId.toUpperCase()] }));
    expect([twice.status, twice.body.error.details.issues]).toEqual([
      400,
      [{ path: 'componentIds[1]', message: 'is listed twice' }],
    ]);

    const patched = await patch(res.body.data.id, { componentIds: [b.componentId.toUpperCase()] });
    expect(patched.status).toBe(200);
    expect(patched.body.data.components).toEqual([{ id: b.componentId, name: 'Upper B' }]);
  });

  it("componentIds: exactly 200 of the workspace's components accepted, 201 refused, on POST and on PATCH", async () => {
    const { ws, tokens: t } = await makeWorkspace(h.prisma);
    await h.prisma.component.createMany({
      data: Array.from({ length: 201 }, (_, i) => ({ workspaceId: ws.id, name: `C${String(i).padStart(3, '0')}` })),
    });
    const ids = (
      await h.prisma.component.findMany({
        where: { workspaceId: ws.id },
        select: { id: true },
        orderBy: { name: 'asc' },
      })
    ).map((c) => c.id);
    expect(ids).toHaveLength(201);

    const title = uniq('two hundred');
    const refused = await post(windowInput({ title, componentIds: ids }), t.owner);
    expect([refused.status, issuePaths(refused)]).toEqual([400, ['componentIds']]);
    expect(await h.prisma.maintenanceWindow.count({ where: { title } })).toBe(0);
    const created = await post(windowInput({ title, componentIds: ids.slice(0, 200) }), t.owner);
    expect(created.status).toBe(201);
    expect(created.body.data.components).toHaveLength(200);

    const p201 = await patch(created.body.data.id, { componentIds: ids }, t.owner);
    expect([p201.status, issuePaths(p201)]).toEqual([400, ['componentIds']]);
    expect(await h.prisma.maintenanceComponent.count({ where: { maintenanceId: created.body.data.id } })).toBe(200);
    const p200 = await patch(created.body.data.id, { componentIds: ids.slice(1) }, t.owner);
    expect(p200.status).toBe(200);
    expect(p200.body.data.components.map((c: { id: string }) => c.id).sort()).toEqual(ids.slice(1).sort());
  });

  it('enforces the limits: body 4000, componentIds 200, unknown keys', async () => {
    expect((await post(windowInput({ body: 'b'.repeat(4000) }))).status).toBe(201);
    expect(issuePaths(await post(windowInput({ body: 'b'.repeat(4001) })))).toEqual(['body']);
    const ids = Array.from({ length: 201 }, () => crypto.randomUUID());
    expect(issuePaths(await post(windowInput({ componentIds: ids })))).toEqual(['componentIds']);
    expect(issuePaths(await post(windowInput({ status: 'scheduled', colour: 'red' })))).toEqual(['colour', 'status']);
  });

  it('403 for member and viewer tokens; 201 for admin', async () => {
    for (const token of [tokens.member, tokens.viewer]) {
      const res = await post(windowInput({ title: 'never stored' }), token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(await h.prisma.maintenanceWindow.count({ where: { title: 'never stored' } })).toBe(0);
    expect((await post(windowInput(), tokens.admin)).status).toBe(201);
  });

  it('401 without a token, 400 without a JSON body', async () => {
    expect((await request(h.app).post('/api/v1/maintenance').send(windowInput())).status).toBe(401);
    const res = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(tokens.owner))
      .type('text/plain')
      .send('title=x');
    expect(res.status).toBe(400);
  });
});

describe('POST /maintenance with Idempotency-Key', () => {
  it('opens one window for a request sent twice: the retry replays the first answer', async () => {
    const key = uniq('key');
    const body = windowInput({ title: uniq('Release') });
    const send = () =>
      request(h.app).post('/api/v1/maintenance').set(bearer(tokens.owner)).set('Idempotency-Key', key).send(body);
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await send();
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await h.prisma.maintenanceWindow.count({ where: { title: body.title as string } })).toBe(1);
    // The same key with another body is refused, not replayed.
    const other = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(tokens.owner))
      .set('Idempotency-Key', key)
      .send({ ...body, title: 'Another' });
    expect(other.status).toBe(400);
  });
});

describe('GET /maintenance/{id}', () => {
  it("404 for a malformed id, an unknown id and another workspace's window; any role may read", async () => {
    const created = (await post(windowInput())).body.data;
    for (const role of ['owner', 'admin', 'member', 'viewer'] as const)
      expect((await get(created.id, tokens[role])).status).toBe(200);
    for (const id of ['nope', '123', 'b2f1c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d']) {
      const res = await get(id);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await get(created.id, other.owner)).status).toBe(404);
    expect((await patch(created.id, { title: 'x' }, other.owner)).status).toBe(404);
    expect((await patch('nope', { title: 'x' })).status).toBe(404);
  });
});

describe('status from the clock, exactly at the boundaries', () => {
  it('scheduled before startsAt, in_progress from startsAt, completed from endsAt', async () => {
    const startsAt = Date.parse('2031-03-01T10:00:00.000Z');
    const endsAt = startsAt + 60 * MIN;
    const clock = { now: new Date(startsAt - 5 * MIN) };
    const app = appAt(clock);
    const created = await post(
      { title: 'Boundaries', startsAt: iso(startsAt), endsAt: iso(endsAt) },
      tokens.owner,
      app,
    );
    expect(created.body.data.status).toBe('scheduled');
    const at = async (ms: number) => {
      clock.now = new Date(ms);
      return (await get(created.body.data.id, tokens.viewer, app)).body.data.status;
    };
    expect(await at(startsAt - 1)).toBe('scheduled');
    expect(await at(startsAt)).toBe('in_progress');
    expect(await at(startsAt + 1)).toBe('in_progress');
    expect(await at(endsAt - 1)).toBe('in_progress');
    expect(await at(endsAt)).toBe('completed');
    expect(await at(endsAt + 1)).toBe('completed');
  });
});

describe('PATCH /maintenance/{id}: actions, every state and move', () => {
  const T = Date.parse('2031-04-01T10:00:00.000Z');
  const startsAt = T + 60 * MIN;
  const endsAt = T + 120 * MIN;
  /** Where the clock stands for each state of a window from startsAt to endsAt. */
  const clockFor = {
    scheduled: T,
    in_progress: T + 90 * MIN,
    completed: T + 180 * MIN,
    cancelled: T + 90 * MIN,
  } as const;

  async function windowIn(state: keyof typeof clockFor) {
    const clock = { now: new Date(T) };
    const app = appAt(clock);
    const created = await post(
      { title: `In ${state}`, body: 'kept', startsAt: iso(startsAt), endsAt: iso(endsAt) },
      tokens.owner,
      app,
    );
    expect(created.status).toBe(201);
    if (state === 'cancelled')
      expect((await patch(created.body.data.id, { status: 'cancel' }, tokens.owner, app)).status).toBe(200);
    clock.now = new Date(clockFor[state]);
    const before = await get(created.body.data.id, tokens.viewer, app);
    expect(before.body.data.status).toBe(state);
    return { id: created.body.data.id as string, app, clock, before: before.body.data };
  }

  const now = (state: keyof typeof clockFor) => iso(clockFor[state]);
  type Expectation = { code: 200; status: string; startsAt?: string; endsAt?: string } | { code: 409 };
  const table: Array<[keyof typeof clockFor, 'start' | 'complete' | 'cancel', Expectation]> = [
    ['scheduled', 'start', { code: 200, status: 'in_progress', startsAt: now('scheduled'), endsAt: iso(endsAt) }],
    ['scheduled', 'complete', { code: 409 }],
    ['scheduled', 'cancel', { code: 200, status: 'cancelled', startsAt: iso(startsAt), endsAt: iso(endsAt) }],
    ['in_progress', 'start', { code: 200, status: 'in_progress', startsAt: iso(startsAt), endsAt: iso(endsAt) }],
    [
      'in_progress',
      'complete',
      { code: 200, status: 'completed', startsAt: iso(startsAt), endsAt: now('in_progress') },
    ],
    ['in_progress', 'cancel', { code: 200, status: 'cancelled', startsAt: iso(startsAt), endsAt: iso(endsAt) }],
    ['completed', 'start', { code: 409 }],
    ['completed', 'complete', { code: 200, status: 'completed', startsAt: iso(startsAt), endsAt: iso(endsAt) }],
    ['completed', 'cancel', { code: 409 }],
    ['cancelled', 'start', { code: 409 }],
    ['cancelled', 'complete', { code: 409 }],
    ['cancelled', 'cancel', { code: 200, status: 'cancelled', startsAt: iso(startsAt), endsAt: iso(endsAt) }],
  ];

  it.each(table)('%s + %s', async (state, action, expected) => {
    const w = await windowIn(state);
    const res = await patch(w.id, { status: action }, tokens.owner, w.app);
    expect(res.status).toBe(expected.code);
    const after = (await get(w.id, tokens.viewer, w.app)).body.data;
    if (expected.code === 409) {
      expect(res.body.error.code).toBe('conflict');
      expect(res.body.error.details).toEqual({ status: state, action });
      expect(after).toEqual(w.before);
      return;
    }
    const moved = ['status', 'startsAt', 'endsAt'].some(
      (k) => expected[k as keyof typeof expected] !== w.before[k as keyof typeof w.before],
    );
    expect(res.body.data).toEqual({
      ...w.before,
      status: expected.status,
      startsAt: expected.startsAt,
      endsAt: expected.endsAt,
      // A no-op action changes nothing, the version included (docs/decisions.md).
      version: w.before.version + (moved ? 1 : 0),
    });
    expect(after).toEqual(res.body.data);
    expect(after.title).toBe(`In ${state}`);
    expect(after.body).toBe('kept');
  });

  it('a repeated action is a no-op that changes nothing stored', async () => {
    const w = await windowIn('in_progress');
    const row = await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: w.id } });
    expect((await patch(w.id, { status: 'start' }, tokens.owner, w.app)).status).toBe(200);
    const again = await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: w.id } });
    expect([again.startsAt, again.endsAt, again.cancelledAt]).toEqual([row.startsAt, row.endsAt, row.cancelledAt]);
  });

  it('starting exactly at the boundary: start at startsAt - 1 ms moves startsAt; at startsAt it is already running', async () => {
    const w = await windowIn('scheduled');
    w.clock.now = new Date(startsAt - 1);
    const res = await patch(w.id, { status: 'start' }, tokens.owner, w.app);
    expect(res.body.data).toMatchObject({ status: 'in_progress', startsAt: iso(startsAt - 1) });
    const w2 = await windowIn('scheduled');
    w2.clock.now = new Date(startsAt);
    const noop = await patch(w2.id, { status: 'start' }, tokens.owner, w2.app);
    expect(noop.body.data).toMatchObject({ status: 'in_progress', startsAt: iso(startsAt) });
  });

  it('completing 1 ms before endsAt ends it then; at endsAt it is already completed (no-op)', async () => {
    const w = await windowIn('in_progress');
    w.clock.now = new Date(endsAt - 1);
    expect((await patch(w.id, { status: 'complete' }, tokens.owner, w.app)).body.data).toMatchObject({
      status: 'completed',
      endsAt: iso(endsAt - 1),
    });
    const w2 = await windowIn('in_progress');
    w2.clock.now = new Date(endsAt);
    expect((await patch(w2.id, { status: 'complete' }, tokens.owner, w2.app)).body.data).toMatchObject({
      status: 'completed',
      endsAt: iso(endsAt),
    });
    w2.clock.now = new Date(endsAt);
    expect((await patch(w2.id, { status: 'cancel' }, tokens.owner, w2.app)).status).toBe(409);
  });

  it('complete exactly at startsAt: a zero-length completed window (endsAt = startsAt), never a 400', async () => {
    const w = await windowIn('scheduled');
    w.clock.now = new Date(startsAt);
    const res = await patch(w.id, { status: 'complete' }, tokens.owner, w.app);
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    expect(res.body.data).toEqual({
      ...w.before,
      version: 2,
      status: 'completed',
      startsAt: iso(startsAt),
      endsAt: iso(startsAt),
    });
    const row = await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: w.id } });
    expect([row.startsAt.getTime(), row.endsAt.getTime(), row.cancelledAt]).toEqual([startsAt, startsAt, null]);
    // Completed at every instant from then on, and final like any completed window.
    for (const ms of [startsAt, startsAt + 1, endsAt]) {
      w.clock.now = new Date(ms);
      expect((await get(w.id, tokens.viewer, w.app)).body.data.status).toBe('completed');
    }
    expect((await patch(w.id, { status: 'complete' }, tokens.owner, w.app)).status).toBe(200);
    expect((await patch(w.id, {}, tokens.owner, w.app)).status).toBe(200);
    expect((await patch(w.id, { status: 'cancel' }, tokens.owner, w.app)).status).toBe(409);
    expect((await patch(w.id, { endsAt: iso(endsAt) }, tokens.owner, w.app)).status).toBe(409);
    expect((await get(w.id, tokens.viewer, w.app)).body.data).toEqual(res.body.data);
  });

  it('start and complete in the same millisecond: a zero-length completed window at that instant', async () => {
    const w = await windowIn('scheduled');
    const t = T + 7 * MIN + 123;
    w.clock.now = new Date(t);
    const started = await patch(w.id, { status: 'start' }, tokens.owner, w.app);
    expect(started.body.data).toMatchObject({ status: 'in_progress', startsAt: iso(t), endsAt: iso(endsAt) });
    const done = await patch(w.id, { status: 'complete' }, tokens.owner, w.app);
    expect([done.status, done.body.data]).toEqual([
      200,
      { ...w.before, version: 3, status: 'completed', startsAt: iso(t), endsAt: iso(t) },
    ]);
  });

  it('complete with a startsAt in the same PATCH: equal to now is the same zero-length window; after now is 400 on startsAt', async () => {
    const w = await windowIn('in_progress');
    const now = clockFor.in_progress;
    const late = await patch(w.id, { status: 'complete', startsAt: iso(now + 1) }, tokens.owner, w.app);
    expect([late.status, issuePaths(late)]).toEqual([400, ['startsAt']]);
    expect((await get(w.id, tokens.viewer, w.app)).body.data).toEqual(w.before);
    const same = await patch(w.id, { status: 'complete', startsAt: iso(now) }, tokens.owner, w.app);
    expect(same.body.data).toMatchObject({ status: 'completed', startsAt: iso(now), endsAt: iso(now) });
  });

  it('a running window whose startsAt is moved into the future is scheduled again (the status follows the clock)', async () => {
    const w = await windowIn('in_progress');
    const later = iso(clockFor.in_progress + 1);
    const res = await patch(w.id, { startsAt: later }, tokens.owner, w.app);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...w.before, version: 2, status: 'scheduled', startsAt: later });
    // `complete` is then a conflict (nothing has run), `start` runs it again from now.
    expect((await patch(w.id, { status: 'complete' }, tokens.owner, w.app)).status).toBe(409);
    expect((await patch(w.id, { status: 'start' }, tokens.owner, w.app)).body.data).toMatchObject({
      status: 'in_progress',
      startsAt: iso(clockFor.in_progress),
    });
  });

  it('refuses an unknown action and the states themselves as actions', async () => {
    const w = await windowIn('scheduled');
    for (const status of ['scheduled', 'in_progress', 'completed', 'cancelled', 'stop', '']) {
      const res = await patch(w.id, { status }, tokens.owner, w.app);
      expect([status, res.status, issuePaths(res)]).toEqual([status, 400, ['status']]);
    }
  });

  it('concurrent complete and cancel on a running window: one wins, the other is a conflict or a no-op, never both applied', async () => {
    const w = await windowIn('in_progress');
    const [a, b] = await Promise.all([
      patch(w.id, { status: 'complete' }, tokens.owner, w.app),
      patch(w.id, { status: 'cancel' }, tokens.owner, w.app),
    ]);
    const codes = [a.status, b.status].sort();
    expect(codes).toEqual([200, 409]);
    const row = await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id: w.id } });
    const completed = row.endsAt.getTime() === clockFor.in_progress;
    expect(completed !== (row.cancelledAt !== null)).toBe(true);
  });
});

describe('PATCH /maintenance/{id}: fields', () => {
  it('extends a running window by endsAt alone; title and body survive', async () => {
    const created = (await post(windowInput({ startsAt: iso(Date.now() - MIN), endsAt: iso(Date.now() + 10 * MIN) })))
      .body.data;
    expect(created.status).toBe('in_progress');
    const endsAt = iso(Date.now() + 60 * MIN);
    const res = await patch(created.id, { endsAt });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...created, version: 2, endsAt });
  });

  it('changes only the given fields; componentIds replaces the set, [] means the whole workspace again', async () => {
    const m = await createMonitor(tokens.owner, 'Search');
    const created = (await post(windowInput())).body.data;
    const res = await patch(created.id, { title: 'New title', componentIds: [m.componentId] });
    expect(res.body.data).toEqual({
      ...created,
      version: 2,
      title: 'New title',
      components: [{ id: m.componentId, name: 'Search' }],
    });
    const cleared = await patch(created.id, { componentIds: [] });
    expect(cleared.body.data.components).toEqual([]);
    expect(cleared.body.data.title).toBe('New title');
    expect((await patch(created.id, {})).body.data).toEqual(cleared.body.data);
  });

  it('400 when the result would not end after it starts, naming the field sent', async () => {
    const created = (await post(windowInput())).body.data;
    expect(issuePaths(await patch(created.id, { endsAt: created.startsAt }))).toEqual(['endsAt']);
    expect(issuePaths(await patch(created.id, { startsAt: created.endsAt }))).toEqual(['startsAt']);
    expect(issuePaths(await patch(created.id, { startsAt: iso(Date.parse(created.endsAt) + 1) }))).toEqual([
      'startsAt',
    ]);
    expect(issuePaths(await patch(created.id, { startsAt: created.endsAt, endsAt: created.startsAt }))).toEqual([
      'endsAt',
    ]);
    expect((await get(created.id)).body.data).toEqual(created);
  });

  it('400 for an action together with the time it sets, for offset-less times and for unknown keys', async () => {
    const created = (await post(windowInput())).body.data;
    expect(issuePaths(await patch(created.id, { status: 'start', startsAt: created.startsAt }))).toEqual(['startsAt']);
    expect(issuePaths(await patch(created.id, { status: 'complete', endsAt: created.endsAt }))).toEqual(['endsAt']);
    expect(issuePaths(await patch(created.id, { endsAt: '2031-01-01T10:00:00' }))).toEqual(['endsAt']);
    expect(issuePaths(await patch(created.id, { id: created.id, components: [] }))).toEqual(['components', 'id']);
    expect(issuePaths(await patch(created.id, { title: '' }))).toEqual(['title']);
    expect(issuePaths(await patch(created.id, { componentIds: ['8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'] }))).toEqual([
      'componentIds[0]',
    ]);
    // Both at once: one 400 names both, the contradiction and the component.
    const both = {
      status: 'start',
      startsAt: created.startsAt,
      componentIds: ['8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'],
    };
    expect(issuePaths(await patch(created.id, both))).toEqual(['componentIds[0]', 'startsAt']);
  });

  it('start with a new endsAt in the same PATCH: runs from now to that end; an end already past is 400', async () => {
    const created = (await post(windowInput())).body.data;
    expect(issuePaths(await patch(created.id, { status: 'start', endsAt: iso(Date.now() - MIN) }))).toEqual(['endsAt']);
    const endsAt = iso(Date.now() + 15 * MIN);
    const res = await patch(created.id, { status: 'start', endsAt });
    expect(res.body.data).toMatchObject({ status: 'in_progress', endsAt });
    expect(Math.abs(Date.parse(res.body.data.startsAt) - Date.now())).toBeLessThan(5000);
  });

  it('an action may carry a message: complete with a closing body', async () => {
    const created = (await post(windowInput({ startsAt: iso(Date.now() - MIN) }))).body.data;
    const res = await patch(created.id, { status: 'complete', body: 'All done.' });
    expect(res.body.data).toMatchObject({ status: 'completed', body: 'All done.', title: created.title });
  });

  it('409 when editing the fields of a completed or cancelled window', async () => {
    const completed = (await post(windowInput({ startsAt: iso(Date.now() - 2 * MIN), endsAt: iso(Date.now() - MIN) })))
      .body.data;
    expect(completed.status).toBe('completed');
    const cancelled = (await patch((await post(windowInput())).body.data.id, { status: 'cancel' })).body.data;
    for (const w of [completed, cancelled]) {
      for (const body of [
        { title: 'x' },
        { endsAt: iso(Date.now() + 99 * MIN) },
        { componentIds: [] },
        { body: 'y' },
        { status: w.status === 'completed' ? 'complete' : 'cancel', title: 'x' },
      ]) {
        const res = await patch(w.id, body);
        expect([w.status, body, res.status, res.body.error?.code]).toEqual([w.status, body, 409, 'conflict']);
      }
      expect((await patch(w.id, {})).status).toBe(200);
      expect((await get(w.id)).body.data).toEqual(w);
    }
  });

  it("400 for another workspace's component, alone or among own ones; the set is unchanged", async () => {
    const mine = await createMonitor(tokens.owner, 'Mine');
    const theirs = await createMonitor(other.owner, 'Theirs');
    const created = (await post(windowInput({ componentIds: [mine.componentId] }))).body.data;
    for (const [componentIds, paths] of [
      [[theirs.componentId], ['componentIds[0]']],
      [[mine.componentId, theirs.componentId.toUpperCase()], ['componentIds[1]']],
    ] as const) {
      const res = await patch(created.id, { componentIds, title: 'not applied' });
      expect([res.status, res.body.error?.code, issuePaths(res)]).toEqual([400, 'invalid_request', paths]);
    }
    expect((await get(created.id)).body.data).toEqual(created);
    expect(
      await h.prisma.maintenanceComponent.findMany({
        where: { maintenanceId: created.id },
        select: { componentId: true },
      }),
    ).toEqual([{ componentId: mine.componentId }]);
  });

  it('400, not 500, for a PATCH time outside what the database stores; nothing changes', async () => {
    const created = (await post(windowInput())).body.data;
    for (const [field, bad] of [
      ['startsAt', '0000-01-01T00:00:00Z'],
      ['startsAt', '0001-01-01T00:30:00+01:00'],
      ['endsAt', '9999-12-31T23:59:59-01:00'],
    ] as const) {
      const res = await patch(created.id, { [field]: bad });
      expect([field, bad, res.status, issuePaths(res), res.body.error?.details?.issues?.[0]?.message]).toEqual([
        field,
        bad,
        400,
        [field],
        expect.stringContaining('once converted to UTC'),
      ]);
    }
    const both = await patch(created.id, { startsAt: '0000-06-01T00:00:00Z', endsAt: '9999-12-31T23:59:59.999-00:01' });
    expect(issuePaths(both)).toEqual(['endsAt', 'startsAt']);
    expect((await get(created.id)).body.data).toEqual(created);
    expect((await patch(created.id, { endsAt: '9999-12-31T23:59:59.999Z' })).body.data.endsAt).toBe(
      '9999-12-31T23:59:59.999Z',
    );
  });

  it('403 for member and viewer; admin may', async () => {
    const created = (await post(windowInput())).body.data;
    for (const token of [tokens.member, tokens.viewer]) {
      const res = await patch(created.id, { title: 'nope', status: 'cancel' }, token);
      expect(res.status).toBe(403);
    }
    expect((await get(created.id)).body.data).toEqual(created);
    expect((await patch(created.id, { title: 'by admin' }, tokens.admin)).status).toBe(200);
  });
});

describe('DELETE /maintenance/{id}', () => {
  const del = (id: string, token = tokens.owner) =>
    request(h.app).delete(`/api/v1/maintenance/${id}`).set(bearer(token));
  const eventTypes = (id: string) =>
    h.prisma.event
      .findMany({ where: { subject: `maintenance/${id}` }, orderBy: { seq: 'asc' } })
      .then((events) => events.map((e) => e.type));

  it('managers only; the window is gone from reads and lists at once', async () => {
    const w = (await post(windowInput())).body.data;
    for (const token of [tokens.member, tokens.viewer]) expect((await del(w.id, token)).status).toBe(403);
    expect((await del(w.id, other.owner)).status).toBe(404);
    const res = await del(w.id, tokens.admin);
    expect([res.status, res.text]).toEqual([204, '']);
    expect((await get(w.id)).status).toBe(404);
    const list = await request(h.app).get('/api/v1/maintenance?perPage=250').set(bearer(tokens.viewer));
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(w.id);
    expect((await del(w.id)).status).toBe(404);
  });

  it('a window deleted in progress is called off as a cancel: monitors leave maintenance, maintenance.cancelled recorded', async () => {
    const { tokens: t } = await makeWorkspace(h.prisma);
    const m = await createMonitor(t.owner, 'Covered');
    const w = (
      await post({ title: 'Now', startsAt: iso(Date.now() - MIN), endsAt: iso(Date.now() + 30 * MIN) }, t.owner)
    ).body.data;
    const monitor = async () => (await request(h.app).get(`/api/v1/monitors/${m.id}`).set(bearer(t.viewer))).body.data;
    expect(await monitor()).toMatchObject({ status: 'maintenance' });
    expect((await del(w.id, t.owner)).status).toBe(204);
    expect(await monitor()).toMatchObject({ status: 'pending', maintenanceUntil: null });
    expect(await eventTypes(w.id)).toEqual(['maintenance.started', 'maintenance.cancelled']);

    // Completed (or already cancelled) windows go without another event: their story is told.
    const done = (
      await post({ title: 'Done', startsAt: iso(Date.now() - 2 * MIN), endsAt: iso(Date.now() + MIN) }, t.owner)
    ).body.data;
    await patch(done.id, { status: 'complete' }, t.owner);
    expect((await del(done.id, t.owner)).status).toBe(204);
    expect(await eventTypes(done.id)).toEqual(['maintenance.started', 'maintenance.completed']);
  });
});

describe('maintenanceUntil on monitors', () => {
  it('a whole-workspace window in progress covers every monitor until its end', async () => {
    const { tokens: t } = await makeWorkspace(h.prisma);
    const a = await createMonitor(t.owner, 'A');
    const b = await createMonitor(t.owner, 'B');
    const endsAt = iso(Date.now() + 30 * MIN);
    const w = (await post({ title: 'All', startsAt: iso(Date.now() - MIN), endsAt }, t.owner)).body.data;
    for (const m of [a, b]) {
      const read = await request(h.app).get(`/api/v1/monitors/${m.id}`).set(bearer(t.viewer));
      expect(read.body.data).toMatchObject({ maintenanceUntil: endsAt, status: 'maintenance' });
    }
    // Extending moves maintenanceUntil; completing ends it.
    const later = iso(Date.now() + 90 * MIN);
    await patch(w.id, { endsAt: later }, t.owner);
    expect(
      (await request(h.app).get(`/api/v1/monitors/${a.id}`).set(bearer(t.viewer))).body.data.maintenanceUntil,
    ).toBe(later);
    await patch(w.id, { status: 'complete' }, t.owner);
    const after = await request(h.app).get(`/api/v1/monitors/${a.id}`).set(bearer(t.viewer));
    expect(after.body.data).toMatchObject({ maintenanceUntil: null, status: 'pending' });
  });

  it('a monitor created during a whole-workspace window answers (and stores) its maintenance; no other window does', async () => {
    const { tokens: t } = await makeWorkspace(h.prisma);
    const other = await createMonitor(t.owner, 'Other');
    const create = async (name: string) => {
      const res = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(t.owner))
        .set('Idempotency-Key', uniq('key'))
        .send(makeMonitorInput({ name }));
      expect(res.status).toBe(201);
      return res.body.data as { id: string; status: string; maintenanceUntil: string | null };
    };
    // Windows that cannot cover a new monitor: scoped to another component, later, cancelled, ended.
    await post(
      {
        title: 'Scoped',
        startsAt: iso(Date.now() - MIN),
        endsAt: iso(Date.now() + 20 * MIN),
        componentIds: [other.componentId],
      },
      t.owner,
    );
    await post({ title: 'Later', startsAt: iso(Date.now() + 60 * MIN), endsAt: iso(Date.now() + 120 * MIN) }, t.owner);
    const off = (
      await post({ title: 'Off', startsAt: iso(Date.now() - MIN), endsAt: iso(Date.now() + 200 * MIN) }, t.owner)
    ).body.data;
    await patch(off.id, { status: 'cancel' }, t.owner);
    const ended = (
      await post({ title: 'Ended', startsAt: iso(Date.now() - MIN), endsAt: iso(Date.now() + MIN) }, t.owner)
    ).body.data;
    await patch(ended.id, { status: 'complete' }, t.owner);
    expect(await create('Outside')).toMatchObject({ status: 'pending', maintenanceUntil: null });

    const endsAt = iso(Date.now() + 30 * MIN);
    const later = iso(Date.now() + 40 * MIN);
    await post({ title: 'All', startsAt: iso(Date.now() - MIN), endsAt }, t.owner);
    await post({ title: 'All, longer', startsAt: iso(Date.now() - MIN), endsAt: later }, t.owner);
    const inside = await create('Inside');
    // The latest end of the whole-workspace windows in progress, as a read of the monitor says.
    expect(inside).toMatchObject({ status: 'maintenance', maintenanceUntil: later });
    const read = await request(h.app).get(`/api/v1/monitors/${inside.id}`).set(bearer(t.viewer));
    expect(read.body.data).toMatchObject({ status: 'maintenance', maintenanceUntil: later });
    const [event] = await h.prisma.event.findMany({
      where: { subject: `monitors/${inside.id}`, type: 'monitor.created' },
    });
    expect((event!.data as { monitor: unknown }).monitor).toEqual(inside);
  });

  it('a component-scoped window covers only its components; scheduled and cancelled windows cover nothing', async () => {
    const { tokens: t } = await makeWorkspace(h.prisma);
    const covered = await createMonitor(t.owner, 'Covered');
    const uncovered = await createMonitor(t.owner, 'Uncovered');
    const endsAt = iso(Date.now() + 20 * MIN);
    await post(
      { title: 'Scoped', startsAt: iso(Date.now() - MIN), endsAt, componentIds: [covered.componentId] },
      t.owner,
    );
    await post({ title: 'Later', startsAt: iso(Date.now() + 60 * MIN), endsAt: iso(Date.now() + 120 * MIN) }, t.owner);
    const cancelled = (
      await post({ title: 'Off', startsAt: iso(Date.now() - MIN), endsAt: iso(Date.now() + 200 * MIN) }, t.owner)
    ).body.data;
    await patch(cancelled.id, { status: 'cancel' }, t.owner);
    const read = async (id: string) =>
      (await request(h.app).get(`/api/v1/monitors/${id}`).set(bearer(t.viewer))).body.data;
    expect(await read(covered.id)).toMatchObject({ maintenanceUntil: endsAt, status: 'maintenance' });
    expect(await read(uncovered.id)).toMatchObject({ maintenanceUntil: null, status: 'pending' });
    const list = await request(h.app).get('/api/v1/monitors').set(bearer(t.viewer));
    expect(
      Object.fromEntries(
        list.body.data.map((m: { name: string; maintenanceUntil: string | null }) => [m.name, m.maintenanceUntil]),
      ),
    ).toEqual({
      Covered: endsAt,
      Uncovered: null,
    });
  });
});

describe('maintenanceUntilByComponent against the real database, to the millisecond', () => {
  it('covers from startsAt to just before endsAt; whole-workspace and scoped windows; cancelled and zero-length never', async () => {
    const { ws, tokens: t } = await makeWorkspace(h.prisma);
    const a = await createMonitor(t.owner, 'A');
    const b = await createMonitor(t.owner, 'B');
    // Off minute and second boundaries, in the far future so no other window of the suite is near.
    const s = Date.parse('2032-07-01T10:00:30.250Z');
    const e = s + 45 * MIN + 500;
    const clock = { now: new Date(s - 10 * MIN) };
    const app = appAt(clock);
    const mk = async (body: Record<string, unknown>) => {
      const res = await post({ title: 'u', ...body }, t.owner, app);
      expect(res.status).toBe(201);
      return res.body.data.id as string;
    };
    await mk({ startsAt: iso(s), endsAt: iso(e), componentIds: [a.componentId] });
    await mk({ startsAt: iso(e - 1), endsAt: iso(e + 1000) });
    const off = await mk({ startsAt: iso(s - 1), endsAt: iso(e + 5000) });
    expect((await patch(off, { status: 'cancel' }, t.owner, app)).status).toBe(200);
    const zero = await mk({ startsAt: iso(s + 100), endsAt: iso(s + 200) });
    clock.now = new Date(s + 100);
    expect((await patch(zero, { status: 'complete' }, t.owner, app)).body.data).toMatchObject({
      status: 'completed',
      endsAt: iso(s + 100),
    });

    const until = async (ms: number) =>
      Object.fromEntries(
        [...(await maintenanceUntilByComponent(h.prisma, ws.id, [a.componentId, b.componentId], new Date(ms)))].map(
          ([id, d]) => [id === a.componentId ? 'A' : 'B', d.toISOString()],
        ),
      );
    expect(await until(s - 1)).toEqual({});
    expect(await until(s)).toEqual({ A: iso(e) });
    expect(await until(s + 100)).toEqual({ A: iso(e) });
    expect(await until(e - 2)).toEqual({ A: iso(e) });
    // From e - 1 the whole-workspace window also runs; for A the later end wins.
    expect(await until(e - 1)).toEqual({ A: iso(e + 1000), B: iso(e + 1000) });
    expect(await until(e)).toEqual({ A: iso(e + 1000), B: iso(e + 1000) });
    expect(await until(e + 999)).toEqual({ A: iso(e + 1000), B: iso(e + 1000) });
    expect(await until(e + 1000)).toEqual({});
  });
});

describe('examples/deploy-maintenance.sh against the real app', () => {
  let server: Server;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    server = h.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    dir = mkdtempSync(join(tmpdir(), 'sv-deploy-'));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const script = join(process.cwd(), 'examples/deploy-maintenance.sh');
  const run = (args: string[], env: Record<string, string | undefined>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const clean = { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv;
      execFile('bash', [script, ...args], { env: clean, timeout: 30_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });

  it('start opens a window from now, prints its id and writes the file; complete ends it', async () => {
    const file = join(dir, 'maintenance-id');
    const title = 'Deploying "v2.3" \\ with quotes';
    const started = await run(['start', title, '45'], {
      STATUSVANE_API: base,
      STATUSVANE_TOKEN: tokens.owner,
      STATUSVANE_MAINTENANCE_FILE: file,
    });
    expect(started.stderr).toBe('');
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(readFileSync(file, 'utf8').trim()).toBe(id);

    const w = (await get(id)).body.data;
    expect(w).toMatchObject({ title, status: 'in_progress', components: [] });
    const minutes = (Date.parse(w.endsAt) - Date.parse(w.startsAt)) / MIN;
    expect(minutes).toBe(45);
    expect(Math.abs(Date.parse(w.startsAt) - Date.now())).toBeLessThan(10_000);

    const done = await run(['complete', id], { STATUSVANE_API: base, STATUSVANE_TOKEN: tokens.owner });
    expect(done.code).toBe(0);
    expect((await get(id)).body.data.status).toBe('completed');
    // Completing again is a no-op success: a retried pipeline step does not fail.
    expect((await run(['complete', id], { STATUSVANE_API: base, STATUSVANE_TOKEN: tokens.owner })).code).toBe(0);
  });

  /**
   * A curl first on PATH that records each call's argv and standard input, then hands over to the real curl with
   * both unchanged: what it logs is exactly what `ps` would have shown and what curl read.
   */
  function fakeCurl() {
    const bin = join(dir, `bin-${uniq('c')}`);
    mkdirSync(bin);
    const log = join(bin, 'calls.log');
    const real = execFileSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).trim();
    const script = String.raw`#!/usr/bin/env bash
log=LOG
{ printf 'argv'; for a in "$0" "$@"; do printf '\t%s' "$a"; done; printf '\n'; } >>"$log"
input=$(cat)
{ printf 'stdin\t'; printf '%s' "$input" | tr '\n' '\t'; printf '\n'; } >>"$log"
exec REAL "$@" <<<"$input"
`;
    writeFileSync(join(bin, 'curl'), script.replace('LOG', JSON.stringify(log)).replace('REAL', JSON.stringify(real)));
    chmodSync(join(bin, 'curl'), 0o755);
    const calls = () =>
      readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split('\t'));
    return { path: `${bin}:${process.env.PATH}`, calls };
  }

  it('start sends an Idempotency-Key and lets curl retry transient failures with it', async () => {
    const fake = fakeCurl();
    const started = await run(['start', 'Deploying v10', '5'], {
      STATUSVANE_API: base,
      STATUSVANE_TOKEN: tokens.owner,
      PATH: fake.path,
    });
    expect([started.code, started.stderr]).toEqual([0, '']);
    const [post] = fake.calls().filter(([kind]) => kind === 'argv');
    const argv = post!.slice(1);
    expect(argv[argv.indexOf('-H') + 1]).toMatch(/^Idempotency-Key: [0-9a-f]{32}$/);
    expect(argv).toEqual(expect.arrayContaining(['--retry', '3']));
  });

  it('never puts the token in a command line: curl gets it as a config on standard input', async () => {
    const fake = fakeCurl();
    const env = { STATUSVANE_API: base, STATUSVANE_TOKEN: tokens.owner, PATH: fake.path };
    const started = await run(['start', 'Deploying v9', '5'], env);
    expect([started.code, started.stderr]).toEqual([0, '']);
    const id = started.stdout.trim();
    expect((await get(id)).body.data).toMatchObject({ title: 'Deploying v9', status: 'in_progress' });
    expect((await run(['complete', id], env)).code).toBe(0);
    expect((await get(id)).body.data.status).toBe('completed');

    const calls = fake.calls();
    const argvs = calls.filter(([kind]) => kind === 'argv').map(([, ...args]) => args);
    const stdins = calls.filter(([kind]) => kind === 'stdin').map(([, ...lines]) => lines);
    expect([argvs.length, stdins.length]).toEqual([2, 2]);
    for (const argv of argvs) {
      expect(argv.join(' ')).not.toContain(tokens.owner);
      expect(argv.join(' ')).not.toMatch(/authorization|bearer/i);
      expect(argv.slice(argv.indexOf('-K'), argv.indexOf('-K') + 2)).toEqual(['-K', '-']);
    }
    for (const lines of stdins) {
      expect(lines).toContain(`header = "Authorization: Bearer ${tokens.owner}"`);
      expect(lines).toContain('header = "Content-Type: application/json"');
    }
  });

  it('escapes the config values and refuses a token or workspace with a control character before calling curl', async () => {
    const fake = fakeCurl();
    const odd = await run(['start', 'x'], {
      STATUSVANE_API: base,
      STATUSVANE_TOKEN: 'sv_"odd\\one',
      STATUSVANE_WORKSPACE: 'a"b',
      PATH: fake.path,
    });
    expect([odd.code !== 0, /HTTP 401/.test(odd.stderr)]).toEqual([true, true]);
    const [, stdin] = fake.calls();
    expect(stdin).toEqual(
      expect.arrayContaining([
        'header = "Authorization: Bearer sv_\\"odd\\\\one"',
        'header = "X-Statusvane-Workspace: a\\"b"',
      ]),
    );
    for (const bad of [
      { STATUSVANE_TOKEN: `${tokens.owner}\nX-Evil: 1` },
      { STATUSVANE_TOKEN: tokens.owner, STATUSVANE_WORKSPACE: 'ws\rX' },
    ]) {
      const r = await run(['start', 'x'], { STATUSVANE_API: base, ...bad, PATH: fake.path });
      expect([r.code !== 0, /control character/.test(r.stderr), r.stdout]).toEqual([true, true, '']);
    }
    expect(fake.calls()).toHaveLength(2);
  });

  it('a personal token of a user in several workspaces picks one with STATUSVANE_WORKSPACE (slug or id)', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [
      { workspace: a.ws.slug, role: 'admin' },
      { workspace: b.ws.slug, role: 'owner' },
    ]);
    const { token } = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const fake = fakeCurl();
    const env = { STATUSVANE_API: base, STATUSVANE_TOKEN: token, PATH: fake.path };

    const ambiguous = await run(['start', 'Which one?'], env);
    expect([ambiguous.code !== 0, /HTTP 400/.test(ambiguous.stderr), ambiguous.stdout]).toEqual([true, true, '']);

    for (const [ws, selector] of [
      [b.ws, b.ws.slug],
      [a.ws, a.ws.id],
    ] as const) {
      const started = await run(['start', `Into ${ws.slug}`, '10'], { ...env, STATUSVANE_WORKSPACE: selector });
      expect([started.code, started.stderr]).toEqual([0, '']);
      const id = started.stdout.trim();
      expect((await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id } })).workspaceId).toBe(ws.id);
      const done = await run(['complete', id], { ...env, STATUSVANE_WORKSPACE: selector });
      expect(done.code).toBe(0);
      expect(
        (await h.prisma.maintenanceWindow.findUniqueOrThrow({ where: { id } })).endsAt.getTime(),
      ).toBeLessThanOrEqual(Date.now());
    }
    const headers = fake
      .calls()
      .filter(([kind]) => kind === 'stdin')
      .map(([, ...lines]) => lines.find((l) => l.startsWith('header = "X-Statusvane-Workspace')) ?? null);
    expect(headers).toEqual([
      null,
      `header = "X-Statusvane-Workspace: ${b.ws.slug}"`,
      `header = "X-Statusvane-Workspace: ${b.ws.slug}"`,
      `header = "X-Statusvane-Workspace: ${a.ws.id}"`,
      `header = "X-Statusvane-Workspace: ${a.ws.id}"`,
    ]);
    for (const [, ...argv] of fake.calls().filter(([kind]) => kind === 'argv'))
      expect(argv.join(' ')).not.toContain(token);
  });

  it('defaults to 30 minutes', async () => {
    const started = await run(['start', 'Quick deploy'], {
      STATUSVANE_API: `${base}/`,
      STATUSVANE_TOKEN: tokens.admin,
    });
    expect(started.code).toBe(0);
    const w = (await get(started.stdout.trim())).body.data;
    expect((Date.parse(w.endsAt) - Date.parse(w.startsAt)) / MIN).toBe(30);
  });

  it('fails loudly on any non-2xx answer, a missing setting or bad arguments', async () => {
    const env = { STATUSVANE_API: base, STATUSVANE_TOKEN: tokens.owner };
    const forbidden = await run(['start', 'x'], { ...env, STATUSVANE_TOKEN: tokens.viewer });
    expect(forbidden.code).not.toBe(0);
    expect(forbidden.stdout).toBe('');
    expect(forbidden.stderr).toMatch(/HTTP 403/);
    expect(forbidden.stderr).toMatch(/forbidden/);

    const badToken = await run(['start', 'x'], { ...env, STATUSVANE_TOKEN: 'sv_nope' });
    expect([badToken.code !== 0, /HTTP 401/.test(badToken.stderr)]).toEqual([true, true]);

    const missing = await run(['complete', 'b2f1c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d'], env);
    expect([missing.code !== 0, /HTTP 404/.test(missing.stderr)]).toEqual([true, true]);

    const cancelled = (await patch((await post(windowInput())).body.data.id, { status: 'cancel' })).body.data;
    const conflict = await run(['complete', cancelled.id], env);
    expect([conflict.code !== 0, /HTTP 409/.test(conflict.stderr)]).toEqual([true, true]);

    const noApi = await run(['start', 'x'], { STATUSVANE_TOKEN: tokens.owner });
    expect([noApi.code !== 0, /STATUSVANE_API is not set/.test(noApi.stderr)]).toEqual([true, true]);
    const noToken = await run(['start', 'x'], { STATUSVANE_API: base });
    expect([noToken.code !== 0, /STATUSVANE_TOKEN is not set/.test(noToken.stderr)]).toEqual([true, true]);
    const unreachable = await run(['start', 'x'], { ...env, STATUSVANE_API: 'http://127.0.0.1:9/api/v1' });
    expect([unreachable.code !== 0, /failed \(curl exit/.test(unreachable.stderr)]).toEqual([true, true]);

    for (const args of [
      [],
      ['stop'],
      ['start'],
      ['start', 'x', 'ten'],
      ['start', 'x', '0'],
      ['complete'],
      ['complete', 'not-an-id'],
    ]) {
      const r = await run(args, env);
      expect([args, r.code !== 0, r.stderr.length > 0, r.stdout]).toEqual([args, true, true, '']);
    }
  });
});
