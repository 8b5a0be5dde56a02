import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../apps/api/src/routes/public-pages/login-public-page.handler.js';
import { hashPassword } from '../apps/api/src/services/status-pages/password.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = makeHarness();
  token = (await makeWorkspace(h.prisma)).tokens.owner;
});
afterAll(async () => {
  await h.close();
});

describe('transport', () => {
  it('echoes a safe X-Request-Id and generates one otherwise', async () => {
    const echoed = await request(h.app).get('/healthz').set('X-Request-Id', 'abc-123');
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const generated = await request(h.app).get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with a 404 envelope', async () => {
    const res = await request(h.app).get('/api/v1/nope').set(bearer(token));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    const outside = await request(h.app).get('/whatever');
    expect(outside.status).toBe(404);
    expect(outside.body.error.code).toBe('not_found');
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await request(h.app).post('/api/v1/monitors').set(bearer(token)).set('Content-Type', 'application/json').send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('answers a body over 256 KiB with 413 invalid_request', async () => {
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'x'.repeat(300 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('validates pagination: bad values are 400 with details.issues, past the end is an empty page', async () => {
    for (const q of ['page=0', 'perPage=251', 'perPage=0', 'page=abc', 'page=1.5', 'sort=name']) {
      const res = await request(h.app).get(`/api/v1/monitors?${q}`).set(bearer(token));
      expect([q, res.status]).toEqual([q, 400]);
      expect(res.body.error.details.issues.length).toBeGreaterThan(0);
    }
    const res = await request(h.app).get('/api/v1/monitors?page=7&perPage=250').set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagination: { page: 7, perPage: 250, total: 0, totalPages: 0 } });
  });

  it('reports liveness and readiness', async () => {
    expect((await request(h.app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(h.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });
});

describe('rate limit', () => {
  it('counts per token in Redis, sets RateLimit headers, and answers 429 with Retry-After', async () => {
    const limited = makeHarness({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const { tokens } = await makeWorkspace(limited.prisma);
      const statuses: number[] = [];
      let last: request.Response | undefined;
      for (let i = 0; i < 4; i++) {
        last = await request(limited.app).get('/api/v1/monitors').set(bearer(tokens.viewer));
        statuses.push(last.status);
        if (i === 0) {
          expect(last.headers['ratelimit-limit']).toBe('3');
          expect(last.headers['ratelimit-remaining']).toBe('2');
          expect(Number(last.headers['ratelimit-reset'])).toBeGreaterThan(0);
        }
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(last!.body.error.code).toBe('rate_limited');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another token has its own budget.
      expect((await request(limited.app).get('/api/v1/monitors').set(bearer(tokens.owner))).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('dependencies down', () => {
  it('answers 503 internal quickly when PostgreSQL is unreachable', async () => {
    const down = makeHarness({ DATABASE_URL: 'postgresql://nobody:x@127.0.0.1:1/none' });
    try {
      const started = Date.now();
      const res = await request(down.app).get('/api/v1/monitors').set(bearer(token));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('internal');
      expect(Date.now() - started).toBeLessThan(5000);
      const ready = await request(down.app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.checks.postgres).toBe('unavailable');
    } finally {
      await down.close();
    }
  });

  it('answers 503 internal quickly when Redis is unreachable', async () => {
    const down = makeHarness({ REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const started = Date.now();
      const res = await request(down.app).get('/api/v1/monitors').set(bearer(token));
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('internal');
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await request(down.app).get('/readyz')).body.checks.redis).toBe('unavailable');
    } finally {
      await down.close();
    }
  });
});

describe('rate limit across replicas', () => {
  it('shares one budget between two app instances on the same Redis', async () => {
    const one = makeHarness({ RATE_LIMIT_PER_MINUTE: '4' });
    const two = makeHarness({ RATE_LIMIT_PER_MINUTE: '4' });
    try {
      const { tokens } = await makeWorkspace(one.prisma);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const app = i % 2 === 0 ? one.app : two.app;
        statuses.push((await request(app).get('/api/v1/monitors').set(bearer(tokens.viewer))).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('TRUST_PROXY', () => {
  /** An app on the shared harness with its own config and a logger that keeps its request lines. */
  function appWith(overrides: Record<string, string>) {
    const other = makeHarness(overrides);
    const lines: Array<Record<string, unknown>> = [];
    const stream = new PassThrough();
    stream.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)));
    const app = createApp({ ...other.deps, logger: createLogger({ level: 'info', json: true, service: 'api', stream }) });
    return { other, app, lines };
  }

  async function protectedPage(): Promise<string> {
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await request(h.app).post('/api/v1/status-pages').set(bearer(tokens.owner)).send({ vanityUrl: uniq('proxy'), name: 'Behind a balancer' });
    expect(res.status).toBe(201);
    // A cheap scrypt cost keeps the guesses fast; verification reads the cost from the stored hash.
    await h.prisma.statusPage.update({ where: { id: res.body.data.id }, data: { passwordHash: await hashPassword('right password', { N: 1024, r: 8, p: 1 }) } });
    return res.body.data.slug as string;
  }
  const guess = (app: ReturnType<typeof createApp>, slug: string, client: string) =>
    request(app).post(`/status/${slug}/login`).type('form').set('X-Forwarded-For', client).send({ password: 'wrong password' });

  it('is off by default: X-Forwarded-For is ignored, so every client behind one address shares the guess budget', async () => {
    const { other, app, lines } = appWith({});
    try {
      expect(other.config.trustProxy).toBe(false);
      const slug = await protectedPage();
      for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i++) expect((await guess(app, slug, `203.0.113.${i + 1}`)).status).toBe(401);
      expect((await guess(app, slug, '198.51.100.9')).status).toBe(429);
      const logged = new Set(lines.filter((l) => l.message === 'request').map((l) => l.ip));
      expect([...logged].every((ip) => /127\.0\.0\.1|::1/.test(String(ip)))).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('when configured, takes the client address from X-Forwarded-For: its own guess budget and its own address in the log', async () => {
    const { other, app, lines } = appWith({ TRUST_PROXY: 'loopback' });
    try {
      expect(other.config.trustProxy).toEqual(['loopback']);
      const slug = await protectedPage();
      for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i++) expect((await guess(app, slug, '203.0.113.7')).status).toBe(401);
      expect((await guess(app, slug, '203.0.113.7')).status).toBe(429);
      // Another client behind the same balancer still has its budget.
      expect((await guess(app, slug, '198.51.100.9')).status).toBe(401);
      // The balancer appends the address it saw: a client cannot pick its own by sending the header itself.
      expect((await guess(app, slug, '10.9.9.9, 203.0.113.7')).status).toBe(429);
      const logged = lines.filter((l) => l.message === 'request').map((l) => l.ip);
      expect(logged).toEqual([...Array(LOGIN_ATTEMPTS_PER_MINUTE + 1).fill('203.0.113.7'), '198.51.100.9', '203.0.113.7']);
    } finally {
      await other.close();
    }
  });
});
