// The two busiest answers, GET /api/v1/monitors/{id} and the heartbeat ping, pinned header by header (names, order
// and values) with and without Accept-Encoding, with their errors: the request pipeline is tuned for their CPU cost
// (docs/benchmarks.md, issue 33), and none of that may change a byte a client sees.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createApiServer } from '../apps/api/src/http-server.js';
import { bearer, createMonitorNamed, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let server: http.Server;
let port: number;
beforeAll(async () => {
  h = makeHarness();
  w = await makeWorkspace(h.prisma);
  await h.redisReady();
  server = createApiServer(h.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await h.close();
});

interface Answer {
  status: number;
  headers: string[];
  body: Buffer;
}

/** One request with exactly these headers (supertest would add Accept-Encoding), on a connection of its own. */
const send = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: headersOf(res.rawHeaders), body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** What changes from one request to the next, replaced by its shape. */
const masked = (name: string, value: string): string => {
  const n = name.toLowerCase();
  if (n === 'date') return '<date>';
  if (n === 'x-request-id' && UUID.test(value)) return '<uuid>';
  if (n === 'ratelimit-remaining' || n === 'ratelimit-reset') return /^[0-9]+$/.test(value) ? '<n>' : value;
  if (n === 'content-length') return /^[0-9]+$/.test(value) ? '<n>' : value;
  if (n === 'etag') return /^"[0-9]+"$/.test(value) ? '<version>' : value;
  return value;
};
/** The answer's headers as sent: in order, with their names' case. */
const headersOf = (raw: string[]) => {
  const pairs: string[] = [];
  for (let i = 0; i < raw.length; i += 2) pairs.push(`${raw[i]}: ${masked(raw[i]!, raw[i + 1]!)}`);
  return pairs;
};

/** The headers every answer ends with (a fresh connection per request, closed after it). */
const TAIL = ['Date: <date>', 'Connection: close'];
const RATE = ['RateLimit-Limit: 600', 'RateLimit-Remaining: <n>', 'RateLimit-Reset: <n>'];
const JSON_TYPE = 'Content-Type: application/json; charset=utf-8';
const TEXT = ['Cache-Control: no-store', 'Content-Type: text/plain; charset=utf-8', 'Content-Length: <n>'];
const VARY = 'Vary: Accept-Encoding';
const OK_HEADERS = ['X-Request-Id: <uuid>', ...TEXT, VARY, ...TAIL];

describe('GET /api/v1/monitors/{id}, header by header', () => {
  let path: string;
  let viewer: Record<string, string>;
  beforeAll(async () => {
    const m = await createMonitorNamed(
      h,
      w,
      'Pinned monitor with a name long enough for the answer to pass a kilobyte',
    );
    path = `/api/v1/monitors/${m.id}`;
    viewer = bearer(w.tokens.viewer);
  });

  it('answers the record as compact JSON, gzipped when accepted, with the same headers in the same order', async () => {
    const plain = await send('GET', path, viewer);
    expect(plain.status).toBe(200);
    expect(plain.headers).toEqual([
      'X-Request-Id: <uuid>',
      ...RATE,
      'ETag: <version>',
      JSON_TYPE,
      'Content-Length: <n>',
      VARY,
      ...TAIL,
    ]);
    const record = JSON.parse(plain.body.toString()) as { data: { version: number; id: string } };
    expect(plain.body.toString()).toBe(JSON.stringify(record));
    expect(plain.body.length).toBeGreaterThan(1024);
    expect(plain.headers).toContain(`ETag: <version>`);
    const gz = await send('GET', path, { ...viewer, 'Accept-Encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers).toEqual([
      'X-Request-Id: <uuid>',
      ...RATE,
      'ETag: <version>',
      JSON_TYPE,
      VARY,
      'Content-Encoding: gzip',
      ...TAIL,
      'Transfer-Encoding: chunked',
    ]);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    // An encoding the client refuses, or none it names: as without Accept-Encoding.
    for (const refused of ['identity', '', 'gzip;q=0, deflate;q=0, br;q=0'])
      expect((await send('GET', path, { ...viewer, 'Accept-Encoding': refused })).headers).toEqual(plain.headers);

    // HEAD: the length of the body it would have sent, never an encoding.
    for (const accept of [{}, { 'Accept-Encoding': 'gzip' }] as Array<Record<string, string>>) {
      const head = await send('HEAD', path, { ...viewer, ...accept });
      expect([head.status, head.headers, head.body.length]).toEqual([200, plain.headers, 0]);
    }
    // A conditional request that is not fresh (another version, or a date with no Last-Modified to compare) answers
    // the same bytes as a plain one.
    const conditions: Array<Record<string, string>> = [
      { 'If-None-Match': '"0"' },
      { 'If-Modified-Since': new Date().toUTCString() },
    ];
    for (const condition of conditions) {
      const stale = await send('GET', path, { ...viewer, ...condition });
      expect([stale.status, stale.headers, stale.body.equals(plain.body)]).toEqual([200, plain.headers, true]);
    }
    const notModified = await send('GET', path, { ...viewer, 'If-None-Match': `"${record.data.version}"` });
    expect([notModified.status, notModified.headers, notModified.body.length]).toEqual([
      304,
      ['X-Request-Id: <uuid>', ...RATE, 'ETag: <version>', ...TAIL],
      0,
    ]);
  });

  it('answers its errors with the envelope and the same headers', async () => {
    const missing = await send('GET', '/api/v1/monitors/00000000-0000-4000-8000-000000000000', viewer);
    expect([missing.status, missing.headers, missing.body.toString()]).toEqual([
      404,
      ['X-Request-Id: <uuid>', ...RATE, JSON_TYPE, 'Content-Length: <n>', VARY, ...TAIL],
      '{"error":{"code":"not_found","message":"monitor 00000000-0000-4000-8000-000000000000 was not found"}}',
    ]);
    for (const accept of [{}, { 'Accept-Encoding': 'gzip' }] as Array<Record<string, string>>) {
      const anon = await send('GET', path, { 'X-Request-Id': 'client-chosen-id.1', ...accept });
      expect([anon.status, anon.headers, anon.body.toString()]).toEqual([
        401,
        [
          'X-Request-Id: client-chosen-id.1',
          'WWW-Authenticate: Bearer',
          JSON_TYPE,
          'Content-Length: <n>',
          VARY,
          ...TAIL,
        ],
        '{"error":{"code":"unauthorized","message":"Send Authorization: Bearer <token>"}}',
      ]);
    }
    const nowhere = await send('GET', '/nowhere');
    expect([nowhere.status, nowhere.headers, nowhere.body.toString()]).toEqual([
      404,
      ['X-Request-Id: <uuid>', JSON_TYPE, 'Content-Length: <n>', VARY, ...TAIL],
      '{"error":{"code":"not_found","message":"No route for GET /nowhere"}}',
    ]);
  });
});

describe('what is not an API operation under /api/v1', () => {
  it('reaches the public documents, and otherwise the API router (401 without a token, 404 with one)', async () => {
    const doc = await send('GET', '/api/v1/openapi.json');
    expect([doc.status, doc.headers[1], (JSON.parse(doc.body.toString()) as { openapi: string }).openapi]).toEqual([
      200,
      'Access-Control-Allow-Origin: *',
      '3.1.0',
    ]);
    for (const path of ['/api/v1', '/API/V1/']) {
      const index = await send('GET', path);
      expect([path, index.status, index.headers.includes('Cache-Control: public, max-age=300')]).toEqual([
        path,
        200,
        true,
      ]);
    }
    expect((await send('GET', '/api/v1/openapi.json/x')).status).toBe(401);
    const unknown = await send('GET', '/api/v1/nothing-here', bearer(w.tokens.viewer));
    expect([unknown.status, unknown.body.toString()]).toEqual([
      404,
      '{"error":{"code":"not_found","message":"No route for GET /api/v1/nothing-here"}}',
    ]);
    // An operation's path is matched as Express matches its mount: case-insensitively.
    const m = await createMonitorNamed(h, w, 'Shouted');
    expect((await send('GET', `/API/V1/MONITORS/${m.id.toUpperCase()}`, bearer(w.tokens.viewer))).status).toBe(200);
  });
});

describe('the heartbeat ping, header by header', () => {
  let ping: string;
  beforeAll(async () => {
    const created = await send(
      'POST',
      '/api/v1/monitors',
      { ...bearer(w.tokens.owner), 'Content-Type': 'application/json' },
      JSON.stringify({ type: 'heartbeat', name: 'nightly backup' }),
    );
    ping = new URL((JSON.parse(created.body.toString()) as { data: { pingUrl: string } }).data.pingUrl).pathname;
  });

  it('answers OK with the same headers whatever the method and Accept-Encoding', async () => {
    const log = 'backup done\n'.repeat(100);
    for (const [method, suffix, accept, body] of [
      ['POST', '', undefined, log],
      ['POST', '', 'gzip, br', log],
      ['GET', '/start', undefined, undefined],
      ['GET', '/0', 'gzip', undefined],
      ['HEAD', '/fail', undefined, undefined],
    ] as const) {
      const headers: Record<string, string> = body ? { 'Content-Type': 'text/plain' } : {};
      if (accept) headers['Accept-Encoding'] = accept;
      const a = await send(method, `${ping}${suffix}`, headers, body);
      expect([method, suffix, a.status, a.headers, a.body.toString()]).toEqual([
        method,
        suffix,
        200,
        ['X-Request-Id: <uuid>', ...TEXT, VARY, ...TAIL],
        method === 'HEAD' ? '' : 'OK',
      ]);
    }
  });

  it('answers a conditional ping as Express does: recorded, and a 304 when the client says it is fresh', async () => {
    for (const [method, headers, status, body] of [
      ['GET', { 'If-None-Match': '*' }, 304, ''],
      // No Last-Modified to compare with: not fresh.
      ['HEAD', { 'If-Modified-Since': new Date(Date.now() + 60_000).toUTCString() }, 200, ''],
      ['GET', { 'If-None-Match': '"v1"' }, 200, 'OK'],
      ['POST', { 'If-None-Match': '*', 'Content-Type': 'text/plain' }, 200, 'OK'],
    ] as const) {
      const a = await send(method, ping, headers, method === 'POST' ? 'log' : undefined);
      const expected = status === 304 ? ['X-Request-Id: <uuid>', 'Cache-Control: no-store', ...TAIL] : OK_HEADERS;
      expect([method, headers, a.status, a.headers, a.body.toString()]).toEqual([
        method,
        headers,
        status,
        expected,
        body,
      ]);
    }
  });

  it('routes ping URLs as Express routes them: case, trailing slash, percent-encoding, other methods', async () => {
    const secret = ping.split('/').pop()!;
    const ok = ['X-Request-Id: <uuid>', ...TEXT, VARY, ...TAIL];
    for (const path of [
      `/PING/${secret}`,
      `${ping}/`,
      `${ping}/start/`,
      `/ping/${encodeURIComponent(secret).replace(/-/g, '%2D')}`,
    ]) {
      const a = await send('GET', path);
      expect([path, a.status, a.headers, a.body.toString()]).toEqual([path, 200, ok, 'OK']);
    }
    for (const path of [`${ping}/START`, `${ping}/256`, `${ping}/start/more`, '/ping', '/ping/']) {
      const a = await send('GET', path);
      expect([path, a.status]).toEqual([path, 404]);
    }
    const malformed = await send('GET', '/ping/%E0%A4%A');
    expect([malformed.status, malformed.body.toString()]).toEqual([
      400,
      '{"error":{"code":"invalid_request","message":"The request is malformed"}}',
    ]);
    const put = await send('PUT', ping, { 'Content-Type': 'text/plain' }, 'x');
    expect([put.status, put.body.toString()]).toEqual([
      404,
      `{"error":{"code":"not_found","message":"No route for PUT /ping/${secret}"}}`,
    ]);
    const options = await send('OPTIONS', ping);
    expect([options.status, options.headers, options.body.toString()]).toEqual([
      200,
      [
        'X-Request-Id: <uuid>',
        'Allow: GET, HEAD, POST',
        'Content-Length: <n>',
        'Content-Type: text/plain',
        'X-Content-Type-Options: nosniff',
        VARY,
        ...TAIL,
      ],
      'GET, HEAD, POST',
    ]);
  });

  it('answers an unknown ping URL and a bad rid in plain text, with the same headers', async () => {
    const unknown = await send('GET', '/ping/short', { 'X-Request-Id': 'client-chosen-id.2' });
    expect([unknown.status, unknown.headers, unknown.body.toString()]).toEqual([
      404,
      ['X-Request-Id: client-chosen-id.2', ...TEXT, VARY, ...TAIL],
      'unknown ping URL\n',
    ]);
    const rid = await send('GET', `${ping}?rid=nope`, { 'Accept-Encoding': 'gzip' });
    expect([rid.status, rid.headers, rid.body.toString()]).toEqual([
      400,
      ['X-Request-Id: <uuid>', ...TEXT, VARY, ...TAIL],
      'rid must be a UUID\n',
    ]);
  });
});
