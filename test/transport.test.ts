import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { createLogger, createPrisma, DB_TIMEOUTS, isUnavailableError } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../apps/api/src/routes/public-pages/login-public-page.handler.js';
import { hashPassword } from '../apps/api/src/services/status-pages/password.js';
import { rateLimit } from '../apps/api/src/middleware/rate-limit.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startTcpProxy } from './resilience/support/tcp-proxy.js';

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
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('answers valid JSON that is not an object (null, a string, a number, an array) with 400 naming the body', async () => {
    // A workspace of its own: the pagination tests count the shared one's monitors.
    const own = (await makeWorkspace(h.prisma)).tokens.owner;
    const { body: created } = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(own))
      .send({ name: 'not an object', target: 'https://93.184.215.14/' });
    for (const [raw, kind] of [
      ['null', 'null'],
      ['"x"', 'a string'],
      ['42', 'a number'],
      ['true', 'a boolean'],
      ['[{"name":"x"}]', 'an array'],
    ]) {
      for (const [method, path] of [
        ['post', '/api/v1/monitors'],
        ['patch', `/api/v1/monitors/${created.data.id}`],
      ] as const) {
        const res = await request(h.app)
          [method](path)
          .set(bearer(own))
          .set('Content-Type', 'application/json')
          .send(raw);
        expect([raw, method, res.status, res.body.error?.message, res.body.error?.details?.issues]).toEqual([
          raw,
          method,
          400,
          'The request body must be a JSON object',
          [{ path: '(body)', message: `must be a JSON object, not ${kind}` }],
        ]);
      }
    }
    // Malformed JSON is still "not valid JSON".
    const malformed = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(own))
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(malformed.body.error.details.issues).toEqual([{ path: '(body)', message: 'is not valid JSON' }]);
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

  it('answers an unsupported charset or content encoding with 400 invalid_request naming the header', async () => {
    const body = JSON.stringify({ name: 'charset test', target: 'https://93.184.215.14/' });
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'Content-Type': 'application/json; charset=latin1' }, 'Content-Type'],
      [{ 'Content-Type': 'application/json; charset=utf-16' }, 'Content-Type'],
      [{ 'Content-Type': 'application/json; charset=klingon' }, 'Content-Type'],
      [{ 'Content-Type': 'application/json', 'Content-Encoding': 'zz' }, 'Content-Encoding'],
    ];
    for (const [headers, path] of cases) {
      const res = await request(h.app).post('/api/v1/monitors').set(bearer(token)).set(headers).send(body);
      expect([headers, res.status, res.body.error?.code, res.body.error?.details?.issues?.[0]?.path]).toEqual([
        headers,
        400,
        'invalid_request',
        path,
      ]);
    }
    expect(await h.prisma.monitor.count({ where: { name: 'charset test' } })).toBe(0);
  });

  it('validates pagination: bad values are 400 with details.issues, past the end is an empty page', async () => {
    for (const q of ['page=0', 'perPage=251', 'perPage=0', 'page=abc', 'page=1.5', 'sort=created']) {
      const res = await request(h.app).get(`/api/v1/monitors?${q}`).set(bearer(token));
      expect([q, res.status]).toEqual([q, 400]);
      expect(res.body.error.details.issues.length).toBeGreaterThan(0);
    }
    const res = await request(h.app).get('/api/v1/monitors?page=7&perPage=250').set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagination: { page: 7, perPage: 250, total: 0, totalPages: 0 } });
  });

  it('takes page and perPage in decimal digits, once each', async () => {
    for (const [q, path, message] of [
      ['page=1&page=2', 'page', 'was given more than once'],
      ['perPage=10&perPage=10', 'perPage', 'was given more than once'],
      ['perPage=1e2', 'perPage', 'must be a whole number in decimal digits'],
      ['perPage=0x10', 'perPage', 'must be a whole number in decimal digits'],
      ['page=+2', 'page', 'must be a whole number in decimal digits'],
      ['page=', 'page', 'must be a whole number in decimal digits'],
    ]) {
      for (const list of ['/api/v1/monitors', '/api/v1/incidents']) {
        const res = await request(h.app).get(`${list}?${q}`).set(bearer(token));
        expect([list, q, res.status, res.body.error?.details?.issues]).toEqual([list, q, 400, [{ path, message }]]);
      }
    }
    const res = await request(h.app).get('/api/v1/monitors?page=01&perPage=016').set(bearer(token));
    expect([res.status, res.body.pagination?.page, res.body.pagination?.perPage]).toEqual([200, 1, 16]);
  });

  it('answers any page past the end with an empty page, up to the largest exact integer (no 500)', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    for (let i = 0; i < 3; i++) {
      expect(
        (
          await request(h.app)
            .post('/api/v1/monitors')
            .set(bearer(tokens.owner))
            .send({ name: `paged ${i}`, target: 'https://93.184.215.14/' })
        ).status,
      ).toBe(201);
    }
    for (const path of ['/api/v1/monitors', '/api/v1/incidents']) {
      const total = path.endsWith('monitors') ? 3 : 0;
      for (const page of [1_000_001, 2_147_483_647, 2_147_483_648, 4_294_967_296, Number.MAX_SAFE_INTEGER]) {
        for (const perPage of [1, 250]) {
          const res = await request(h.app).get(`${path}?page=${page}&perPage=${perPage}`).set(bearer(tokens.owner));
          expect([path, page, perPage, res.status, res.body]).toEqual([
            path,
            page,
            perPage,
            200,
            { data: [], pagination: { page, perPage, total, totalPages: Math.ceil(total / perPage) } },
          ]);
        }
      }
      // Beyond what a JSON number holds exactly: refused, naming the parameter, never a 500.
      for (const page of ['9007199254740992', '1e400', '99999999999999999999']) {
        const res = await request(h.app).get(`${path}?page=${page}`).set(bearer(tokens.owner));
        expect([path, page, res.status, res.body.error?.details?.issues?.[0]?.path]).toEqual([path, page, 400, 'page']);
      }
    }
  });

  it('reports liveness and readiness', async () => {
    expect((await request(h.app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(h.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });
});

describe('JSON bodies that cannot be stored as sent', () => {
  const LONE = 'must be well-formed Unicode (no lone surrogate such as \\ud800)';
  let monitorId: string;
  beforeAll(async () => {
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .send({ name: 'unicode target', target: 'https://93.184.215.14/' });
    expect(res.status).toBe(201);
    monitorId = res.body.data.id;
  });

  /** Sends the bytes as they are (superagent would JSON-encode a Buffer). */
  const send = (method: 'post' | 'patch', path: string, raw: string | Buffer) =>
    request(h.app)
      [method](path)
      .set(bearer(token))
      .set('Content-Type', 'application/json')
      .serialize((b: unknown) => b as string)
      .send(raw);

  it('refuses lone surrogates in strings and keys with 400 naming the field (POST and PATCH)', async () => {
    const base = { name: 'lone surrogate', target: 'https://93.184.215.14/' };
    // JSON.stringify writes a lone surrogate as the escape \ud800: valid JSON, not storable text.
    const cases: Array<['post' | 'patch', Record<string, unknown>, string, string]> = [
      ['post', { ...base, metadata: { env: 'prod\ud800' } }, 'metadata.env', LONE],
      ['post', { ...base, metadata: { ['k\udc00']: 'v' } }, 'metadata', `keys ${LONE}`],
      ['post', { ...base, name: 'x\udbff' }, 'name', LONE],
      [
        'post',
        { ...base, jsonAssertion: { path: '$.status', operator: 'eq', value: 'ok\ud800' } },
        'jsonAssertion.value',
        LONE,
      ],
      ['post', { ...base, keyword: '\ude00' }, 'keyword', LONE],
      ['patch', { name: 'renamed \ud800' }, 'name', LONE],
      ['patch', { jsonAssertion: { path: '$.status', operator: 'eq', value: '\udfff' } }, 'jsonAssertion.value', LONE],
      ['patch', { ['k\ud800']: 1 }, '(body)', `keys ${LONE}`],
    ];
    for (const [method, body, path, message] of cases) {
      const raw = JSON.stringify(body);
      expect(raw).toMatch(/\\u(d[89a-f][0-9a-f]{2})/);
      const res = await send(method, method === 'post' ? '/api/v1/monitors' : `/api/v1/monitors/${monitorId}`, raw);
      expect([method, raw, res.status, res.body.error?.code, res.body.error?.details?.issues]).toEqual([
        method,
        raw,
        400,
        'invalid_request',
        [{ path, message }],
      ]);
    }
    // A proper surrogate pair (an emoji) is fine.
    const ok = await send(
      'post',
      '/api/v1/monitors',
      JSON.stringify({ ...base, name: 'smile \ud83d\ude00', metadata: { '\ud83d\ude00': '\ud83d\ude00' } }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.data.name).toBe('smile \ud83d\ude00');
    expect(ok.body.data.metadata).toEqual({ '\ud83d\ude00': '\ud83d\ude00' });
    expect(await h.prisma.monitor.count({ where: { name: 'lone surrogate' } })).toBe(0);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitorId } })).name).toBe('unicode target');
  });

  it('refuses bytes that are not UTF-8 with 400 instead of storing U+FFFD (POST and PATCH)', async () => {
    const bad = (prefix: string, suffix: string, bytes: number[]) =>
      Buffer.concat([Buffer.from(prefix), Buffer.from(bytes), Buffer.from(suffix)]);
    const cases: Array<['post' | 'patch', Buffer]> = [
      ['post', bad('{"name":"bytes ', '","target":"https://93.184.215.14/"}', [0xff])],
      ['post', bad('{"name":"bytes","target":"https://93.184.215.14/","metadata":{"env":"', '"}}', [0xc3, 0x28])],
      ['post', bad('{"name":"bytes","target":"https://93.184.215.14/","metadata":{"', '":"v"}}', [0xed, 0xa0, 0x80])],
      ['patch', bad('{"name":"bytes ', '"}', [0xc0, 0xaf])],
      ['patch', bad('{"keyword":"', '"}', [0xf5, 0x80, 0x80, 0x80])],
    ];
    for (const [method, raw] of cases) {
      const res = await send(method, method === 'post' ? '/api/v1/monitors' : `/api/v1/monitors/${monitorId}`, raw);
      expect([method, raw.toString('hex'), res.status, res.body.error?.code, res.body.error?.details?.issues]).toEqual([
        method,
        raw.toString('hex'),
        400,
        'invalid_request',
        [{ path: '(body)', message: 'is not valid UTF-8' }],
      ]);
    }
    const monitors = await h.prisma.monitor.findMany({ where: { name: { startsWith: 'bytes' } } });
    expect(monitors).toEqual([]);
    const kept = await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitorId } });
    expect([kept.name, kept.keyword]).toEqual(['unicode target', null]);
    // Real UTF-8 multi-byte text goes through unchanged.
    const ok = await send(
      'patch',
      `/api/v1/monitors/${monitorId}`,
      Buffer.from(JSON.stringify({ name: 'h\u00e9llo w\u00f6rld \u2713' }), 'utf8'),
    );
    expect([ok.status, ok.body.data?.name]).toEqual([200, 'h\u00e9llo w\u00f6rld \u2713']);
  });
});

