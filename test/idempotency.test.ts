import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express, { type Express } from 'express';
import { z } from 'zod';
import request from 'supertest';
import {
  createLogger,
  createSsrfGuard,
  type CheckScheduler,
  createStatusPageSchema,
  type Prisma,
  type SqlTransaction,
} from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { requireAuth } from '../apps/api/src/middleware/auth.js';
import { errorHandler } from '../apps/api/src/middleware/error-handler.js';
import {
  IDEMPOTENCY_TTL_MS,
  purgeExpiredIdempotencyRecords,
  requestFingerprint,
} from '../apps/api/src/middleware/idempotency.js';
import { jsonBody } from '../apps/api/src/middleware/json-body.js';
import { requestId } from '../apps/api/src/middleware/request-id.js';
import { defineRoute } from '../apps/api/src/routes/define-route.js';
import { mountRoutes } from '../apps/api/src/routes/mount-routes.js';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { createStatusPage } from '../apps/api/src/services/status-pages/create-status-page.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeUser, makeWorkspace, serviceCtx, uniq, type Harness } from './support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const logger = createLogger({ level: 'error', json: true, service: 'test', silent: true });

/** A stand-in create route, declared like the real ones: optionally waits or blows up, then inserts in a transaction. */
const thing = (path: string, opts: { storesAnswer?: boolean } = {}) =>
  defineRoute({
    method: 'post',
    path,
    operationId: 'createThing',
    tag: 'Monitors',
    summary: 'A test route',
    description: 'A test route.',
    roles: 'read',
    request: {
      body: {
        schema: z.looseObject({
          name: z.string().min(1),
          delayMs: z.number().optional(),
          explode: z.boolean().optional(),
        }),
      },
    },
    idempotent: true,
    responses: { 201: { description: 'The thing.', data: z.object({ id: z.string(), name: z.string() }) } },
    handler: async ({ prisma }, { ctx, body }) => {
      if (body.delayMs !== undefined) await sleep(body.delayMs);
      if (body.explode === true) throw new Error('boom');
      return prisma.$transaction(async (tx) => {
        const { id, name } = await tx.component.create({ data: { workspaceId: ctx.workspace.id, name: body.name } });
        if (opts.storesAnswer !== false) await ctx.inTransaction?.(tx, { id, name });
        return { id, name };
      });
    },
  });

function buildApp(h: Harness): Express {
  const api = express.Router();
  api.use(requireAuth(h.deps), jsonBody);
  // A route that forgets the hook: its action would not be remembered, so the request fails loudly.
  mountRoutes(api, [thing('/things'), thing('/others'), thing('/forgetful', { storesAnswer: false })], h.deps);
  const app = express();
  app.use(requestId);
  app.use('/api/v1', api);
  app.use(errorHandler(logger));
  return app;
}

let h: Harness;
let h2: Harness;
let app: Express;
let app2: Express;
beforeAll(() => {
  h = makeHarness();
  h2 = makeHarness();
  app = buildApp(h);
  app2 = buildApp(h2);
});
afterAll(async () => {
  await h.close();
  await h2.close();
});

const post = (token: string, body: object, key?: string, opts: { on?: Express; path?: string } = {}) => {
  const req = request(opts.on ?? app)
    .post(`/api/v1${opts.path ?? '/things'}`)
    .set(bearer(token));
  if (key !== undefined) req.set('Idempotency-Key', key);
  return req.send(body);
};

const components = (workspaceId: string, name: string) => h.prisma.component.count({ where: { workspaceId, name } });
const records = (workspaceId: string, key: string) =>
  h.prisma.idempotencyRecord.findMany({ where: { workspaceId, key } });

async function waitFor(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(10);
  }
}

