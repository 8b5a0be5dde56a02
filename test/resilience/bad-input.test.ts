/**
 * Bad input at scale: thousands of random and malformed requests (fast-check) against every operation of the
 * OpenAPI document, plus a fixed list of the nastiest inputs for each of them. Every answer must be a 4xx with a
 * valid error envelope (or a valid 2xx when the input happened to be valid), never a 5xx; afterwards the database
 * holds no partial write and the other workspace is untouched.
 *
 * Reproduce a run with FUZZ_SEED=<seed printed on failure>; FUZZ_RUNS changes the number of random requests.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createSsrfGuard, schedulerId } from '@statusvane/shared';
import { createApp } from '../../apps/api/src/app.js';
import { buildOpenApiDocument } from '../../apps/api/src/openapi/document.js';
import { addMember, createToken, createUser } from '../../apps/api/src/services/admin/admin-commands.js';
import { makeHarness, makeWorkspace, uniq, type Harness } from '../support/harness.js';
import { deleteKeys } from './support/processes.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const CONCURRENCY = 8;

const CODE_FOR_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'invalid_request',
  415: 'invalid_request',
  429: 'rate_limited',
};

interface Op {
  method: string;
  path: string;
  success: number;
  hasBody: boolean;
}

/** Every operation of the document: the test follows the interface, so a new route is fuzzed without a change here. */
function operations(): Op[] {
  const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> };
  const ops: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const success = Number(Object.keys(op.responses).find((s) => s.startsWith('2')));
      ops.push({ method: method.toUpperCase(), path, success, hasBody: op.requestBody !== undefined });
    }
  }
  return ops;
}

let h: Harness;
let server: http.Server;
let base: { host: string; port: number };
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
const ids: { own: string[]; foreign: string[] } = { own: [], foreign: [] };
let extraTokens: { personalTwoWorkspaces: string; oauth: string };

