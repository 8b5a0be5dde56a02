import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger, loggerFromConfig, parseConfig } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let lines: string[];
let app: ReturnType<typeof createApp>;
beforeAll(() => {
  h = makeHarness();
  lines = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const logger = createLogger({ level: 'debug', json: true, service: 'api', stream });
  app = createApp({ ...h.deps, logger });
});
afterAll(async () => {
  await h.close();
});

describe('request logging', () => {
  it('writes one JSON line per request with id, method, route, status and duration, and never a secret', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const headerSecret = 'hdr-secret-value-123';
    const bodySecret = 'body-secret-value-456';
    const res = await request(app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .set('X-Request-Id', 'log-test-1')
      .set('Idempotency-Key', 'idem-secret-key')
      .send(makeMonitorInput({ method: 'POST', headers: { Authorization: headerSecret }, body: bodySecret }));
    expect(res.status).toBe(201);
    const hb = await request(app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ type: 'heartbeat', name: 'hb' });
    const pingPath = new URL(hb.body.data.pingUrl).pathname;
    await request(app).get(pingPath);
    await request(app).get('/api/v1/monitors?page=zzz').set(bearer(tokens.owner));
    await new Promise((r) => setTimeout(r, 50));

    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const created = entries.find((e) => e.requestId === 'log-test-1');
    expect(created).toMatchObject({
      message: 'request',
      method: 'POST',
      route: '/api/v1/monitors',
      status: 201,
      service: 'api',
      level: 'info',
      ip: expect.stringMatching(/127\.0\.0\.1|::1/),
    });
    expect(typeof created!.durationMs).toBe('number');
    const ping = entries.find((e) => e.route === '/ping/:secret');
    expect(ping).toMatchObject({ method: 'GET', status: 200 });

    const all = lines.join('\n');
    for (const secret of [
      tokens.owner,
      tokens.owner.slice(3),
      headerSecret,
      bodySecret,
      'idem-secret-key',
      pingPath.split('/').pop()!,
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('request lines of the heartbeat receiver', () => {
  it('label each ping URL by its route template, never its secret', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const hb = await request(app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ type: 'heartbeat', name: 'hb' });
    const path = new URL(hb.body.data.pingUrl).pathname;
    const secret = path.split('/').pop()!;
    const sent: Array<[string, string, number]> = [
      ['GET', `${path}/start`, 200],
      ['POST', `${path}/`, 200],
      ['HEAD', `/PING/${secret}/7`, 200],
      ['GET', `${path}/nope`, 404],
      ['OPTIONS', path, 200],
      ['PUT', path, 404],
      ['GET', '/ping/%E0%A4%A', 400],
    ];
    for (const [method, url, status] of sent) {
      const res = await request(app)
        [method.toLowerCase() as 'get'](url)
        .set('X-Request-Id', `ping-label-${sent.findIndex((x) => x[1] === url && x[0] === method)}`);
      expect([method, url, res.status]).toEqual([method, url, status]);
    }
    await new Promise((r) => setTimeout(r, 50));
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const routes = sent.map((_, i) => {
      const e = entries.find((x) => x.requestId === `ping-label-${i}`);
      return [e?.method, e?.route, e?.status];
    });
    expect(routes).toEqual([
      ['GET', '/ping/:secret/:kind', 200],
      ['POST', '/ping/:secret', 200],
      // The mount path as the request spelled it (Express's baseUrl): a ping is labelled as Express labels it.
      ['HEAD', '/PING/:secret/:kind', 200],
      ['GET', '/ping/:secret/:kind', 404],
      ['OPTIONS', '/ping (unrouted)', 200],
      ['PUT', '(unmatched)', 404],
      ['GET', '(unmatched)', 400],
    ]);
    expect(lines.join('\n')).not.toContain(secret);
  });
});

describe('request logging with the default level', () => {
  /** The API's logger exactly as main.ts builds it, from a config whose LOG_LEVEL is not set. */
  function appWithDefaults(env: Record<string, string>) {
    const out: string[] = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => out.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const config = parseConfig({
      ...process.env,
      LOG_LEVEL: undefined,
      ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
      ...env,
    });
    const logger = loggerFromConfig(config, 'api', { stream });
    return { config, out, app: createApp({ ...h.deps, logger }) };
  }

  it('writes a JSON request line in production without LOG_LEVEL', async () => {
    const { config, out, app } = appWithDefaults({ NODE_ENV: 'production' });
    expect(config.logLevel).toBe('info');
    const { tokens } = await makeWorkspace(h.prisma);
    expect(
      (
        await request(app)
          .get('/api/v1/monitors?page=2')
          .set(bearer(tokens.viewer))
          .set('X-Request-Id', 'prod-default-1')
      ).status,
    ).toBe(200);
    expect((await request(app).get('/no-such-route').set('X-Request-Id', 'prod-default-2')).status).toBe(404);
    await new Promise((r) => setTimeout(r, 50));
    const entries = out.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.message === 'request');
    expect(entries).toEqual([
      {
        message: 'request',
        level: 'info',
        service: 'api',
        requestId: 'prod-default-1',
        method: 'GET',
        route: '/api/v1/monitors',
        status: 200,
        ip: expect.any(String),
        durationMs: expect.any(Number),
        timestamp: expect.any(String),
      },
      {
        message: 'request',
        level: 'info',
        service: 'api',
        requestId: 'prod-default-2',
        method: 'GET',
        route: '(unmatched)',
        status: 404,
        ip: expect.any(String),
        durationMs: expect.any(Number),
        timestamp: expect.any(String),
      },
    ]);
    expect(out.join('\n')).not.toContain(tokens.viewer.slice(3));
  });

  it('writes a readable request line in development without LOG_LEVEL', async () => {
    const { config, out, app } = appWithDefaults({ NODE_ENV: 'development' });
    expect(config.logLevel).toBe('info');
    expect((await request(app).get('/healthz').set('X-Request-Id', 'dev-default-1')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    // Not a terminal (Jest's stdout): plain text, no colour codes for a file or a log collector to carry.
    const line = out.find((l) => l.includes('dev-default-1'));
    expect(line).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} info \[api\] request \{"requestId":"dev-default-1","method":"GET","route":"\/healthz","status":200,"ip":"[^"]+","durationMs":[\d.]+\}$/,
    );
  });

  it('writes none with LOG_LEVEL=warn', async () => {
    const { out, app } = appWithDefaults({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    expect((await request(app).get('/healthz')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(out).toEqual([]);
  });
});