function expectError(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe('Idempotency-Key', () => {
  it('without a key every request performs the action and nothing is stored', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    expect((await post(tokens.owner, { name })).status).toBe(201);
    expect((await post(tokens.owner, { name })).status).toBe(201);
    expect(await components(ws.id, name)).toBe(2);
    expect(await h.prisma.idempotencyRecord.count({ where: { workspaceId: ws.id } })).toBe(0);
  });

  it('replays the first response for a retry with the same key and body, without performing the action again', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    const first = await post(tokens.owner, { name, tags: { a: 1, b: [1, 2] } }, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    // Same body with another key order and spacing is the same request.
    const retry = await request(app)
      .post('/api/v1/things')
      .set(bearer(tokens.owner))
      .set('Idempotency-Key', key)
      .set('Content-Type', 'application/json')
      .send(`{ "tags": { "b": [1, 2], "a": 1 }, "name": ${JSON.stringify(name)} }`);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers['content-type']).toMatch(/^application\/json; charset=utf-8/);
    expect(retry.body).toEqual(first.body);
    expect(await components(ws.id, name)).toBe(1);

    const [row] = await records(ws.id, key);
    expect(row).toMatchObject({
      responseStatus: 201,
      responseBody: first.text,
      method: 'POST',
      path: '/api/v1/things',
    });
    const ttl = row!.expiresAt.getTime() - row!.createdAt.getTime();
    expect(ttl).toBe(IDEMPOTENCY_TTL_MS);
  });

  it('rejects the same key with a different body, or on a different route, with 400', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    expect((await post(tokens.owner, { name }, key)).status).toBe(201);

    const other = await post(tokens.owner, { name: `${name}-2` }, key);
    expectError(other, 400, 'invalid_request');
    expect(other.body.error.message).toBe('Idempotency-Key was already used with a different request');
    expect(other.body.error.details.issues).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);

    expectError(await post(tokens.owner, { name }, key, { path: '/others' }), 400, 'invalid_request');
    expect(await components(ws.id, name)).toBe(1);
    expect(await components(ws.id, `${name}-2`)).toBe(0);
  });

  it('answers 409 to a retry while the first request is still in flight, then replays once it is done', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    const body = { name, delayMs: 800 };
    const first = post(tokens.owner, body, key).then((r) => r);
    await waitFor(async () => (await records(ws.id, key)).length === 1);

    const during = await post(tokens.owner, body, key);
    expectError(during, 409, 'conflict');
    expect(during.headers['idempotent-replayed']).toBeUndefined();

    const done = await first;
    expect(done.status).toBe(201);
    const after = await post(tokens.owner, body, key);
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body).toEqual(done.body);
    expect(await components(ws.id, name)).toBe(1);
  });

  it('performs the action once when 20 requests with one key race, and answers the rest 201 (replayed) or 409', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    const body = { name, delayMs: 50 };
    const all = await Promise.all(Array.from({ length: 20 }, () => post(tokens.owner, body, key)));

    for (const r of all) expect([201, 409]).toContain(r.status);
    const original = all.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(original).toHaveLength(1);
    for (const r of all.filter((x) => x.status === 201)) expect(r.body).toEqual(original[0]!.body);
    expect(await components(ws.id, name)).toBe(1);

    const retry = await post(tokens.owner, body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(original[0]!.body);
  }, 20_000);

  it('holds across processes: two apps with separate connection pools racing with one key perform the action once', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    const body = { name, delayMs: 50 };
    const all = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(tokens.owner, body, key, { on: i % 2 ? app2 : app })),
    );
    for (const r of all) expect([201, 409]).toContain(r.status);
    expect(all.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(await components(ws.id, name)).toBe(1);

    // The response stored by one process is replayed by the other.
    const first = all.find((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined)!;
    for (const on of [app, app2]) {
      const r = await post(tokens.owner, body, key, { on });
      expect(r.status).toBe(201);
      expect(r.headers['idempotent-replayed']).toBe('true');
      expect(r.body).toEqual(first.body);
    }
  }, 20_000);

  it('scopes keys to the workspace', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    const ra = await post(a.tokens.owner, { name }, key);
    const rb = await post(b.tokens.owner, { name }, key);
    for (const r of [ra, rb]) {
      expect(r.status).toBe(201);
      expect(r.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await components(a.ws.id, name)).toBe(1);
    expect(await components(b.ws.id, name)).toBe(1);
  });

  it('scopes keys to the principal: two org tokens are two principals, two personal tokens of one user are one', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    const byOwner = await post(tokens.owner, { name }, key);
    const byAdmin = await post(tokens.admin, { name }, key);
    expect(byOwner.status).toBe(201);
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.headers['idempotent-replayed']).toBeUndefined();
    expect(await components(ws.id, name)).toBe(2);

    const user = await makeUser(h.prisma, [{ workspace: ws.id, role: 'member' }]);
    const t1 = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const t2 = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const personalName = uniq('c');
    const p1 = await post(t1.token, { name: personalName }, key);
    const p2 = await post(t2.token, { name: personalName }, key);
    expect(p1.status).toBe(201);
    expect(p1.headers['idempotent-replayed']).toBeUndefined();
    expect(p2.status).toBe(201);
    expect(p2.headers['idempotent-replayed']).toBe('true');
    expect(p2.body).toEqual(p1.body);
    expect(await components(ws.id, personalName)).toBe(1);
  });

  it('does not store a request that fails validation: the same key with a fixed body then succeeds', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const key = randomUUID();
    const bad = await post(tokens.owner, {}, key);
    expectError(bad, 400, 'invalid_request');
    expect(bad.body.error.details.issues).toEqual([{ path: 'name', message: expect.any(String) }]);
    expect(await records(ws.id, key)).toHaveLength(0);

    const name = uniq('c');
    const fixed = await post(tokens.owner, { name }, key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(await components(ws.id, name)).toBe(1);
  });

  it('releases the key when the handler throws (500)', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    expectError(await post(tokens.owner, { name, explode: true }, key), 500, 'internal');
    expect(await records(ws.id, key)).toHaveLength(0);

    const retry = await post(tokens.owner, { name }, key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await components(ws.id, name)).toBe(1);
  });

  it('answers 500 and releases the key when a route declared idempotent does not store its answer', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const key = randomUUID();
    expectError(await post(tokens.owner, { name: 'x' }, key, { path: '/forgetful' }), 500, 'internal');
    await waitFor(async () => (await records(ws.id, key)).length === 0);
  });

  it('does not replay an expired record: the request is performed again and stored anew', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    const key = randomUUID();
    const first = await post(tokens.owner, { name }, key);
    expect(first.status).toBe(201);
    await h.prisma.idempotencyRecord.updateMany({
      where: { workspaceId: ws.id, key },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });

    const again = await post(tokens.owner, { name }, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect(await components(ws.id, name)).toBe(2);
    const rows = await records(ws.id, key);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(rows[0]!.responseBody).toEqual(again.text);
  });

  it('takes over an in-flight record whose process died (older than 60 s), but not a fresh one', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const t = await createToken(h.prisma, { kind: 'org', workspace: ws.id, role: 'owner' });
    const name = uniq('c');
    const body = { name };
    const inFlight = (key: string, ageMs: number) =>
      h.prisma.idempotencyRecord.create({
        data: {
          workspaceId: ws.id,
          principal: `token:${t.id}`,
          key,
          method: 'POST',
          path: '/api/v1/things',
          requestHash: requestFingerprint('POST', '/api/v1/things', body),
          createdAt: new Date(Date.now() - ageMs),
          expiresAt: new Date(Date.now() - ageMs + IDEMPOTENCY_TTL_MS),
        },
      });

    const freshKey = randomUUID();
    await inFlight(freshKey, 10_000);
    expectError(await post(t.token, body, freshKey), 409, 'conflict');

    const staleKey = randomUUID();
    const stale = await inFlight(staleKey, 120_000);
    const res = await post(t.token, body, staleKey);
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await components(ws.id, name)).toBe(1);
    const rows = await records(ws.id, staleKey);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: stale.id, responseStatus: 201, responseBody: res.text });

    const replay = await post(t.token, body, staleKey);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await components(ws.id, name)).toBe(1);
  });

  it('accepts keys of 1 to 255 characters and refuses empty, longer or control-character keys with 400', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const name = uniq('c');
    for (const bad of ['k'.repeat(256), '', 'abc\tdef']) {
      const res = await post(tokens.owner, { name }, bad);
      expectError(res, 400, 'invalid_request');
      expect(res.body.error.details.issues).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);
    }
    expect(await components(ws.id, name)).toBe(0);

    const longest = 'k'.repeat(255);
    expect((await post(tokens.owner, { name }, longest)).status).toBe(201);
    const replay = await post(tokens.owner, { name }, longest);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await components(ws.id, name)).toBe(1);
  });

  it('purgeExpiredIdempotencyRecords removes only the records that have expired', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const row = (key: string, expiresAt: Date) => ({
      workspaceId: ws.id,
      principal: 'token:purge-test',
      key,
      method: 'POST',
      path: '/api/v1/things',
      requestHash: 'a'.repeat(64),
      responseStatus: 201,
      responseBody: { data: {} },
      expiresAt,
    });
    // Dates long past, so rows other suites leave behind cannot change the count.
    await h.prisma.idempotencyRecord.createMany({
      data: [
        row('old', new Date('2000-01-01T00:00:00Z')),
        row('edge', new Date('2000-01-02T00:00:00Z')),
        row('later', new Date('2000-01-03T00:00:00Z')),
        row('live', new Date(Date.now() + IDEMPOTENCY_TTL_MS)),
      ],
    });
    expect(await purgeExpiredIdempotencyRecords(h.prisma, new Date('2000-01-02T00:00:00Z'))).toBe(2);
    const left = await h.prisma.idempotencyRecord.findMany({ where: { workspaceId: ws.id }, orderBy: { key: 'asc' } });
    expect(left.map((r) => r.key)).toEqual(['later', 'live']);

    expect(await purgeExpiredIdempotencyRecords(h.prisma)).toBeGreaterThanOrEqual(1);
    const live = await h.prisma.idempotencyRecord.findMany({ where: { workspaceId: ws.id } });
    expect(live.map((r) => r.key)).toEqual(['live']);
  });
});

