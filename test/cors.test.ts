import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

// CORS for the management API (issue 12 item 9): CORS_ORIGINS, off by default.

const DASHBOARD = 'https://dash.example.com';
const LOCAL_DEV = 'http://localhost:5173';
const STRANGER = 'https://evil.example.net';

const preflight = (h: Harness, origin: string, path = '/api/v1/monitors', method = 'PATCH') =>
  request(h.app)
    .options(path)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', method)
    .set('Access-Control-Request-Headers', 'authorization,content-type,idempotency-key,x-statusvane-workspace');

const list = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim().toLowerCase());
const accessControl = (res: request.Response) =>
  Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));

/** A harness with these settings for the enclosing describe block, and an owner token of a fresh workspace. */
function appWith(env: Record<string, string>) {
  const ctx = {} as { h: Harness; token: string };
  beforeAll(async () => {
    ctx.h = makeHarness(env);
    ctx.token = (await makeWorkspace(ctx.h.prisma)).tokens.owner;
  });
  afterAll(async () => {
    await ctx.h.close();
  });
  return ctx;
}

describe('CORS_ORIGINS unset (the default)', () => {
  const app = appWith({ CORS_ORIGINS: '' });

  it('sends no CORS header at all: a preflight is not answered, an API answer carries none', async () => {
    const pre = await preflight(app.h, DASHBOARD);
    expect(pre.status).not.toBe(204);
    expect(accessControl(pre)).toEqual([]);
    const res = await request(app.h.app).get('/api/v1/monitors').set('Origin', DASHBOARD).set(bearer(app.token));
    expect(res.status).toBe(200);
    expect(accessControl(res)).toEqual([]);
  });
});

describe('CORS_ORIGINS with a list of origins', () => {
  // A limit of 2 per minute: preflights must not spend it.
  const app = appWith({ CORS_ORIGINS: `${DASHBOARD},${LOCAL_DEV}`, RATE_LIMIT_PER_MINUTE: '2' });

  it('answers a preflight from a listed origin itself, before authentication and the rate limit', async () => {
    for (const origin of [DASHBOARD, LOCAL_DEV]) {
      for (let i = 0; i < 3; i++) {
        const res = await preflight(app.h, origin, '/api/v1/monitors/00000000-0000-4000-8000-000000000000', 'DELETE');
        expect([origin, res.status, res.text]).toEqual([origin, 204, '']);
        expect(res.headers['access-control-allow-origin']).toBe(origin);
        expect(list(res.headers['access-control-allow-methods'])).toEqual(
          expect.arrayContaining(['get', 'post', 'patch', 'put', 'delete']),
        );
        expect(list(res.headers['access-control-allow-headers'])).toEqual(
          expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'x-statusvane-workspace']),
        );
        expect(res.headers['access-control-max-age']).toBe('600');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
        expect(list(res.headers.vary)).toContain('origin');
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    }
    // The budget is whole: both requests of the minute still pass.
    for (let i = 0; i < 2; i++)
      expect((await request(app.h.app).get('/api/v1/monitors').set(bearer(app.token))).status).toBe(200);
  });

  it('lets the listed origin read answers, errors included, and the headers a client needs', async () => {
    const other = (await makeWorkspace(app.h.prisma)).tokens.owner;
    const created = await request(app.h.app)
      .post('/api/v1/monitors')
      .set('Origin', DASHBOARD)
      .set(bearer(other))
      .set('Idempotency-Key', 'cors-create-1')
      .send({ name: 'from a browser', target: 'https://93.184.215.14/' });
    expect(created.status).toBe(201);
    expect(created.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(created.headers['access-control-allow-credentials']).toBeUndefined();
    expect(list(created.headers['access-control-expose-headers'])).toEqual(
      expect.arrayContaining([
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
        'x-request-id',
        'idempotent-replayed',
        'etag',
      ]),
    );
    // A 401 (no token) is readable too: the script can tell the user why.
    const unauthorized = await request(app.h.app).get('/api/v1/monitors').set('Origin', LOCAL_DEV);
    expect([unauthorized.status, unauthorized.headers['access-control-allow-origin']]).toEqual([401, LOCAL_DEV]);
    expect(unauthorized.body.error.code).toBe('unauthorized');
  });

  it('gives any other origin nothing to read, and an OPTIONS that is no preflight goes on to routing', async () => {
    const pre = await preflight(app.h, STRANGER);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const res = await request(app.h.app).get('/api/v1/monitors').set('Origin', STRANGER);
    expect([res.status, res.headers['access-control-allow-origin']]).toEqual([401, undefined]);
    // A scheme or port of its own is another origin.
    expect((await preflight(app.h, 'http://dash.example.com')).headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight(app.h, 'http://localhost:5174')).headers['access-control-allow-origin']).toBeUndefined();

    const plainOptions = await request(app.h.app).options('/api/v1/monitors').set('Origin', DASHBOARD);
    const withoutOrigin = await request(app.h.app).options('/api/v1/monitors');
    expect(plainOptions.status).toBe(withoutOrigin.status);
    expect(plainOptions.status).not.toBe(204);
  });

  it('adds no CORS header to a request without Origin, but says the answer varies by it', async () => {
    const res = await request(app.h.app).get('/api/v1/monitors');
    expect(accessControl(res)).toEqual([]);
    expect(list(res.headers.vary)).toContain('origin');
  });

  it('leaves the public OpenAPI document readable from anywhere', async () => {
    const res = await request(app.h.app).get('/api/v1/openapi.json').set('Origin', STRANGER);
    expect([res.status, res.headers['access-control-allow-origin']]).toEqual([200, '*']);
  });
});

describe('CORS_ORIGINS=*', () => {
  const app = appWith({ CORS_ORIGINS: '*' });

  it('allows every origin with *, and never credentials', async () => {
    const pre = await preflight(app.h, STRANGER);
    expect([pre.status, pre.headers['access-control-allow-origin']]).toEqual([204, '*']);
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    const res = await request(app.h.app).get('/api/v1/monitors').set('Origin', STRANGER).set(bearer(app.token));
    expect([res.status, res.headers['access-control-allow-origin']]).toEqual([200, '*']);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(list(res.headers['access-control-expose-headers'])).toContain('x-request-id');
  });
});
