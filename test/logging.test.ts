import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger } from '@statusvane/shared';
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
    const hb = await request(app).post('/api/v1/monitors').set(bearer(tokens.owner)).send({ type: 'heartbeat', name: 'hb' });
    const pingPath = new URL(hb.body.data.pingUrl).pathname;
    await request(app).get(pingPath);
    await request(app).get('/api/v1/monitors?page=zzz').set(bearer(tokens.owner));
    await new Promise((r) => setTimeout(r, 50));

    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const created = entries.find((e) => e.requestId === 'log-test-1');
    expect(created).toMatchObject({ message: 'request', method: 'POST', route: '/api/v1/monitors', status: 201, service: 'api', level: 'http' });
    expect(typeof created!.durationMs).toBe('number');
    const ping = entries.find((e) => e.route === '/ping/:secret');
    expect(ping).toMatchObject({ method: 'GET', status: 200 });

    const all = lines.join('\n');
    for (const secret of [tokens.owner, tokens.owner.slice(3), headerSecret, bodySecret, 'idem-secret-key', pingPath.split('/').pop()!]) {
      expect(all).not.toContain(secret);
    }
  });
});