describe('Idempotency-Key on the real create routes: the answer commits with the action', () => {
  const deferred = () => {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  };
  const createWithKey = (on: Express, token: string, key: string, body: object) =>
    request(on).post('/api/v1/monitors').set(bearer(token)).set('Idempotency-Key', key).send(body);

  it('POST /monitors: a replay repeats the first answer byte for byte (key order included)', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const key = randomUUID();
    const body = makeMonitorInput({ name: uniq('m'), metadata: { zeta: '1', alpha: '2' } });
    const first = await createWithKey(h.app, tokens.owner, key, body);
    const retry = await createWithKey(h.app, tokens.owner, key, body);
    expect([first.status, retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    expect(retry.text).toBe(first.text);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
  });

  it('POST /monitors: at the commit the answer is already stored, so a process dying right after it leaves a replay, never a second monitor', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    // The first thing after the commit is queueing the immediate check: the process "dies" there (hangs).
    const committed = deferred();
    const dies = deferred();
    const scheduler = Object.create(h.deps.scheduler) as CheckScheduler;
    scheduler.runNow = async () => {
      committed.resolve();
      await dies.promise;
    };
    const doomed = createApp({ ...h.deps, scheduler });
    const key = randomUUID();
    const body = makeMonitorInput({ name: uniq('m') });
    const first = createWithKey(doomed, tokens.owner, key, body).then((r) => r);

    /** While the first request hangs just after its commit. */
    const whileDead = async () => {
      await committed.promise;
      const monitors = await h.prisma.monitor.findMany({ where: { workspaceId: ws.id } });
      expect(monitors).toHaveLength(1);
      const [row] = await records(ws.id, key);
      expect(row).toMatchObject({ responseStatus: 201 });
      expect(JSON.parse(row!.responseBody as string)).toMatchObject({ data: { id: monitors[0]!.id, name: body.name } });
      // Long after (the claim would count as orphaned were it still in flight), a retry on another API process.
      await h.prisma.idempotencyRecord.updateMany({
        where: { id: row!.id },
        data: { createdAt: new Date(Date.now() - 10 * 60_000) },
      });
      const retry = await createWithKey(h2.app, tokens.owner, key, body);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.text).toBe(row!.responseBody);
      expect(await h.prisma.monitor.count({ where: { workspaceId: ws.id } })).toBe(1);
      return retry;
    };
    let retry: request.Response;
    try {
      retry = await whileDead();
    } finally {
      dies.resolve();
    }
    const done = await first;
    expect(done.status).toBe(201);
    expect(done.headers['idempotent-replayed']).toBeUndefined();
    expect(done.body).toEqual(retry.body);
  });

  it('POST /monitors: a slow first request whose claim a retry took over cannot commit as well (409, rolled back)', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    // Holds the first request after it claimed the key and before its transaction.
    const entered = deferred();
    const gate = deferred();
    const real = createSsrfGuard();
    const slow = createApp({
      ...h.deps,
      guard: {
        ...real,
        async checkUrl(url: string) {
          entered.resolve();
          await gate.promise;
          return real.checkUrl(url);
        },
      },
    });
    const key = randomUUID();
    const body = makeMonitorInput({ name: uniq('m') });
    const first = createWithKey(slow, tokens.owner, key, body).then((r) => r);

    /** While the first request is held: it has been in flight for longer than IDEMPOTENCY_STALE_MS, and a retry takes over. */
    const takeOver = async () => {
      await entered.promise;
      const [claim] = await records(ws.id, key);
      expect(claim!.responseStatus).toBeNull();
      await h.prisma.idempotencyRecord.updateMany({
        where: { id: claim!.id },
        data: { createdAt: new Date(Date.now() - 120_000) },
      });
      const retry = await createWithKey(h2.app, tokens.owner, key, body);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      return retry;
    };
    let retry: request.Response;
    try {
      retry = await takeOver();
    } finally {
      gate.resolve();
    }

    // The first wakes up: its answer can no longer be stored, so its monitor is rolled back.
    const late = await first;
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('conflict');
    expect(late.body.error.message).toBe(
      'A retry with this Idempotency-Key took this request over; retry to get its answer',
    );
    expect(late.headers['retry-after']).toBe('1');
    expect(await h.prisma.monitor.count({ where: { workspaceId: ws.id } })).toBe(1);
    expect(await h.prisma.component.count({ where: { workspaceId: ws.id } })).toBe(1);
    const again = await createWithKey(h.app, tokens.owner, key, body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
  });

  it('POST /status-pages: the service runs the hook inside its transaction (a hook that throws leaves no page)', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const ctx = serviceCtx(ws, 'owner');
    const slug = uniq('page');
    const seen: unknown[] = [];
    await expect(
      createStatusPage(h.deps, {
        ctx: {
          ...ctx,
          inTransaction: Object.assign(
            async (tx: SqlTransaction, record: unknown) => {
              // createStatusPage runs in Prisma's transaction (only POST /monitors runs in a hot one).
              const prismaTx = tx as Prisma.TransactionClient;
              seen.push(record, await prismaTx.statusPage.count({ where: { workspaceId: ws.id } }));
              throw new Error('store failed');
            },
            // Only createMonitor asks a hook for its `answer` (to store it beside others').
            { answer: () => assert.fail('a status page stores its answer through the hook') },
          ),
        },
        input: createStatusPageSchema.parse({ vanityUrl: slug, name: 'P', isPublic: true }),
      }),
    ).rejects.toThrow('store failed');
    expect(seen).toEqual([expect.objectContaining({ slug }), 1]);
    expect(await h.prisma.statusPage.count({ where: { workspaceId: ws.id } })).toBe(0);
  });
});