describe('rate limit', () => {
  it('counts per token in Redis, sets RateLimit headers, and answers 429 with Retry-After', async () => {
    const limited = makeHarness({ RATE_LIMIT_PER_MINUTE: '3' });
    try {
      await limited.redisReady();
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

describe('rate limit of one turn', () => {
  it("counts a token's concurrent requests in one Redis call, each answered as if it had come alone", async () => {
    const limited = makeHarness();
    try {
      await limited.redisReady();
      const prefix = `sv:rl:${uniq('turn')}`;
      const limit = rateLimit(limited.redis, 3, prefix);
      // The script RateLimiterRedis defines on the client (ioredis defineCommand): one call per Redis round trip.
      const calls = jest.spyOn(limited.redis as unknown as { rlflxIncr: () => unknown }, 'rlflxIncr');
      const call = (tokenId: string) => {
        const headers: Record<string, string> = {};
        const res = { locals: { ctx: { tokenId } }, setHeader: (k: string, v: string) => void (headers[k] = v) };
        return new Promise<Record<string, string>>((resolve, reject) => {
          const done = (err?: unknown) => (err ? reject(err as Error) : resolve(headers));
          (limit as (req: unknown, res: unknown, next: (err?: unknown) => void) => Promise<void>)({}, res, done).catch(
            (err: unknown) => resolve({ ...headers, error: (err as { code?: string }).code ?? String(err) }),
          );
        });
      };
      const answers = await Promise.all([call('a'), call('a'), call('b'), call('a'), call('a'), call('a')]);
      // What each call asked Redis for: the key and the points it adds (ioredis may report a call twice).
      const asked = new Set(calls.mock.calls.map((c) => (c as unknown as [string[]])[0].slice(0, 2).join(' ')));
      expect([...asked].sort()).toEqual([`${prefix}:a 5`, `${prefix}:b 1`]);
      expect(answers.map((a) => a.error ?? a['RateLimit-Remaining'])).toEqual([
        '2',
        '1',
        '2',
        '0',
        'rate_limited',
        'rate_limited',
      ]);
      expect(answers.slice(4).map((a) => [a['RateLimit-Remaining'], Number(a['Retry-After']) >= 1])).toEqual([
        ['0', true],
        ['0', true],
      ]);
      // The next turn counts on from there.
      expect((await call('b'))['RateLimit-Remaining']).toBe('1');
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

describe('transactions when PostgreSQL does not accept connections', () => {
  it("wait out the connect timeout (a clear, retryable error), not Prisma's shorter default maxWait", async () => {
    const upstream = new URL(process.env.DATABASE_URL!);
    const proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    const viaProxy = new URL(upstream.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const prisma = createPrisma(viaProxy.toString(), { max: 2 });
    try {
      proxy.cut('blackhole');
      const started = Date.now();
      const err = await prisma
        .$transaction(async (tx) => tx.workspace.count())
        .then(
          () => null,
          (e: unknown) => e as Error & { code?: string },
        );
      const ms = Date.now() - started;
      // With maxWait below the connect timeout this was P2028 "Unable to start a transaction" after 2 s.
      expect([err?.code, err?.message]).toEqual([
        undefined,
        expect.stringMatching(/connection timeout|timeout exceeded when trying to connect/i),
      ]);
      expect(isUnavailableError(err)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(DB_TIMEOUTS.connectMs - 100);
      expect(ms).toBeLessThan(DB_TIMEOUTS.connectMs + 1000);
    } finally {
      proxy.restore();
      await prisma.$disconnect().catch(() => undefined);
      await proxy.close();
    }
  });
});

describe('rate limit across replicas', () => {
  it('shares one budget between two app instances on the same Redis', async () => {
    const one = makeHarness({ RATE_LIMIT_PER_MINUTE: '4' });
    const two = makeHarness({ RATE_LIMIT_PER_MINUTE: '4' });
    try {
      await Promise.all([one.redisReady(), two.redisReady()]);
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
    stream.on('data', (c: Buffer) =>
      lines.push(
        ...c
          .toString('utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      ),
    );
    const app = createApp({
      ...other.deps,
      logger: createLogger({ level: 'info', json: true, service: 'api', stream }),
    });
    return { other, app, lines };
  }

  async function protectedPage(): Promise<string> {
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(tokens.owner))
      .send({ vanityUrl: uniq('proxy'), name: 'Behind a balancer' });
    expect(res.status).toBe(201);
    // A cheap scrypt cost keeps the guesses fast; verification reads the cost from the stored hash.
    await h.prisma.statusPage.update({
      where: { id: res.body.data.id },
      data: { passwordHash: await hashPassword('right password', { N: 1024, r: 8, p: 1 }) },
    });
    return res.body.data.slug as string;
  }
  const guess = (app: ReturnType<typeof createApp>, slug: string, client: string) =>
    request(app)
      .post(`/status/${slug}/login`)
      .type('form')
      .set('X-Forwarded-For', client)
      .send({ password: 'wrong password' });

  it('is off by default: X-Forwarded-For is ignored, so every client behind one address shares the guess budget', async () => {
    const { other, app, lines } = appWith({});
    try {
      expect(other.config.trustProxy).toBe(false);
      const slug = await protectedPage();
      for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i++)
        expect((await guess(app, slug, `203.0.113.${i + 1}`)).status).toBe(401);
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
      for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE; i++)
        expect((await guess(app, slug, '203.0.113.7')).status).toBe(401);
      expect((await guess(app, slug, '203.0.113.7')).status).toBe(429);
      // Another client behind the same balancer still has its budget.
      expect((await guess(app, slug, '198.51.100.9')).status).toBe(401);
      // The balancer appends the address it saw: a client cannot pick its own by sending the header itself.
      expect((await guess(app, slug, '10.9.9.9, 203.0.113.7')).status).toBe(429);
      const logged = lines.filter((l) => l.message === 'request').map((l) => l.ip);
      expect(logged).toEqual([
        ...Array(LOGIN_ATTEMPTS_PER_MINUTE + 1).fill('203.0.113.7'),
        '198.51.100.9',
        '203.0.113.7',
      ]);
    } finally {
      await other.close();
    }
  });
});