beforeAll(async () => {
  h = makeHarness({ RATE_LIMIT_PER_MINUTE: '1000000' });
  // No real DNS from a fuzzer: every name is "not found", which the API accepts as a target (it cannot point inward
  // now, and every connection is checked again); only IP literals are judged.
  const guard = createSsrfGuard({
    lookup: async (hostname) => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    },
  });
  const app = createApp({ ...h.deps, guard });
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  base = { host: '127.0.0.1', port: (server.address() as AddressInfo).port };

  ws = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
  // Real records in both workspaces, so that ids in paths sometimes hit something.
  for (const [w, list] of [
    [ws, ids.own],
    [other, ids.foreign],
  ] as const) {
    for (const body of [
      { name: 'seed http', target: 'https://93.184.215.14/health', method: 'POST', headers: { 'X-Api-Key': 'k' }, body: '{}' },
      { type: 'tcp', name: 'seed tcp', target: '93.184.215.14:443' },
      { type: 'heartbeat', name: 'seed heartbeat' },
    ]) {
      list.push((await send({ method: 'POST', path: '/api/v1/monitors', headers: auth(w.tokens.owner), body: json(body) })).body.data.id);
    }
    list.push(
      (await send({ method: 'POST', path: '/api/v1/maintenance', headers: auth(w.tokens.owner), body: json({ title: 'seed', startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-01T01:00:00Z' }) })).body.data.id,
    );
    list.push((await send({ method: 'POST', path: '/api/v1/status-pages', headers: auth(w.tokens.owner), body: json({ vanityUrl: uniq('seed'), name: 'Seed' }) })).body.data.id);
    const monitorId = list[0]!;
    const incident = await h.prisma.incident.create({
      data: { workspaceId: w.ws.id, monitorId, openMonitorId: monitorId, title: 'seed is down', status: 'open', impact: 'major', source: 'monitor' },
    });
    list.push(incident.id);
  }
  const user = await createUser(h.prisma, { email: `${uniq('fuzz')}@example.test` });
  await addMember(h.prisma, { workspace: ws.ws.id, email: user.email, role: 'admin' });
  await addMember(h.prisma, { workspace: other.ws.id, email: user.email, role: 'viewer' });
  extraTokens = {
    personalTwoWorkspaces: (await createToken(h.prisma, { kind: 'personal', email: user.email })).token,
    oauth: (await createToken(h.prisma, { kind: 'oauth', email: user.email, workspaces: ws.ws.id })).token,
  };
}, 60_000);

afterAll(async () => {
  agent.destroy();
  await new Promise<void>((r) => server?.close(() => r()));
  await h?.close();
  await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}:*`]).catch(() => undefined);
});

// ---------------------------------------------------------------------------------------------------------------
// Sending
// ---------------------------------------------------------------------------------------------------------------

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The operation the request was built from (for reporting). */
  op?: string;
}

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

function send(req: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    if (req.body) headers['content-length'] = req.body.length;
    const r = http.request({ ...base, agent, method: req.method, path: req.path, headers, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    r.on('timeout', () => r.destroy(new Error('request timed out: the API hung')));
    r.on('error', reject);
    r.end(req.body);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Generating
// ---------------------------------------------------------------------------------------------------------------

const ASCII_PRINTABLE = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });
/** Header values Node will send: printable ASCII, tab and latin-1. */
const headerValue = fc.oneof(
  ASCII_PRINTABLE,
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.integer({ min: 129, max: 8000 }).map((n) => 'h'.repeat(n)),
  fc.constant('\tx'),
);

const deep = (n: number, open: string, close: string, leaf = '1') => `${open.repeat(n)}${leaf}${close.repeat(n)}`;

const INVALID_UTF8 = [
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0xc3]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  Buffer.from([0x80, 0x80, 0x80]),
];

const weird = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  1e308,
  -0,
  2 ** 53 + 1,
  1.5,
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\u202e',
  '𝕏'.repeat(100),
  'x'.repeat(5000),
  [],
  {},
  [null],
  { $ne: 1 },
  { __proto__: { polluted: true } },
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '0000-00-00T00:00:00Z',
  'http://127.0.0.1/',
  'https://2130706433/',
  'http://[::ffff:7f00:1]/',
  'javascript:alert(1)',
  '127.1:22',
  '[::1]:80',
  'localhost:6379',
  'https://user:pass@93.184.215.14/',
  randomUUID(),
);
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 3 }), weird);

const MONITOR_FIELDS = [
  'type', 'name', 'target', 'method', 'intervalSeconds', 'timeoutMs', 'openThreshold', 'resolveThreshold', 'expectedStatusCodes', 'keyword',
  'keywordAbsent', 'degradedAfterMs', 'latencyThresholdMs', 'headers', 'body', 'contentType', 'environment', 'metadata', 'jsonAssertion',
  'graceSeconds', 'enabled',
];
const MAINTENANCE_FIELDS = ['title', 'body', 'startsAt', 'endsAt', 'componentIds', 'status'];
const STATUS_PAGE_FIELDS = ['vanityUrl', 'name', 'isPublic'];

function validBodies(op: Op): fc.Arbitrary<Record<string, unknown>> {
  const name = fc.string({ minLength: 1, maxLength: 40 });
  if (op.path === '/monitors' && op.method === 'POST') {
    return fc.oneof(
      fc.record({ name, target: fc.constantFrom('https://93.184.215.14/health', 'http://93.184.215.14:8080/x?y=1', 'https://example.invalid/'), intervalSeconds: fc.integer({ min: 60, max: 86_400 }) }),
      fc.record({ type: fc.constant('tcp'), name, target: fc.constantFrom('93.184.215.14:443', 'db.example.invalid:5432') }),
      fc.record({ type: fc.constant('heartbeat'), name, graceSeconds: fc.integer({ min: 0, max: 86_400 }) }),
      fc.record({ name, target: fc.constant('https://93.184.215.14/'), method: fc.constant('POST'), body: fc.string(), headers: fc.dictionary(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), ASCII_PRINTABLE, { maxKeys: 3 }) }),
    );
  }
  if (op.path === '/monitors/{id}') {
    return fc.oneof(fc.record({ name }), fc.record({ enabled: fc.boolean() }), fc.record({ intervalSeconds: fc.integer({ min: 60, max: 3600 }) }), fc.record({ keyword: fc.option(fc.string()) }));
  }
  if (op.path === '/maintenance') {
    return fc.record({ title: name, startsAt: fc.constant('2031-01-01T00:00:00Z'), endsAt: fc.constantFrom('2031-01-01T01:00:00Z', '2030-01-01T00:00:00+02:00'), body: fc.string({ maxLength: 100 }) });
  }
  if (op.path === '/maintenance/{id}') {
    return fc.oneof(fc.record({ title: name }), fc.record({ status: fc.constantFrom('start', 'complete', 'cancel', 'restart') }), fc.record({ endsAt: fc.constant('2031-06-01T00:00:00Z') }));
  }
  if (op.path === '/status-pages') {
    return fc.record({ vanityUrl: fc.oneof(fc.string({ maxLength: 80 }), fc.constant(uniq('page'))), name, isPublic: fc.boolean() });
  }
  return fc.constant({});
}

function fieldsOf(op: Op): string[] {
  if (op.path.startsWith('/monitors')) return MONITOR_FIELDS;
  if (op.path.startsWith('/maintenance')) return MAINTENANCE_FIELDS;
  if (op.path.startsWith('/status-pages')) return STATUS_PAGE_FIELDS;
  return ['note', 'reason'];
}

/** A body for `op`: valid, a valid one with one field broken, random JSON, or bytes that are not JSON at all. */
function bodyFor(op: Op): fc.Arbitrary<Buffer | undefined> {
  const valid = validBodies(op);
  const mutated = fc
    .tuple(valid, fc.constantFrom(...fieldsOf(op), 'unknownField', '__proto__', 'constructor'), anyJson, fc.boolean())
    .map(([body, field, value, drop]) => {
      const copy: Record<string, unknown> = { ...body };
      if (drop) delete copy[field];
      else Object.defineProperty(copy, field, { value, enumerable: true, configurable: true, writable: true });
      return json(copy);
    });
  const random = fc.oneof(
    anyJson.map(json),
    fc.dictionary(fc.constantFrom(...fieldsOf(op)), anyJson, { maxKeys: 6 }).map(json),
  );
  const raw = fc.oneof(
    fc.constantFrom(deep(10_000, '{"a":', '}'), deep(10_000, '[', ']', ''), deep(40, '{"metadata":', '}'), `{"name":${deep(5000, '[', ']', '"x"')}}`),
    fc.tuple(valid, fc.constantFrom(...INVALID_UTF8)).map(([v, bad]) => {
      const text = JSON.stringify(v);
      const at = text.indexOf('"', 1) + 1 || 1;
      return Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at))]);
    }),
    valid.map((v) => {
      const text = JSON.stringify(v);
      return Buffer.from(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    }),
    fc.constantFrom('', 'null', '"str"', '123', '[]', '{', '{"a":1,}', "{'a':1}", '{"a":NaN}', '{"a":1e400}', '\ufeff{}', '{"a":"\\ud800"}', '{"a":"\\u0000"}'),
    fc.integer({ min: 200_000, max: 300_000 }).map((n) => json({ name: 'x'.repeat(n) })),
    fc.string({ unit: 'binary', maxLength: 200 }),
  ).map((v) => (Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8')));
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: valid.map(json), weight: 4 }, { arbitrary: mutated, weight: 6 }, { arbitrary: random, weight: 3 }, { arbitrary: raw, weight: 3 });
}

function idSegment(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...ids.own), weight: 6 },
    { arbitrary: fc.constantFrom(...ids.foreign), weight: 2 },
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: fc.constantFrom(...ids.own).map((id) => id.toUpperCase()), weight: 1 },
    { arbitrary: fc.string({ maxLength: 40 }).map(encodeURIComponent), weight: 2 },
    {
      arbitrary: fc.constantFrom('%00', '%ZZ', '%E0%A4%A', '..', '%2e%2e', '%2F', 'x'.repeat(5000), '%F0%9F%98%80', '00000000-0000-0000-0000-000000000000', `{${randomUUID()}}`, '%20', '%09', '-1', '1e9'),
      weight: 2,
    },
  );
}

function queryFor(op: Op): fc.Arbitrary<string> {
  const known = fc.dictionary(fc.constantFrom('page', 'perPage', 'period', 'region'), fc.oneof(fc.integer({ min: -5, max: 300 }).map(String), fc.constantFrom('hour', 'day', 'week', 'month', 'year', 'local', '', '1.5', 'NaN', '%00', 'x'.repeat(3000))), { maxKeys: 3 });
  const random = fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 3 });
  const odd = fc.constantFrom('page=1&page=2', 'page[a]=1', 'page[]=1', '%ZZ=1', 'a=%ZZ', '&&&', '=', 'perPage=1e3');
  return fc
    .oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: known, weight: 3 }, { arbitrary: random, weight: 1 }, { arbitrary: odd, weight: 1 })
    .map((q) => {
      if (q === null) return '';
      if (typeof q === 'string') return `?${q}`;
      const s = Object.entries(q)
        // Percent-escapes sent as they are (`%00`, `%ZZ`) when they are all there is; anything else encoded.
        .map(([k, v]) => `${encodeURIComponent(k)}=${/^%[0-9A-Z]{2}$/.test(v) ? v : encodeURIComponent(v)}`)
        .join('&');
      return s ? `?${s}` : '';
    });
}

function requestFor(op: Op): fc.Arbitrary<Req> {
  const tokens = fc.oneof(
    { arbitrary: fc.constantFrom(ws.tokens.owner, ws.tokens.admin, ws.tokens.member).map((t) => `Bearer ${t}`), weight: 12 },
    { arbitrary: fc.constant(`Bearer ${ws.tokens.viewer}`), weight: 2 },
    { arbitrary: fc.constantFrom(extraTokens.personalTwoWorkspaces, extraTokens.oauth, other.tokens.viewer).map((t) => `Bearer ${t}`), weight: 2 },
    {
      arbitrary: fc.oneof(
        headerValue,
        headerValue.map((v) => `Bearer ${v}`),
        fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `bearer ${ws.tokens.owner}`, `Bearer ${ws.tokens.owner} extra`, `Bearer svu_${ws.tokens.owner.slice(3)}`, `Bearer ${ws.tokens.owner.slice(0, -1)}`),
      ),
      weight: 2,
    },
    { arbitrary: fc.constant(null), weight: 1 },
  );
  const workspace = fc.oneof({ arbitrary: fc.constant(null), weight: 8 }, { arbitrary: fc.oneof(headerValue, fc.constantFrom(ws.ws.slug, ws.ws.id, other.ws.slug, other.ws.id.toUpperCase(), 'x'.repeat(200))), weight: 2 });
  const requestId = fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: headerValue, weight: 1 });
  const idemKey = fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.oneof(fc.uuid(), headerValue, fc.constant(''), fc.constant('k'.repeat(300))), weight: 2 });
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 8 },
    {
      arbitrary: fc.constantFrom('', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/merge-patch+json', 'application/xml', 'garbage', 'application/json; charset=utf-8'),
      weight: 3,
    },
  );
  const encoding = fc.oneof({ arbitrary: fc.constant(null), weight: 10 }, { arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'zz'), weight: 1 });
  const method = fc.oneof({ arbitrary: fc.constant(op.method), weight: 8 }, { arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'), weight: 2 });
  return fc
    .record({ method, id: idSegment(), query: queryFor(op), auth: tokens, workspace, requestId, idemKey, contentType, encoding, body: bodyFor(op) })
    .map((r) => {
      const headers: Record<string, string> = {};
      if (r.auth !== null) headers.authorization = r.auth;
      if (r.workspace !== null) headers['x-statusvane-workspace'] = r.workspace;
      if (r.requestId !== null) headers['x-request-id'] = r.requestId;
      if (r.idemKey !== null) headers['idempotency-key'] = r.idemKey;
      if (r.body) headers['content-type'] = r.contentType;
      if (r.encoding) headers['content-encoding'] = r.encoding;
      return { method: r.method, path: `/api/v1${op.path.replace('{id}', r.id)}${r.query}`, headers, body: r.body, op: `${op.method} ${op.path}` };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Judging
// ---------------------------------------------------------------------------------------------------------------

const created = { monitors: 0, maintenance: 0, statusPages: 0 };

/** Why an answer is wrong, or null. Also counts the creations a 201 reports. */
function judge(req: Req, res: Res, ops: Op[]): string | null {
  // Node's HTTP server refuses headers over 16 KiB itself (431, no body) before the app sees the request.
  const headerBytes = Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  if (res.status === 431 && headerBytes > 15 * 1024) return null;
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  if (!res.headers['x-request-id']) return 'no X-Request-Id';
  if (res.status >= 400) {
    const expected = CODE_FOR_STATUS[res.status];
    if (!expected) return `unexpected status ${res.status}`;
    const e = res.body?.error;
    if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || Object.keys(res.body).length !== 1) return `not an envelope: ${res.text.slice(0, 200)}`;
    if (e.code !== expected) return `code ${e.code} with status ${res.status}`;
    if (e.details !== undefined && (typeof e.details !== 'object' || e.details === null)) return 'details is not an object';
    if (res.status === 401 && res.headers['www-authenticate'] !== 'Bearer') return '401 without WWW-Authenticate: Bearer';
    return null;
  }
  if (req.method === 'OPTIONS') return res.status === 200 || res.status === 204 ? null : `OPTIONS answered ${res.status}`;
  // Express routing is not strict: `/monitors/` is `/monitors`.
  const path = req.path.split('?')[0]!.replace(/^\/api\/v1/, '').replace(/(.)\/+$/, '$1');
  const op = ops.find((o) => o.method === req.method && new RegExp(`^${o.path.replace('{id}', '[^/]+')}$`).test(path));
  if (!op) return `${res.status} for ${req.method} ${path}, which is no operation`;
  if (res.status !== op.success) return `${res.status} instead of ${op.success}`;
  if (res.status === 204) return res.text === '' ? null : '204 with a body';
  if (!res.body || typeof res.body !== 'object' || !('data' in res.body)) return `2xx without data: ${res.text.slice(0, 200)}`;
  if (res.status === 201 && res.headers['idempotent-replayed'] !== 'true') {
    if (op.path === '/monitors') created.monitors++;
    if (op.path === '/maintenance') created.maintenance++;
    if (op.path === '/status-pages') created.statusPages++;
  }
  return null;
}

async function runAll(reqs: Req[], ops: Op[]): Promise<Array<{ req: string; problem: string }>> {
  const failures: Array<{ req: string; problem: string }> = [];
  let next = 0;
  const describeReq = (r: Req) => `${r.op ?? ''} :: ${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers).slice(0, 300)} body=${r.body ? JSON.stringify(r.body.subarray(0, 200).toString('utf8')) : '-'}${r.body && r.body.length > 200 ? `...(${r.body.length} bytes)` : ''}`;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < reqs.length) {
        const req = reqs[next++]!;
        let problem: string | null;
        try {
          problem = judge(req, await send(req), ops);
        } catch (err) {
          problem = `no answer: ${(err as Error).message}`;
        }
        if (problem) failures.push({ req: describeReq(req), problem });
      }
    }),
  );
  return failures;
}

// ---------------------------------------------------------------------------------------------------------------

describe('bad input at scale', () => {
  it('enumerates the operations from the OpenAPI document', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(10);
    expect(ops.filter((o) => o.path.includes('{id}')).length).toBeGreaterThanOrEqual(5);
  });

  it('answers the nastiest inputs to every operation with a 4xx envelope, never a 5xx', async () => {
    const ops = operations();
    const nasty: Req[] = [];
    const bodies: Array<[string, Buffer]> = [
      ['deep objects', Buffer.from(deep(10_000, '{"a":', '}'))],
      ['deep arrays', Buffer.from(deep(100_000, '[', ']', ''))],
      ['deep in a known field', Buffer.from(`{"name":"n","metadata":${deep(5000, '{"a":', '}', '"x"')}}`)],
      ['invalid UTF-8', Buffer.concat([Buffer.from('{"name":"'), ...INVALID_UTF8, Buffer.from('"}')])],
      ['NUL in a value', json({ name: 'a\u0000b', title: 'a\u0000b', vanityUrl: 'ab\u0000cd', target: 'https://93.184.215.14/\u0000' })],
      ['NUL in a key', Buffer.from('{"metadata":{"a\\u0000b":"c"},"name":"x","target":"https://93.184.215.14/"}')],
      ['huge string', json({ name: 'x'.repeat(200_000), title: 'x'.repeat(200_000) })],
      ['too large', json({ name: 'x'.repeat(300_000) })],
      ['wrong types everywhere', json(Object.fromEntries([...MONITOR_FIELDS, ...MAINTENANCE_FIELDS, ...STATUS_PAGE_FIELDS].map((f) => [f, { nested: [f] }])))],
      ['prototype keys', Buffer.from('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}},"name":"p"}')],
    ];
    for (const op of ops) {
      const path = `/api/v1${op.path.replace('{id}', ids.own[0]!)}`;
      for (const [label, body] of bodies) {
        nasty.push({ method: op.method, path, headers: { ...auth(ws.tokens.owner), 'idempotency-key': randomUUID() }, body, op: `${op.method} ${op.path} (${label})` });
      }
      nasty.push({ method: op.method, path, headers: { authorization: `Bearer ${'x'.repeat(8000)}`, 'x-request-id': 'r'.repeat(8000) }, op: `${op.method} ${op.path} (huge headers)` });
      nasty.push({ method: op.method, path, headers: { ...auth(ws.tokens.owner), 'x-statusvane-workspace': '\u00ff'.repeat(100), 'idempotency-key': '' }, op: `${op.method} ${op.path} (bad workspace, empty key)` });
      nasty.push({ method: op.method, path, headers: { ...auth(ws.tokens.owner), 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: Buffer.from('not gzip'), op: `${op.method} ${op.path} (bad gzip)` });
      for (const m of ['PUT', 'TRACE', 'PROPFIND', 'PATCH', 'DELETE']) nasty.push({ method: m, path, headers: auth(ws.tokens.owner), op: `${op.method} ${op.path} (method ${m})` });
    }
    const failures = await runAll(nasty, ops);
    expect(failures).toEqual([]);
  }, 120_000);

  it(`answers ${RUNS} random requests with 4xx envelopes or valid 2xx, never a 5xx, and leaves no partial write`, async () => {
    const ops = operations();
    const arb = fc.oneof(...ops.map((op) => requestFor(op)));
    const reqs = fc.sample(arb, { numRuns: RUNS, seed: SEED });
    // Unknown routes under the API answer the same envelope.
    reqs.push(...fc.sample(fc.string({ maxLength: 30 }).map((s): Req => ({ method: 'GET', path: `/api/v1/${encodeURIComponent(s)}x/y`, headers: auth(ws.tokens.owner) })), { numRuns: 50, seed: SEED }));
    const vBefore = await workspaceSnapshot(other.ws.id);
    const [monitorsBefore, maintenanceBefore, pagesBefore] = await Promise.all([
      h.prisma.monitor.count({ where: { workspaceId: ws.ws.id } }),
      h.prisma.maintenanceWindow.count({ where: { workspaceId: ws.ws.id } }),
      h.prisma.statusPage.count({ where: { workspaceId: ws.ws.id } }),
    ]);

    const started = Date.now();
    const failures = await runAll(reqs, ops);
    if (failures.length) process.stderr.write(`bad-input fuzz: seed ${SEED} (FUZZ_SEED=${SEED} to replay), ${failures.length} failures\n`);
    expect({ seed: SEED, failures: failures.slice(0, 20) }).toEqual({ seed: SEED, failures: [] });
    expect(Date.now() - started).toBeLessThan(90_000);

    // No partial writes: every monitor has its component and its schedulers, every creation answered 201 is there
    // and nothing else, no safe-retry claim is left in flight or kept for a failure.
    const wsId = ws.ws.id;
    const [monitors, components, maintenance, pages] = await Promise.all([
      h.prisma.monitor.findMany({ where: { workspaceId: wsId }, select: { id: true, enabled: true, componentId: true, type: true } }),
      h.prisma.component.count({ where: { workspaceId: wsId } }),
      h.prisma.maintenanceWindow.count({ where: { workspaceId: wsId } }),
      h.prisma.statusPage.count({ where: { workspaceId: wsId } }),
    ]);
    expect(components).toBe(monitors.length);
    expect(monitors.length).toBe(monitorsBefore + created.monitors);
    expect(maintenance).toBe(maintenanceBefore + created.maintenance);
    expect(pages).toBe(pagesBefore + created.statusPages);
    const [foreignComponentLinks] = await h.prisma.$queryRaw<Array<{ n: number }>>`
      SELECT count(*)::int AS n FROM maintenance_components mc
      JOIN maintenance_windows w ON w.id = mc."maintenanceId" JOIN components c ON c.id = mc."componentId"
      WHERE w."workspaceId" <> c."workspaceId"`;
    expect(foreignComponentLinks!.n).toBe(0);
    const stuck = await h.prisma.idempotencyRecord.findMany({ where: { workspaceId: wsId, OR: [{ responseStatus: null }, { responseStatus: { lt: 200 } }, { responseStatus: { gte: 300 } }] } });
    expect(stuck).toEqual([]);
    const schedulers = (await h.deps.scheduler.listSchedulers()).get('local')!;
    for (const m of monitors) expect([m.id, schedulers.has(schedulerId(m.id, 'local'))]).toEqual([m.id, m.enabled]);

    // The other workspace: exactly as it was.
    expect(await workspaceSnapshot(other.ws.id)).toEqual(vBefore);
  }, 180_000);
});

async function workspaceSnapshot(workspaceId: string) {
  const [monitors, maintenance, pages, incidents] = await Promise.all([
    h.prisma.monitor.findMany({ where: { workspaceId }, orderBy: { id: 'asc' }, select: { id: true, name: true, enabled: true, updatedAt: true, headersEnc: true } }),
    h.prisma.maintenanceWindow.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
    h.prisma.statusPage.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
    h.prisma.incident.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
  ]);
  return { monitors, maintenance, pages, incidents };
}