describe('Idempotency-Key on creates that answer a secret once: the stored answer never holds it', () => {
  const replayOf = async (path: string, token: string, body: object) => {
    const key = randomUUID();
    const send = () => request(h.app).post(`/api/v1${path}`).set(bearer(token)).set('Idempotency-Key', key).send(body);
    const first = await send();
    const again = await send();
    return { key, first, again };
  };

  it('POST /webhooks: a replay answers `secret: null`, and idempotency_records holds no whsec_', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    // An address literal: the SSRF guard passes it without a DNS lookup.
    const { key, first, again } = await replayOf('/webhooks', tokens.owner, { url: 'https://93.184.216.34/hook' });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(first.body.data.secret).toMatch(/^whsec_/);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual({ ...first.body.data, secret: null });
    const stored = await records(ws.id, key);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain('whsec_');
    expect(await h.prisma.webhook.count({ where: { workspaceId: ws.id } })).toBe(1);
  });

  it('POST /tokens: a replay answers `token: null`, and idempotency_records holds no token', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const { key, first, again } = await replayOf('/tokens', tokens.owner, { name: 'ci', role: 'viewer' });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(first.body.data.token).toMatch(/^sv_/);
    expect(again.body.data).toEqual({ ...first.body.data, token: null });
    expect(JSON.stringify(await records(ws.id, key))).not.toContain(first.body.data.token);
  });
});
