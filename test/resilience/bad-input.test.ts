/**
 * Bad input at scale: thousands of random and malformed requests (fast-check) against every declared operation
 * (routes/api-routes.ts, which the OpenAPI document describes), plus a fixed list of the nastiest inputs for each of
 * them. Every answer must be a 4xx with a valid error envelope (or a valid 2xx when the input happened to be valid), never a 5xx, and never a 2xx to a JSON
 * body that is not UTF-8; afterwards the database holds no partial write and the other workspace is untouched.
 * A second block does the same to the public, unauthenticated routes (heartbeat pings, status pages and their
 * login, the documents, health checks), enumerated from the routes the app really mounts.
 *
 * The requests are the same on every run: a fixed seed, FUZZ_SEED=<n> to try another (printed on failure);
 * FUZZ_RUNS changes the number of random requests.
 */
import { randomUUID } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import querystring from 'node:querystring';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createSsrfGuard } from '@statusvane/shared';
import { API_BASE, createApp } from '../../apps/api/src/app.js';
import { createApiServer } from '../../apps/api/src/http-server.js';
import { API_ROUTES } from '../../apps/api/src/routes/api-routes.js';
import { successStatus } from '../../apps/api/src/routes/define-route.js';
import { addMember, createToken, createUser } from '../../apps/api/src/admin/admin-commands.js';
import { setStatusPagePassword } from '../../apps/api/src/admin/status-page-commands.js';
import { ACCESS_COOKIE } from '../../apps/api/src/services/status-pages/page-access.js';
import { mountedRoutes } from '../support/express-routes.js';
import { makeHarness, makeWorkspace, uniq, type Harness } from '../support/harness.js';
import { scheduledRegions } from '../support/worker-harness.js';
import { brokenInvariants } from './support/invariants.js';
import { deleteKeys } from './support/processes.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
/** Fixed, so that a run is reproducible and a red build is not luck; FUZZ_SEED explores other requests. */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20_261_122;
if (!Number.isSafeInteger(SEED)) throw new Error(`FUZZ_SEED must be an integer, got ${process.env.FUZZ_SEED}`);
const CONCURRENCY = 8;

const CODE_FOR_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'invalid_request',
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
  /** The query parameters the operation declares (`metadata` stands for `metadata.<key>` / `metadata[<key>]`). */
  queryParams: string[];
}

/** Every declared operation (served by app.ts, described by the document): a new route is fuzzed as it is added. */
function operations(): Op[] {
  return API_ROUTES.map((r) => ({
    method: r.method.toUpperCase(),
    path: r.path,
    success: successStatus(r),
    hasBody: r.request?.body !== undefined,
    queryParams: Object.keys((r.request?.query as { shape?: object } | undefined)?.shape ?? {}),
  }));
}

let h: Harness;
let server: http.Server;
let base: { host: string; port: number };
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
const ids: { own: string[]; foreign: string[] } = { own: [], foreign: [] };
/** Components of each workspace (for componentIds). */
const componentIds: { own: string[]; foreign: string[] } = { own: [], foreign: [] };
let extraTokens: { personalTwoWorkspaces: string; oauth: string };
/** What the public routes can hit: heartbeat secrets of both workspaces and status pages of each kind. */
const pub = {
  secrets: [] as string[],
  publicSlugs: [] as string[],
  protectedSlug: '',
  privateSlug: '',
  password: 'correct horse battery staple',
};

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
  // The server main.ts builds, so that answers Node's parser would give bare are judged too.
  server = createApiServer(app).listen(0, '127.0.0.1');
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
      {
        name: 'seed http',
        target: 'https://93.184.215.14/health',
        method: 'POST',
        headers: { 'X-Api-Key': 'k' },
        body: '{}',
      },
      { type: 'tcp', name: 'seed tcp', target: '93.184.215.14:443' },
      { type: 'heartbeat', name: 'seed heartbeat' },
    ]) {
      list.push(
        (await send({ method: 'POST', path: '/api/v1/monitors', headers: auth(w.tokens.owner), body: json(body) })).body
          .data.id,
      );
    }
    list.push(
      (
        await send({
          method: 'POST',
          path: '/api/v1/maintenance',
          headers: auth(w.tokens.owner),
          body: json({ title: 'seed', startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-01T01:00:00Z' }),
        })
      ).body.data.id,
    );
    list.push(
      (
        await send({
          method: 'POST',
          path: '/api/v1/status-pages',
          headers: auth(w.tokens.owner),
          body: json({ vanityUrl: uniq('seed'), name: 'Seed' }),
        })
      ).body.data.id,
    );
    const components = await h.prisma.monitor.findMany({
      where: { workspaceId: w.ws.id },
      select: { componentId: true, pingSecret: true },
    });
    (w === ws ? componentIds.own : componentIds.foreign).push(...components.map((c) => c.componentId));
    pub.secrets.push(...components.flatMap((c) => (c.pingSecret ? [c.pingSecret] : [])));
    const monitorId = list[0]!;
    const incident = await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId,
        openMonitorId: monitorId,
        title: 'seed is down',
        status: 'open',
        impact: 'major',
        source: 'monitor',
      },
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

  // Status pages of every kind for the public routes: open (one per workspace), password-protected, not public.
  const pages = await h.prisma.statusPage.findMany({
    where: { workspaceId: { in: [ws.ws.id, other.ws.id] } },
    select: { slug: true },
  });
  pub.publicSlugs.push(...pages.map((p) => p.slug));
  const page = async (body: object) =>
    (await send({ method: 'POST', path: '/api/v1/status-pages', headers: auth(ws.tokens.owner), body: json(body) }))
      .body.data;
  const protectedPage = await page({ vanityUrl: uniq('locked'), name: 'Locked' });
  await setStatusPagePassword(
    h.prisma,
    { id: protectedPage.id, password: pub.password },
    { publicBaseUrl: h.config.publicBaseUrl },
  );
  pub.protectedSlug = protectedPage.slug;
  pub.privateSlug = (await page({ vanityUrl: uniq('hidden'), name: 'Hidden', isPublic: false })).slug;
  expect(pub.secrets).toHaveLength(2);
  expect([pub.publicSlugs.length, pub.protectedSlug, pub.privateSlug]).toEqual([
    2,
    expect.any(String),
    expect.any(String),
  ]);
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
  /** Public routes: what the generator aimed at, so the judge knows which answers are allowed. */
  aim?: PublicAim;
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

function send(req: Req, timeoutMs = 30_000): Promise<Res> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    if (req.body) headers['content-length'] = req.body.length;
    const r = http.request(
      { ...base, agent, method: req.method, path: req.path, headers, timeout: timeoutMs },
      (res) => {
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
      },
    );
    r.on('timeout', () => r.destroy(new Error('request timed out: the API hung')));
    r.on('error', reject);
    r.end(req.body);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Generating
// ---------------------------------------------------------------------------------------------------------------

const ASCII_PRINTABLE = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
/** Header values Node will send: printable ASCII, tab and latin-1. */
const headerValue = fc.oneof(
  ASCII_PRINTABLE,
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.integer({ min: 129, max: 8000 }).map((n) => 'h'.repeat(n)),
  fc.constant('\tx'),
);

/** A lone UTF-16 surrogate: JSON can carry it (`"\ud800"`), UTF-8 and PostgreSQL cannot. */
const LONE_SURROGATE = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
/** One unit of any text: any code point (controls, NUL and astral ones included), now and then a lone surrogate. */
const ANY_UNIT = fc.oneof(
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 4 },
  { arbitrary: LONE_SURROGATE, weight: 1 },
);
/** Text of every kind: ASCII, printable graphemes (emoji, combining marks, RTL), any code point, lone surrogates. */
function text(maxLength: number, minLength = 0): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ minLength, maxLength }),
    fc.string({ unit: 'grapheme', minLength, maxLength }),
    fc.string({ unit: 'binary', minLength, maxLength }),
    fc.string({ unit: ANY_UNIT, minLength, maxLength }),
  );
}

/** Percent-encodes bytes for a URL (everything but unreserved characters), so that any text or byte fits a path. */
function pct(value: string | Buffer): string {
  const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
  let out = '';
  for (const b of bytes)
    out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

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
  'a\udc00b',
  '\udbff\udbff',
  '\u202e',
  '\ufeff',
  '\uffff',
  '𝕏'.repeat(100),
  'x'.repeat(5000),
  [],
  {},
  [null],
  ['\ud800'],
  { '\ud800': '\udfff' },
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
  '00000000-0000-0000-0000-000000000000',
);
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.jsonValue({ maxDepth: 2, stringUnit: ANY_UNIT }),
  text(40),
  weird,
);

const MONITOR_FIELDS = [
  'type',
  'name',
  'target',
  'method',
  'intervalSeconds',
  'timeoutMs',
  'openThreshold',
  'resolveThreshold',
  'expectedStatusCodes',
  'keyword',
  'keywordAbsent',
  'degradedAfterMs',
  'latencyThresholdMs',
  'headers',
  'body',
  'contentType',
  'environment',
  'metadata',
  'jsonAssertion',
  'graceSeconds',
  'enabled',
];
const MAINTENANCE_FIELDS = ['title', 'body', 'startsAt', 'endsAt', 'componentIds', 'status'];
const STATUS_PAGE_FIELDS = ['vanityUrl', 'name', 'isPublic'];

const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/);
const monitorHeaders = fc.dictionary(headerName, fc.oneof(ASCII_PRINTABLE, text(40)), { maxKeys: 3 });
const metadata = fc.dictionary(text(64, 1), text(80), { maxKeys: 4 });
const jsonAssertion = fc.oneof(
  fc.record({
    path: fc.constantFrom('$.status', 'status', '$.a[0].b', '$["x y"]'),
    operator: fc.constantFrom('eq', 'neq', 'contains', 'notContains'),
    value: fc.oneof(text(40), fc.integer(), fc.boolean(), fc.constant(null)),
  }),
  fc.record({ path: fc.constant('$.n'), operator: fc.constantFrom('gt', 'gte', 'lt', 'lte'), value: fc.integer() }),
  fc.record({ path: fc.constant('$.x'), operator: fc.constantFrom('exists', 'notExists') }),
);

function validBodies(op: Op): fc.Arbitrary<Record<string, unknown>> {
  const name = text(40, 1);
  if (op.path === '/monitors' && op.method === 'POST') {
    return fc.oneof(
      fc.record({
        name,
        target: fc.constantFrom(
          'https://93.184.215.14/health',
          'http://93.184.215.14:8080/x?y=1',
          'https://example.invalid/',
        ),
        intervalSeconds: fc.integer({ min: 60, max: 86_400 }),
      }),
      fc.record({
        type: fc.constant('tcp'),
        name,
        target: fc.constantFrom('93.184.215.14:443', 'db.example.invalid:5432'),
      }),
      fc.record(
        { type: fc.constant('heartbeat'), name, graceSeconds: fc.integer({ min: 0, max: 86_400 }), metadata },
        { requiredKeys: ['type', 'name'] },
      ),
      fc.record({
        name,
        target: fc.constant('https://93.184.215.14/'),
        method: fc.constant('POST'),
        body: text(100),
        headers: monitorHeaders,
      }),
      // Every nested field at once: what the nested mutations below break.
      fc.record(
        {
          name,
          target: fc.constant('https://93.184.215.14/'),
          environment: text(20),
          metadata,
          headers: monitorHeaders,
          jsonAssertion,
          keyword: text(20, 1),
        },
        { requiredKeys: ['name', 'target'] },
      ),
    );
  }
  if (op.path === '/monitors/{id}') {
    return fc.oneof(
      fc.record({ name }),
      fc.record({ enabled: fc.boolean() }),
      fc.record({ intervalSeconds: fc.integer({ min: 60, max: 3600 }) }),
      fc.record({ keyword: fc.option(text(40)) }),
      fc.record({ headers: monitorHeaders, jsonAssertion: fc.option(jsonAssertion) }, { requiredKeys: [] }),
    );
  }
  const components = fc.array(
    fc.oneof(
      { arbitrary: fc.constantFrom(...componentIds.own), weight: 4 },
      { arbitrary: fc.constantFrom(...componentIds.foreign), weight: 1 },
      { arbitrary: fc.uuid(), weight: 1 },
    ),
    { maxLength: 4 },
  );
  if (op.path === '/maintenance') {
    return fc.record(
      {
        title: name,
        startsAt: fc.constant('2031-01-01T00:00:00Z'),
        endsAt: fc.constantFrom('2031-01-01T01:00:00Z', '2030-01-01T00:00:00+02:00'),
        body: text(100),
        componentIds: components,
      },
      { requiredKeys: ['title', 'startsAt', 'endsAt'] },
    );
  }
  if (op.path === '/maintenance/{id}') {
    return fc.oneof(
      fc.record({ title: name }),
      fc.record({ status: fc.constantFrom('start', 'complete', 'cancel', 'restart') }),
      fc.record({ endsAt: fc.constant('2031-06-01T00:00:00Z') }),
      fc.record({ componentIds: components }),
    );
  }
  if (op.path === '/status-pages') {
    return fc.record({ vanityUrl: fc.oneof(text(80), fc.constant(uniq('page'))), name, isPublic: fc.boolean() });
  }
  return fc.constant({});
}

function fieldsOf(op: Op): string[] {
  if (op.path.startsWith('/monitors')) return MONITOR_FIELDS;
  if (op.path.startsWith('/maintenance')) return MAINTENANCE_FIELDS;
  if (op.path.startsWith('/status-pages')) return STATUS_PAGE_FIELDS;
  return ['note', 'reason'];
}

const NESTED_FIELDS = ['metadata', 'headers', 'jsonAssertion', 'componentIds'];

/**
 * A valid body with one value INSIDE a nested field (metadata, headers, jsonAssertion, componentIds) replaced, added
 * or removed: what top-level mutations never reach (a value that passes the schema but not the database, a key
 * that is not text). The body is returned as is when it has no nested field.
 */
function nestedMutation(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      valid,
      fc.nat(),
      fc.oneof(text(30, 1), fc.constantFrom('__proto__', 'constructor', 'path', 'value', '0')),
      anyJson,
      fc.constantFrom('set', 'add', 'drop'),
    )
    .map(([body, pick, key, value, how]) => {
      const present = NESTED_FIELDS.filter((f) => body[f] !== null && typeof body[f] === 'object');
      if (present.length === 0) return body;
      const field = present[pick % present.length]!;
      const container = body[field] as Record<string, unknown> | unknown[];
      const copy: Record<string, unknown> | unknown[] = Array.isArray(container) ? [...container] : { ...container };
      const keys = Object.keys(copy);
      const target =
        how === 'add' || keys.length === 0
          ? Array.isArray(copy)
            ? String(copy.length)
            : key
          : keys[pick % keys.length]!;
      if (how === 'drop' && keys.length > 0) {
        if (Array.isArray(copy)) copy.splice(Number(target), 1);
        else delete copy[target];
      } else {
        Object.defineProperty(copy, target, { value, enumerable: true, configurable: true, writable: true });
      }
      return { ...body, [field]: copy };
    });
}

/** A body for `op`: valid, a valid one with one field (or one nested value) broken, random JSON, or bytes that are not JSON at all. */
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
  const nested = nestedMutation(valid).map(json);
  const random = fc.oneof(
    anyJson.map(json),
    fc.dictionary(fc.constantFrom(...fieldsOf(op)), anyJson, { maxKeys: 6 }).map(json),
  );
  const raw = fc
    .oneof(
      fc.constantFrom(
        deep(10_000, '{"a":', '}'),
        deep(10_000, '[', ']', ''),
        deep(40, '{"metadata":', '}'),
        `{"name":${deep(5000, '[', ']', '"x"')}}`,
      ),
      // Invalid UTF-8 inside an otherwise valid body: after the first quote (a key or a value), or in a nested value.
      fc.tuple(valid, fc.constantFrom(...INVALID_UTF8), fc.nat()).map(([v, bad, n]) => {
        const text = JSON.stringify(v);
        const quotes = [...text.matchAll(/"/g)].map((m) => m.index!);
        const at = quotes.length ? quotes[n % quotes.length]! + 1 : 1;
        return Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at))]);
      }),
      valid.map((v) => {
        const text = JSON.stringify(v);
        return Buffer.from(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
      }),
      fc.constantFrom(
        '',
        'null',
        '"str"',
        '123',
        '[]',
        '{',
        '{"a":1,}',
        "{'a':1}",
        '{"a":NaN}',
        '{"a":1e400}',
        '\ufeff{}',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"metadata":{"k":"\\udc00"}}',
      ),
      fc.integer({ min: 200_000, max: 300_000 }).map((n) => json({ name: 'x'.repeat(n) })),
      fc.string({ unit: 'binary', maxLength: 200 }),
    )
    .map((v) => (Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8')));
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 1 },
    { arbitrary: valid.map(json), weight: 4 },
    { arbitrary: mutated, weight: 5 },
    { arbitrary: nested, weight: 4 },
    { arbitrary: random, weight: 2 },
    { arbitrary: raw, weight: 3 },
  );
}

function idSegment(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...ids.own), weight: 6 },
    { arbitrary: fc.constantFrom(...ids.foreign), weight: 2 },
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: fc.constantFrom(...ids.own).map((id) => id.toUpperCase()), weight: 1 },
    { arbitrary: text(40).map(pct), weight: 2 },
    { arbitrary: fc.constantFrom(...INVALID_UTF8).map(pct), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '%00',
        '%ZZ',
        '%E0%A4%A',
        '..',
        '%2e%2e',
        '%2F',
        'x'.repeat(5000),
        '%F0%9F%98%80',
        '%ED%A0%80',
        '00000000-0000-0000-0000-000000000000',
        `{${randomUUID()}}`,
        '%20',
        '%09',
        '-1',
        '1e9',
      ),
      weight: 2,
    },
  );
}

function queryFor(): fc.Arbitrary<string> {
  const known = fc.dictionary(
    fc.constantFrom('page', 'perPage', 'period', 'region'),
    fc.oneof(
      fc.integer({ min: -5, max: 300 }).map(String),
      fc.constantFrom('hour', 'day', 'week', 'month', 'year', 'local', '', '1.5', 'NaN', '%00', 'x'.repeat(3000)),
      text(20),
    ),
    { maxKeys: 3 },
  );
  const random = fc.dictionary(text(10), text(20), { maxKeys: 3 });
  const odd = fc.constantFrom(
    'page=1&page=2',
    'page[a]=1',
    'page[]=1',
    '%ZZ=1',
    'a=%ZZ',
    '&&&',
    '=',
    'perPage=1e3',
    'period=%FF%FE',
    'region=%ED%A0%80',
    // One parameter twice, or one metadata key in both spellings: a 400 (the judge refuses a 2xx), never a pick.
    'status=up&status=down',
    'perPage=10&perPage=10',
    'metadata.env=a&metadata[env]=b',
    'metadata[env]=a&metadata%5Benv%5D=a',
    'q[]=a',
  );
  return fc
    .oneof(
      { arbitrary: fc.constant(null), weight: 4 },
      { arbitrary: known, weight: 3 },
      { arbitrary: random, weight: 1 },
      { arbitrary: odd, weight: 1 },
    )
    .map((q) => {
      if (q === null) return '';
      if (typeof q === 'string') return `?${q}`;
      const s = Object.entries(q)
        // Percent-escapes sent as they are (`%00`, `%ZZ`) when they are all there is; anything else encoded.
        .map(([k, v]) => `${pct(k)}=${/^%[0-9A-Z]{2}$/.test(v) ? v : pct(v)}`)
        .join('&');
      return s ? `?${s}` : '';
    });
}

function requestFor(op: Op): fc.Arbitrary<Req> {
  const tokens = fc.oneof(
    {
      arbitrary: fc.constantFrom(ws.tokens.owner, ws.tokens.admin, ws.tokens.member).map((t) => `Bearer ${t}`),
      weight: 12,
    },
    { arbitrary: fc.constant(`Bearer ${ws.tokens.viewer}`), weight: 2 },
    {
      arbitrary: fc
        .constantFrom(extraTokens.personalTwoWorkspaces, extraTokens.oauth, other.tokens.viewer)
        .map((t) => `Bearer ${t}`),
      weight: 2,
    },
    {
      arbitrary: fc.oneof(
        headerValue,
        headerValue.map((v) => `Bearer ${v}`),
        fc.constantFrom(
          'Bearer',
          'Bearer ',
          'Basic dXNlcjpwYXNz',
          `bearer ${ws.tokens.owner}`,
          `Bearer ${ws.tokens.owner} extra`,
          `Bearer svu_${ws.tokens.owner.slice(3)}`,
          `Bearer ${ws.tokens.owner.slice(0, -1)}`,
        ),
      ),
      weight: 2,
    },
    { arbitrary: fc.constant(null), weight: 1 },
  );
  const workspace = fc.oneof(
    { arbitrary: fc.constant(null), weight: 8 },
    {
      arbitrary: fc.oneof(
        headerValue,
        fc.constantFrom(ws.ws.slug, ws.ws.id, other.ws.slug, other.ws.id.toUpperCase(), 'x'.repeat(200)),
      ),
      weight: 2,
    },
  );
  const requestId = fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: headerValue, weight: 1 });
  const idemKey = fc.oneof(
    { arbitrary: fc.constant(null), weight: 6 },
    { arbitrary: fc.oneof(fc.uuid(), headerValue, fc.constant(''), fc.constant('k'.repeat(300))), weight: 2 },
  );
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        '',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/merge-patch+json',
        'application/xml',
        'garbage',
        'application/json; charset=utf-8',
      ),
      weight: 3,
    },
  );
  const encoding = fc.oneof(
    { arbitrary: fc.constant(null), weight: 10 },
    { arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'zz'), weight: 1 },
  );
  const method = fc.oneof(
    { arbitrary: fc.constant(op.method), weight: 8 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS'), weight: 2 },
  );
  return fc
    .record({
      method,
      id: idSegment(),
      query: queryFor(),
      auth: tokens,
      workspace,
      requestId,
      idemKey,
      contentType,
      encoding,
      body: bodyFor(op),
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      if (r.auth !== null) headers.authorization = r.auth;
      if (r.workspace !== null) headers['x-statusvane-workspace'] = r.workspace;
      if (r.requestId !== null) headers['x-request-id'] = r.requestId;
      if (r.idemKey !== null) headers['idempotency-key'] = r.idemKey;
      if (r.body) headers['content-type'] = r.contentType;
      if (r.encoding) headers['content-encoding'] = r.encoding;
      return {
        method: r.method,
        path: `/api/v1${op.path.replace('{id}', r.id)}${r.query}`,
        headers,
        body: r.body,
        op: `${op.method} ${op.path}`,
      };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// Judging
// ---------------------------------------------------------------------------------------------------------------

const created = { monitors: 0, maintenance: 0, statusPages: 0 };

const headerOf = (req: Req, name: string) => Object.entries(req.headers).find(([k]) => k.toLowerCase() === name)?.[1];

/**
 * A body the API reads as JSON (a JSON media type, no charset or UTF-8, not compressed) whose bytes are not UTF-8.
 * Read leniently it would turn into U+FFFD and be stored as something the client never sent: it must be refused.
 */
function isJsonBodyNotUtf8(req: Req): boolean {
  if (!req.body || req.body.length === 0 || isUtf8(req.body)) return false;
  const encoding = headerOf(req, 'content-encoding');
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return false;
  // send() adds application/json to a body sent without a Content-Type.
  const [type = '', ...params] = (headerOf(req, 'content-type') ?? 'application/json')
    .split(';')
    .map((x) => x.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[^/\s]+\+json$/.test(type)) return false;
  const charset = params
    .find((x) => x.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return charset === undefined || charset === 'utf-8';
}

/**
 * A head (request line and headers) over 16 KiB is refused by the HTTP server before the app sees it: 431, with the
 * envelope and a request id all the same (apps/api/src/http-server.ts). Undefined for any other answer.
 */
function oversizedHead(req: Req, res: Res): string | null | undefined {
  const headBytes = Object.entries(req.headers).reduce(
    (n, [k, v]) => n + k.length + v.length + 4,
    req.method.length + req.path.length + 11,
  );
  if (res.status !== 431 || headBytes <= 15 * 1024) return undefined;
  // The answer to a HEAD has the envelope's headers and no body.
  const enveloped =
    req.method === 'HEAD'
      ? res.text === '' && res.headers['content-type'] === 'application/json; charset=utf-8'
      : res.body?.error?.code === 'invalid_request';
  return enveloped && res.headers['x-request-id'] ? null : `431 without the envelope: ${res.text.slice(0, 200)}`;
}

/** Why an answer is wrong, or null. Also counts the creations a 201 reports. */
/**
 * Whether the query gives one parameter twice, or one metadata key in both spellings (`metadata.env`,
 * `metadata[env]`), as Express's simple query parser reads it: no operation takes that, so it is never a 2xx.
 */
function repeatsAParameter(path: string): boolean {
  const at = path.indexOf('?');
  if (at < 0) return false;
  const seen = new Set<string>();
  for (const [key, value] of Object.entries(querystring.parse(path.slice(at + 1)))) {
    if (Array.isArray(value)) return true;
    const meta = /^metadata(?:\.(.*)|\[(.*)\])$/s.exec(key);
    const name = meta ? `metadata:${meta[1] ?? meta[2]}` : key;
    if (seen.has(name)) return true;
    seen.add(name);
  }
  return false;
}

function judge(req: Req, res: Res, ops: Op[]): string | null {
  const head = oversizedHead(req, res);
  if (head !== undefined) return head;
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  if (!res.headers['x-request-id']) return 'no X-Request-Id';
  if (res.status < 300 && isJsonBodyNotUtf8(req)) return `${res.status} to a JSON body that is not UTF-8`;
  if (res.status >= 400) {
    const expected = CODE_FOR_STATUS[res.status];
    if (!expected) return `unexpected status ${res.status}`;
    const e = res.body?.error;
    if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || Object.keys(res.body).length !== 1)
      return `not an envelope: ${res.text.slice(0, 200)}`;
    if (e.code !== expected) return `code ${e.code} with status ${res.status}`;
    if (e.details !== undefined && (typeof e.details !== 'object' || e.details === null))
      return 'details is not an object';
    if (res.status === 401 && res.headers['www-authenticate'] !== 'Bearer')
      return '401 without WWW-Authenticate: Bearer';
    if (res.status === 405 && !res.headers.allow) return '405 without Allow';
    return null;
  }
  if (req.method === 'OPTIONS')
    return res.status === 200 || res.status === 204 ? null : `OPTIONS answered ${res.status}`;
  if (repeatsAParameter(req.path)) return `${res.status} to a query parameter given twice`;
  // Express routing is not strict: `/monitors/` is `/monitors`.
  const path = req.path
    .split('?')[0]!
    .replace(/^\/api\/v1/, '')
    .replace(/(.)\/+$/, '$1');
  const op = ops.find((o) => o.method === req.method && new RegExp(`^${o.path.replace('{id}', '[^/]+')}$`).test(path));
  if (!op) return `${res.status} for ${req.method} ${path}, which is no operation`;
  if (res.status !== op.success) return `${res.status} instead of ${op.success}`;
  if (res.status === 204) {
    // A DELETE that hit a real record (the seed records' ids are in the pool): it is gone, and that is right.
    if (req.method === 'DELETE' && op.path === '/monitors/{id}') created.monitors--;
    if (req.method === 'DELETE' && op.path === '/status-pages/{id}') created.statusPages--;
    if (req.method === 'DELETE' && op.path === '/maintenance/{id}') created.maintenance--;
    return res.text === '' ? null : '204 with a body';
  }
  if (!res.body || typeof res.body !== 'object' || !('data' in res.body))
    return `2xx without data: ${res.text.slice(0, 200)}`;
  // A document applied: what it created and pruned.
  if (op.path === '/config/apply') {
    for (const c of (res.body as { data: { changes: Array<{ action: string; resourceType: string }> } }).data.changes) {
      const step = c.action === 'create' ? 1 : c.action === 'delete' ? -1 : 0;
      if (c.resourceType === 'monitor') created.monitors += step;
      if (c.resourceType === 'status_page') created.statusPages += step;
    }
  }
  if (res.status === 201 && res.headers['idempotent-replayed'] !== 'true') {
    if (op.path === '/monitors') created.monitors++;
    if (op.path === '/maintenance') created.maintenance++;
    if (op.path === '/status-pages') created.statusPages++;
  }
  return null;
}

type Failure = { req: string; problem: string };

async function runAll(
  reqs: Req[],
  judgeOne: (req: Req, res: Res) => string | null,
  timeoutMs?: number,
): Promise<Failure[]> {
  const failures: Failure[] = [];
  let next = 0;
  const describeReq = (r: Req) =>
    `${r.op ?? ''} :: ${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers).slice(0, 300)} body=${r.body ? JSON.stringify(r.body.subarray(0, 200).toString('utf8')) : '-'}${r.body && r.body.length > 200 ? `...(${r.body.length} bytes)` : ''}`;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < reqs.length) {
        const req = reqs[next++]!;
        let problem: string | null;
        try {
          problem = judgeOne(req, await send(req, timeoutMs));
        } catch (err) {
          problem = `no answer: ${(err as Error).message}`;
        }
        if (problem) failures.push({ req: describeReq(req), problem });
      }
    }),
  );
  return failures;
}

/** The seed goes with every failure report, so a red run can be replayed exactly. */
function expectNoFailures(label: string, failures: Failure[]): void {
  if (failures.length)
    process.stderr.write(`${label}: seed ${SEED} (FUZZ_SEED=${SEED} to replay), ${failures.length} failures\n`);
  expect({ seed: SEED, failures: failures.slice(0, 20), count: failures.length }).toEqual({
    seed: SEED,
    failures: [],
    count: 0,
  });
}

// ---------------------------------------------------------------------------------------------------------------

/** A minimal valid body for an operation, for the fixed cases that hide one bad value in it. */
function validBase(op: Op): Record<string, unknown> | null {
  if (op.method === 'POST' && op.path === '/monitors') return { name: 'n', target: 'https://93.184.215.14/' };
  if (op.method === 'PATCH' && op.path === '/monitors/{id}') return { name: 'n' };
  if (op.method === 'POST' && op.path === '/maintenance')
    return { title: 't', startsAt: '2031-01-01T00:00:00Z', endsAt: '2031-01-01T01:00:00Z' };
  if (op.method === 'PATCH' && op.path === '/maintenance/{id}') return { title: 't' };
  if (op.method === 'POST' && op.path === '/status-pages') return { vanityUrl: uniq('nasty'), name: 'n' };
  if (op.method === 'POST' && op.path === '/escalation-policies')
    return { name: 'n', steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'a@example.test' }] }] };
  if (op.method === 'PATCH' && op.path === '/escalation-policies/{id}') return { name: 'n' };
  if (op.method === 'POST' && op.path === '/tokens') return { name: 'n', role: 'viewer' };
  if (op.method === 'POST' && op.path === '/members') return { email: `${uniq('m')}@example.test`, role: 'viewer' };
  return null;
}

/** Values that pass the schemas but not UTF-8 or PostgreSQL, placed where each operation accepts them. */
function hiddenBadValues(op: Op): Array<[string, Record<string, unknown>]> {
  const base = validBase(op);
  if (!base) return [];
  const lone = 'a\ud800b';
  const cases: Array<[string, Record<string, unknown>]> = [];
  if (op.path.startsWith('/monitors')) {
    if (op.method === 'POST') {
      cases.push(
        ['lone surrogate in a metadata value', { metadata: { k: lone } }],
        ['lone surrogate in a metadata key', { metadata: { [lone]: 'v' } }],
      );
    }
    cases.push(
      ['lone surrogate in a jsonAssertion value', { jsonAssertion: { path: '$.a', operator: 'eq', value: lone } }],
      ['lone surrogate in a jsonAssertion path', { jsonAssertion: { path: `$.${lone}`, operator: 'exists' } }],
      ['lone surrogate in a header value', { headers: { 'X-Key': lone } }],
      ['lone surrogate in a name', { name: lone }],
      ['lone surrogate in a keyword', { keyword: lone }],
    );
  }
  if (op.path.startsWith('/maintenance')) {
    cases.push(
      ['lone surrogate in a title', { title: lone }],
      ['lone surrogate in a body', { body: lone }],
      ['lone surrogate in componentIds', { componentIds: [lone] }],
    );
  }
  if (op.path.startsWith('/escalation-policies'))
    cases.push(['lone surrogate in a name', { name: lone }], ['lone surrogate in a runbook', { runbook: lone }]);
  if (op.path === '/tokens') cases.push(['lone surrogate in a name', { name: lone }]);
  if (op.path === '/members') cases.push(['lone surrogate in an email', { email: `${lone}@example.test` }]);
  if (op.path.startsWith('/status-pages'))
    cases.push(
      ['lone surrogate in a name', { name: lone }],
      ['lone surrogate in vanityUrl', { vanityUrl: `${uniq('p')}${lone}` }],
    );
  return cases.map(([label, extra]) => [label, { ...base, ...extra }]);
}

/** The first string value of a valid body with invalid UTF-8 bytes in the middle: everything else is fine. */
function validBodyWithInvalidUtf8(op: Op, bad: Buffer): Buffer | null {
  const base = validBase(op);
  if (!base) return null;
  const text = JSON.stringify(base);
  const at = text.indexOf('":"') + 3;
  return Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at))]);
}

describe('bad input at scale', () => {
  it('enumerates the declared operations', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(10);
    expect(ops.filter((o) => o.path.includes('{id}')).length).toBeGreaterThanOrEqual(5);
  });

  it('generates the same requests for the same seed, nested mutations and every kind of text included', () => {
    const ops = operations();
    const arb = fc.oneof(...ops.map((op) => requestFor(op)));
    const show = (reqs: Req[]) => reqs.map((r) => `${r.method} ${r.path} ${r.body?.toString('base64') ?? ''}`);
    // Enough samples that every kind shows up however many operations the walk spreads them over.
    const a = fc.sample(arb, { numRuns: 1000, seed: SEED });
    expect(show(fc.sample(arb, { numRuns: 1000, seed: SEED }))).toEqual(show(a));
    // The generators reach what they are meant to reach (not vacuous): nested fields, non-ASCII text, lone
    // surrogates inside nested values, invalid UTF-8 in JSON bodies.
    const bodies = a.flatMap((r) => (r.body ? [r.body.toString('utf8')] : []));
    expect(bodies.some((b) => /"metadata":\{"[^"]/.test(b))).toBe(true);
    expect(bodies.some((b) => /"jsonAssertion":\{/.test(b))).toBe(true);
    expect(bodies.some((b) => /"componentIds":\[/.test(b))).toBe(true);
    expect(bodies.some((b) => /[^\x00-\x7f]/.test(b))).toBe(true);
    expect(bodies.some((b) => /"(metadata|jsonAssertion|headers)":\{[^}]*\\ud[89ab]/.test(b))).toBe(true);
    expect(a.some((r) => isJsonBodyNotUtf8(r))).toBe(true);
  });

  it('answers the nastiest inputs to every operation with a 4xx envelope, never a 5xx', async () => {
    const ops = operations();
    const nasty: Req[] = [];
    const bodies: Array<[string, Buffer]> = [
      ['deep objects', Buffer.from(deep(10_000, '{"a":', '}'))],
      ['deep arrays', Buffer.from(deep(100_000, '[', ']', ''))],
      ['deep in a known field', Buffer.from(`{"name":"n","metadata":${deep(5000, '{"a":', '}', '"x"')}}`)],
      ['invalid UTF-8', Buffer.concat([Buffer.from('{"name":"'), ...INVALID_UTF8, Buffer.from('"}')])],
      [
        'NUL in a value',
        json({ name: 'a\u0000b', title: 'a\u0000b', vanityUrl: 'ab\u0000cd', target: 'https://93.184.215.14/\u0000' }),
      ],
      ['NUL in a key', Buffer.from('{"metadata":{"a\\u0000b":"c"},"name":"x","target":"https://93.184.215.14/"}')],
      ['huge string', json({ name: 'x'.repeat(200_000), title: 'x'.repeat(200_000) })],
      ['too large', json({ name: 'x'.repeat(300_000) })],
      [
        'wrong types everywhere',
        json(
          Object.fromEntries(
            [...MONITOR_FIELDS, ...MAINTENANCE_FIELDS, ...STATUS_PAGE_FIELDS].map((f) => [f, { nested: [f] }]),
          ),
        ),
      ],
      ['prototype keys', Buffer.from('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}},"name":"p"}')],
    ];
    for (const op of ops) {
      const path = `/api/v1${op.path.replace('{id}', ids.own[0]!)}`;
      const withKey = () => ({ ...auth(ws.tokens.owner), 'idempotency-key': randomUUID() });
      for (const [label, body] of bodies)
        nasty.push({ method: op.method, path, headers: withKey(), body, op: `${op.method} ${op.path} (${label})` });
      for (const [label, body] of hiddenBadValues(op))
        nasty.push({
          method: op.method,
          path,
          headers: withKey(),
          body: json(body),
          op: `${op.method} ${op.path} (${label})`,
        });
      for (const bad of INVALID_UTF8) {
        const body = validBodyWithInvalidUtf8(op, bad);
        if (body)
          nasty.push({
            method: op.method,
            path,
            headers: withKey(),
            body,
            op: `${op.method} ${op.path} (invalid UTF-8 ${bad.toString('hex')} in a valid body)`,
          });
      }
      nasty.push({
        method: op.method,
        path,
        headers: { authorization: `Bearer ${'x'.repeat(8000)}`, 'x-request-id': 'r'.repeat(8000) },
        op: `${op.method} ${op.path} (huge headers)`,
      });
      nasty.push({
        method: op.method,
        path,
        headers: { ...auth(ws.tokens.owner), 'x-statusvane-workspace': '\u00ff'.repeat(100), 'idempotency-key': '' },
        op: `${op.method} ${op.path} (bad workspace, empty key)`,
      });
      nasty.push({
        method: op.method,
        path,
        headers: { ...auth(ws.tokens.owner), 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: Buffer.from('not gzip'),
        op: `${op.method} ${op.path} (bad gzip)`,
      });
      for (const m of ['PUT', 'TRACE', 'PROPFIND', 'PATCH', 'DELETE'])
        nasty.push({ method: m, path, headers: auth(ws.tokens.owner), op: `${op.method} ${op.path} (method ${m})` });
    }
    const failures = await runAll(nasty, (req, res) => judge(req, res, ops));
    expect(failures).toEqual([]);
    expect(await brokenInvariants(h.prisma, { workspaceIds: [ws.ws.id, other.ws.id] })).toEqual({});
  }, 120_000);

  it('answers a query parameter given twice, bracketed, or a metadata key in both spellings with a 400 naming it', async () => {
    const ops = operations().filter((op) => op.queryParams.length > 0);
    // Every list operation declares some (pagination at least): a new one is covered as it is added.
    expect(ops.length).toBeGreaterThanOrEqual(10);
    const cases: Array<{ req: Req; param: string }> = [];
    for (const op of ops) {
      const path = `/api/v1${op.path.replace('{id}', ids.own[0]!)}`;
      const ask = (query: string, param: string) =>
        cases.push({ param, req: { method: op.method, path: `${path}?${query}`, headers: auth(ws.tokens.owner) } });
      for (const p of op.queryParams) {
        if (p === 'metadata') {
          ask('metadata.env=a&metadata[env]=b', 'metadata[env]');
          ask('metadata[env]=a&metadata.env=a', 'metadata.env');
          ask('metadata.env=a&metadata.env=b', 'metadata.env');
          ask('metadata[env]=a&metadata%5Benv%5D=a', 'metadata[env]');
        } else {
          // The same value twice too: a repeated parameter is refused, not collapsed.
          ask(`${p}=1&${p}=2`, p);
          ask(`${p}=1&${p}=1`, p);
          ask(`${p}[]=1`, `${p}[]`);
          ask(`${p}[a]=1`, `${p}[a]`);
        }
      }
    }
    const byReq = new Map(cases.map((c) => [c.req, c.param]));
    const failures = await runAll(
      cases.map((c) => c.req),
      (req, res) => {
        const param = byReq.get(req)!;
        if (res.status !== 400) return `${res.status} instead of 400: ${res.text.slice(0, 200)}`;
        const paths = ((res.body?.error?.details?.issues ?? []) as Array<{ path: string }>).map((i) => i.path);
        return paths.includes(param) ? null : `400 not naming ${param}: ${JSON.stringify(paths)}`;
      },
    );
    expect(failures).toEqual([]);
  });

  it(`answers ${RUNS} random requests with 4xx envelopes or valid 2xx, never a 5xx, and leaves no partial write`, async () => {
    const ops = operations();
    // The config operations are sampled on their own, after the others: adding operations to one sample would
    // reshuffle the requests every other operation gets.
    const isConfig = (op: Op) => op.path.startsWith('/config');
    const arb = fc.oneof(...ops.filter((op) => !isConfig(op)).map((op) => requestFor(op)));
    const reqs = fc.sample(arb, { numRuns: RUNS, seed: SEED });
    reqs.push(
      ...fc.sample(fc.oneof(...ops.filter(isConfig).map((op) => requestFor(op))), { numRuns: 300, seed: SEED }),
    );
    // Unknown routes under the API answer the same envelope.
    reqs.push(
      ...fc.sample(
        text(30).map((s): Req => ({ method: 'GET', path: `/api/v1/${pct(s)}x/y`, headers: auth(ws.tokens.owner) })),
        { numRuns: 50, seed: SEED },
      ),
    );
    const vBefore = await workspaceSnapshot(other.ws.id);
    // Counted from here (the tests above may have created or deleted some).
    Object.assign(created, { monitors: 0, maintenance: 0, statusPages: 0 });
    const [monitorsBefore, maintenanceBefore, pagesBefore] = await Promise.all([
      h.prisma.monitor.count({ where: { workspaceId: ws.ws.id } }),
      h.prisma.maintenanceWindow.count({ where: { workspaceId: ws.ws.id } }),
      h.prisma.statusPage.count({ where: { workspaceId: ws.ws.id } }),
    ]);

    // Only what this run creates and deletes (the earlier suites judge with the same counters).
    Object.assign(created, { monitors: 0, maintenance: 0, statusPages: 0 });
    // No wall-clock limit here (the suite's timeout bounds it): how fast the API answers is the bench's to measure.
    const failures = await runAll(reqs, (req, res) => judge(req, res, ops));
    expectNoFailures('bad-input fuzz', failures);

    // No partial writes: every monitor has its component and its schedulers, every creation answered 201 is there
    // and nothing else, no safe-retry claim is left in flight or kept for a failure.
    const wsId = ws.ws.id;
    const [monitors, components, maintenance, pages] = await Promise.all([
      h.prisma.monitor.findMany({
        where: { workspaceId: wsId },
        select: { id: true, enabled: true, componentId: true, type: true },
      }),
      h.prisma.component.count({ where: { workspaceId: wsId } }),
      h.prisma.maintenanceWindow.count({ where: { workspaceId: wsId } }),
      h.prisma.statusPage.count({ where: { workspaceId: wsId } }),
    ]);
    expect(components).toBe(monitors.length);
    expect(monitors.length).toBe(monitorsBefore + created.monitors);
    expect(maintenance).toBe(maintenanceBefore + created.maintenance);
    expect(pages).toBe(pagesBefore + created.statusPages);
    // Components of another workspace, orphans, incidents, flap state, safe-retry claims: support/invariants.ts.
    expect(await brokenInvariants(h.prisma, { workspaceIds: [ws.ws.id, other.ws.id] })).toEqual({});
    const stuck = await h.prisma.idempotencyRecord.findMany({
      where: {
        workspaceId: wsId,
        OR: [{ responseStatus: null }, { responseStatus: { lt: 200 } }, { responseStatus: { gte: 300 } }],
      },
    });
    expect(stuck).toEqual([]);
    // Scheduled: in a partition with its scheduler, read as a member by the partition's job (enabled only).
    for (const m of monitors) expect([m.id, (await scheduledRegions(h, m.id)).length > 0]).toEqual([m.id, m.enabled]);

    // The other workspace: exactly as it was.
    expect(await workspaceSnapshot(other.ws.id)).toEqual(vBefore);
  }, 180_000);
});

async function workspaceSnapshot(workspaceId: string) {
  const [monitors, maintenance, pages, incidents] = await Promise.all([
    h.prisma.monitor.findMany({
      where: { workspaceId },
      orderBy: { id: 'asc' },
      select: { id: true, name: true, enabled: true, updatedAt: true, headersEnc: true },
    }),
    h.prisma.maintenanceWindow.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
    h.prisma.statusPage.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
    h.prisma.incident.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
  ]);
  return { monitors, maintenance, pages, incidents };
}

// ---------------------------------------------------------------------------------------------------------------
// The public routes: no token, reachable by anyone
// ---------------------------------------------------------------------------------------------------------------

/** What a public request was aimed at, so that the judge knows which answers (and which state changes) are allowed. */
interface PublicAim {
  route: string;
  /** Heartbeat pings: the secret as the router will decode it, and whether a heartbeat monitor has it. */
  /** `fail`: the ping records a failure (`/fail`, `/1`..`/255`); `start`: a run's start (neither time changes). */
  secret?: { value: string | null; known: boolean; fail: boolean; start?: boolean };
  /** Status pages: what the slug names. */
  page?: 'public' | 'protected' | 'private' | 'unknown';
  /** Login: the right password of the protected page was sent, readable as a form. */
  rightPassword?: boolean;
  /** The console (/app): a page open to anyone, or one that needs a session (none of these requests has one). */
  console?: 'open' | 'signed-in';
}

const PUBLIC_RUNS = Math.max(200, Math.ceil(RUNS / 4));
/** A public request that takes longer than this has hung (the slowest, a login, runs scrypt once: ~0.1 s). */
const PUBLIC_TIMEOUT_MS = 10_000;
const PINGABLE = ['GET', 'HEAD', 'POST'];
const OTHER_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND'];

/** Every route the app mounts that is not an operation of the document: the public surface. */
function publicRoutes(): string[] {
  // A declared path also answers its other methods (405 with Allow): part of the API, not of the public surface.
  const documented = new Set(
    operations().flatMap((o) => [`${o.method} ${API_BASE}${o.path}`, `ALL ${API_BASE}${o.path}`]),
  );
  return [...new Set(mountedRoutes(h.app).map((r) => `${r.method} ${r.path}`))].filter((k) => !documented.has(k));
}

const decoded = (segment: string): string | null => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
};

function pageKind(segment: string): PublicAim['page'] {
  const slug = decoded(segment)?.toLowerCase();
  if (slug === undefined) return 'unknown';
  if (pub.publicSlugs.includes(slug)) return 'public';
  if (slug === pub.protectedSlug) return 'protected';
  if (slug === pub.privateSlug) return 'private';
  return 'unknown';
}

const publicMethod = (method: string) =>
  fc.oneof(
    { arbitrary: fc.constant(method), weight: 8 },
    { arbitrary: fc.constantFrom(...OTHER_METHODS, ...PINGABLE), weight: 2 },
  );
const publicQuery = fc.oneof(
  { arbitrary: fc.constant(''), weight: 5 },
  {
    arbitrary: fc.dictionary(text(10), text(30), { maxKeys: 3 }).map(
      (q) =>
        `?${Object.entries(q)
          .map(([k, v]) => `${pct(k)}=${pct(v)}`)
          .join('&')}`,
    ),
    weight: 1,
  },
  { arbitrary: fc.constantFrom('?%ZZ', '?a=%FF%FE', '?&&&=', `?x=${'y'.repeat(5000)}`, '?__proto__[x]=1'), weight: 1 },
);
/** Headers a browser, a crawler or an attacker might send to a public page. */
const publicHeaders = fc.record(
  {
    accept: fc.oneof(
      fc.constantFrom(
        'text/html',
        'application/json',
        '*/*',
        'application/json;q=0, text/html',
        'image/png',
        '',
        'application/*',
      ),
      headerValue,
    ),
    cookie: fc.oneof(
      fc.constantFrom(
        `${ACCESS_COOKIE}=x`,
        `${ACCESS_COOKIE}=${'a'.repeat(300)}.${'b'.repeat(43)}`,
        `${ACCESS_COOKIE}=%FF; ${ACCESS_COOKIE}=`,
        'a=b; c',
      ),
      headerValue,
    ),
    'if-none-match': fc.oneof(fc.constantFrom('*', '"x"', 'W/"y"', ''), headerValue),
    'x-forwarded-for': fc.oneof(fc.constantFrom('10.0.0.1', '1.1.1.1, 2.2.2.2', 'garbage'), headerValue),
    authorization: fc.oneof(fc.constantFrom('Bearer sv_xxxxxxxxxxxxxxxxxxxxxxxx', 'Basic Og=='), headerValue),
  },
  { requiredKeys: [] },
);
/** Most public requests carry no body; some carry any bytes with any type (none of these routes reads one but login). */
const publicBody = fc.oneof(
  { arbitrary: fc.constant(null), weight: 6 },
  {
    arbitrary: fc.record({
      type: fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/octet-stream',
        '',
      ),
      bytes: fc.oneof(
        text(200).map((t) => Buffer.from(t, 'utf8')),
        fc.constantFrom(...INVALID_UTF8),
        fc.constant(Buffer.alloc(300_000, 'x')),
      ),
    }),
    weight: 1,
  },
);

function publicRequest(
  route: string,
  path: fc.Arbitrary<{ path: string; aim: Omit<PublicAim, 'route'> }>,
  method: string,
): fc.Arbitrary<Req> {
  return fc
    .record({
      method: publicMethod(method),
      target: path,
      query: publicQuery,
      headers: publicHeaders,
      body: publicBody,
    })
    .map((r) => {
      const headers: Record<string, string> = { ...r.headers };
      if (r.body) headers['content-type'] = r.body.type;
      return {
        method: r.method,
        path: `${r.target.path}${r.query}`,
        headers,
        body: r.body?.bytes,
        op: route,
        aim: { route, ...r.target.aim },
      };
    });
}

/** A heartbeat secret segment: mostly unknown (well-formed or not), sometimes a real one, sometimes one just off it. */
/** `/ping/<secret>/<kind>` segments: the valid kinds (start, fail, exit codes 0..255) and ones that must be 404. */
const PING_KINDS: Record<string, 'ok' | 'fail' | 'start' | null> = {
  start: 'start',
  fail: 'fail',
  '0': 'ok',
  '1': 'fail',
  '17': 'fail',
  '255': 'fail',
  '256': null,
  '-1': null,
  '1000': null,
  log: null,
  START: null,
  '%20': null,
};

function secretSegment(withKind: boolean): fc.Arbitrary<{ path: string; aim: Omit<PublicAim, 'route'> }> {
  const aimFor = ([segment, kind]: [string, string | null]) => {
    const value = decoded(segment);
    const does = kind === null ? 'ok' : PING_KINDS[kind]!;
    return {
      path: `/ping/${segment}${kind === null ? '' : `/${kind}`}`,
      aim: {
        secret: {
          value,
          known: value !== null && pub.secrets.includes(value) && does !== null,
          fail: does === 'fail',
          start: does === 'start',
        },
      },
    };
  };
  const kinds = withKind ? fc.constantFrom(...Object.keys(PING_KINDS)) : fc.constant(null);
  return fc
    .oneof(
      { arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{16,64}$/), weight: 6 },
      { arbitrary: fc.constantFrom(...pub.secrets), weight: 2 },
      {
        arbitrary: fc
          .tuple(fc.constantFrom(...pub.secrets), fc.constantFrom('upper', 'longer', 'shorter', 'encoded'))
          .map(([s, how]) =>
            how === 'upper'
              ? s.toUpperCase()
              : how === 'longer'
                ? `${s}A`
                : how === 'shorter'
                  ? s.slice(1)
                  : pct(s).replace(/^./, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
          ),
        weight: 1,
      },
      {
        arbitrary: fc.oneof(
          text(80).map(pct),
          fc.constantFrom(...INVALID_UTF8).map(pct),
          fc.constantFrom('%00', '%ZZ', '..', '%2F', '%ED%A0%80', 'x'.repeat(5000), 'a'.repeat(65)),
        ),
        weight: 3,
      },
    )
    .chain((segment) => kinds.map((kind) => [segment, kind] as [string, string | null]))
    .map(aimFor);
}

function slugSegment(suffix: string): fc.Arbitrary<{ path: string; aim: Omit<PublicAim, 'route'> }> {
  return fc
    .oneof(
      { arbitrary: fc.constantFrom(...pub.publicSlugs, pub.protectedSlug, pub.privateSlug), weight: 6 },
      { arbitrary: fc.constantFrom(...pub.publicSlugs, pub.protectedSlug).map((s) => s.toUpperCase()), weight: 1 },
      {
        arbitrary: fc.oneof(
          text(80).map(pct),
          fc.constantFrom(...INVALID_UTF8).map(pct),
          fc.constantFrom('%00', '%ZZ', '..', '%2F', 'api', 'x'.repeat(5000), '-a-'),
        ),
        weight: 3,
      },
    )
    .map((segment) => ({ path: `/status/${segment}${suffix}`, aim: { page: pageKind(segment) } }));
}

/** Login forms: fine, wrong, huge, malformed, not UTF-8, not a form at all; the right password now and then. */
function loginRequest(route: string): fc.Arbitrary<Req> {
  const form = fc.oneof(
    { arbitrary: text(60).map((pw) => ({ body: Buffer.from(`password=${pct(pw)}`), right: false })), weight: 5 },
    { arbitrary: fc.constant({ body: Buffer.from(`password=${pct(pub.password)}`), right: true }), weight: 1 },
    {
      arbitrary: fc
        .integer({ min: 4_000, max: 300_000 })
        .map((n) => ({ body: Buffer.from(`password=${'x'.repeat(n)}`), right: false })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(
          'password=%ZZ',
          'password=%',
          '%%%',
          '&&&&',
          '=',
          'password',
          'password=a&password=b',
          'password[]=x',
          'a=1&'.repeat(20),
          'password=%ED%A0%80',
          '{"password":"x"}',
          '',
        )
        .map((b) => ({ body: Buffer.from(b), right: false })),
      weight: 2,
    },
    {
      arbitrary: fc
        .constantFrom(...INVALID_UTF8)
        .map((bad) => ({ body: Buffer.concat([Buffer.from('password='), bad]), right: false })),
      weight: 1,
    },
  );
  const type = fc.oneof(
    { arbitrary: fc.constant('application/x-www-form-urlencoded'), weight: 8 },
    {
      arbitrary: fc.constantFrom(
        '',
        'application/json',
        'multipart/form-data; boundary=x',
        'text/plain',
        'application/x-www-form-urlencoded; charset=utf-16',
        'application/x-www-form-urlencoded; charset=latin1',
        'application/x-www-form-urlencoded; charset=utf-8',
      ),
      weight: 2,
    },
  );
  const encoding = fc.oneof(
    { arbitrary: fc.constant(null), weight: 10 },
    { arbitrary: fc.constantFrom('gzip', 'identity', 'zz'), weight: 1 },
  );
  return fc
    .record({
      method: publicMethod('POST'),
      target: slugSegment('/login'),
      query: publicQuery,
      headers: publicHeaders,
      form,
      type,
      encoding,
    })
    .map((r) => {
      const headers: Record<string, string> = { ...r.headers, 'content-type': r.type };
      if (r.encoding) headers['content-encoding'] = r.encoding;
      const readable =
        r.type.startsWith('application/x-www-form-urlencoded') &&
        !r.type.includes('utf-16') &&
        (r.encoding === null || r.encoding === 'identity');
      return {
        method: r.method,
        path: `${r.target.path}${r.query}`,
        headers,
        body: r.form.body,
        op: route,
        aim: { route, ...r.target.aim, rightPassword: r.form.right && readable },
      };
    });
}

/** How to make requests for each public route. A route the app mounts without an entry here fails the suite. */
/** Path tails beside a page: feeds, badges, Statuspage JSON, subscriptions (tokens and component ids: any text). */
const tokenSegment = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{10,64}$/), weight: 4 },
  { arbitrary: fc.uuid(), weight: 2 },
  { arbitrary: fc.constantFrom('%00', '..', '%ZZ', 'x'.repeat(5000)), weight: 1 },
);
function pageTail(tail: string): fc.Arbitrary<{ path: string; aim: Omit<PublicAim, 'route'> }> {
  return fc.tuple(slugSegment(''), tokenSegment).map(([page, token]) => ({
    path: page.path + tail.replace(/\{(token|componentId|incidentId)\}/, token),
    aim: page.aim,
  }));
}
/** The same routes at the root, as a custom domain serves them: on this Host (no page's domain) nothing is found. */
function rootTail(tail: string): fc.Arbitrary<{ path: string; aim: Omit<PublicAim, 'route'> }> {
  return tokenSegment.map((token) => ({
    path: tail.replace(/\{(token|componentId|incidentId)\}/, token),
    aim: {},
  }));
}
const BESIDE_PAGE: Array<[method: string, tail: string]> = [
  ['GET', '/feed.atom'],
  ['GET', '/feed.rss'],
  ['GET', '/badge.svg'],
  ['GET', '/components/{componentId}/badge.svg'],
  ['GET', '/api/v2/summary.json'],
  ['GET', '/api/v2/status.json'],
  ['POST', '/subscribe'],
  ['GET', '/subscriptions/{token}/confirm'],
  ['POST', '/subscriptions/{token}/confirm'],
  ['GET', '/subscriptions/{token}/unsubscribe'],
  ['POST', '/subscriptions/{token}/unsubscribe'],
  ['GET', '/incidents/{incidentId}'],
  ['GET', '/history'],
  ['GET', '/brand.css'],
  ['GET', '/subscribe'],
];
const PAGE_TAIL_GENERATORS = Object.fromEntries(
  BESIDE_PAGE.flatMap(([method, tail]) => [
    [`${method} /status/{slug}${tail}`, (route: string) => publicRequest(route, pageTail(tail), method)],
    [`${method} ${tail}`, (route: string) => publicRequest(route, rootTail(tail), method)],
  ]),
);

/**
 * The console's routes (/app/...): any of them, its path parameters filled with real workspace slugs, reserved words
 * and noise. No request carries a session or a valid CSRF token, so a page that needs a session must not be shown,
 * and no write may succeed.
 */
const CONSOLE_OPEN = /^\/app\/(login|forgot|invite|assets)(\/|$)/;
function consoleRequest(route: string): fc.Arbitrary<Req> {
  const [method, template] = route.split(' ') as [string, string];
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const segment = (name: string) =>
    name === 'ws'
      ? fc.oneof(
          fc.constantFrom(ws.ws.slug, other.ws.slug, ws.ws.slug.toUpperCase(), 'login', 'w', 'assets', 'wall'),
          tokenSegment,
        )
      : tokenSegment;
  const target = fc.tuple(...names.map(segment)).map((values) => {
    let i = 0;
    return {
      path: template.replace(/\{\w+\}/g, () => values[i++]!),
      aim: { console: CONSOLE_OPEN.test(template) ? ('open' as const) : ('signed-in' as const) },
    };
  });
  // Half of them from the deployment's own origin: they get past the Origin check to the CSRF token's.
  return fc
    .tuple(publicRequest(route, target, method), fc.boolean())
    .map(([req, own]) =>
      own ? { ...req, headers: { ...req.headers, origin: new URL(h.config.publicBaseUrl).origin } } : req,
    );
}
/** Paths of fixed shape, one hostile segment filled in: `{}` in each template is a segment from `segment`. */
function filledPath(
  templates: readonly string[],
  segment: fc.Arbitrary<string>,
): fc.Arbitrary<{ path: string; aim: Omit<PublicAim, 'route'> }> {
  return fc
    .tuple(fc.constantFrom(...templates), segment, segment)
    .map(([t, a, b]) => ({ path: t.replace('{}', a).replace('{}', b), aim: {} }));
}
/** The documentation's pages: real ones, the wrong case, and noise (an unknown page falls through to 404). */
const docsPage = fc.oneof(
  { arbitrary: fc.constantFrom('reference', 'webhooks', 'monitors', 'maintenance', 'search', 'index'), weight: 3 },
  { arbitrary: fc.constantFrom('REFERENCE', 'x'.repeat(61), '..', '%2E%2E', '%00', '%ZZ', '-'), weight: 1 },
  { arbitrary: text(60).map(pct), weight: 2 },
);
/** An action link's verb: the two it takes, and ones it must refuse. */
const linkAction = fc.oneof(
  { arbitrary: fc.constantFrom('acknowledge', 'resolve'), weight: 3 },
  { arbitrary: fc.constantFrom('ACKNOWLEDGE', 'delete', '%00', '..', 'x'.repeat(5000)), weight: 1 },
  { arbitrary: text(30).map(pct), weight: 1 },
);
/** One-use acknowledge / resolve links of pages: unknown or malformed tokens, any verb (nothing may be acted on). */
const actionLink = (method: string) => (route: string) =>
  publicRequest(
    route,
    fc
      .tuple(fc.oneof(tokenSegment, text(80).map(pct)), linkAction)
      .map(([token, action]) => ({ path: `/a/${token}/${action}`, aim: {} })),
    method,
  );
/** Calendar feeds: `<token>.ics` with unknown or malformed tokens, and files that are no feed at all. */
const icalFile = fc.oneof(
  { arbitrary: tokenSegment.map((t) => `${t}.ics`), weight: 4 },
  { arbitrary: fc.constantFrom('.ics', '%00.ics', 'x.ICS', 'x.ics.ics', '..', '%2E%2E%2Fx.ics'), weight: 1 },
  { arbitrary: fc.oneof(tokenSegment, text(80).map(pct)), weight: 1 },
);

/** Fixed paths (their spellings), the method the route takes: the OAuth server's and the MCP server's endpoints. */
const fixedPaths =
  (method: string, ...paths: string[]) =>
  (route: string) =>
    publicRequest(
      route,
      fc.constantFrom(...paths).map((path) => ({ path, aim: {} })),
      method,
    );
/** OAuth authorize requests without a session: unknown clients, hostile redirect URIs and challenges. */
const authorizeQuery = filledPath(
  [
    '/oauth/authorize?client_id={}&redirect_uri={}',
    '/oauth/authorize?response_type=code&client_id={}&code_challenge={}&code_challenge_method=S256',
    '/oauth/authorize?response_type=code&client_id={}&code_challenge_method=plain&scope={}',
  ],
  fc.oneof(tokenSegment, text(100).map(pct)),
);

const generatorFor = (route: string) =>
  PUBLIC_GENERATORS[route] ?? (/^[A-Z]+ \/app(\/|$)/.test(route) ? consoleRequest : undefined);

const PUBLIC_GENERATORS: Record<string, (route: string) => fc.Arbitrary<Req>> = {
  ...PAGE_TAIL_GENERATORS,
  'GET /': (route) => publicRequest(route, fc.constant({ path: '/', aim: {} }), 'GET'),
  'POST /login': (route) => publicRequest(route, fc.constant({ path: '/login', aim: {} }), 'POST'),
  // The heartbeat receiver is one handler mounted at /ping (routes/ping/ping.router.ts): /<secret> and
  // /<secret>/<kind>, GET, HEAD and POST, each drawn as often as when they were six routes.
  'USE /ping': (route) =>
    fc.oneof(
      ...[false, true].flatMap((withKind) =>
        ['GET', 'HEAD', 'POST'].map((method) => publicRequest(route, secretSegment(withKind), method)),
      ),
    ),
  'GET /status/{slug}': (route) => publicRequest(route, slugSegment(''), 'GET'),
  'POST /status/{slug}/login': loginRequest,
  'GET /api/v1/openapi.json': (route) =>
    publicRequest(
      route,
      fc
        .constantFrom('/api/v1/openapi.json', '/api/v1/openapi.json/', '/API/V1/OPENAPI.JSON')
        .map((path) => ({ path, aim: {} })),
      'GET',
    ),
  'GET /docs': (route) =>
    publicRequest(
      route,
      fc.constantFrom('/docs', '/docs/', '/DOCS').map((path) => ({ path, aim: {} })),
      'GET',
    ),
  'GET /docs/search': (route) =>
    publicRequest(
      route,
      fc.oneof(
        fc.constantFrom('/docs/search', '/docs/search/', '/DOCS/SEARCH').map((path) => ({ path, aim: {} })),
        filledPath(['/docs/search?q={}', '/docs/search?q={}&q={}', '/docs/search?q[{}]={}'], text(200).map(pct)),
      ),
      'GET',
    ),
  'GET /docs/{page}': (route) => publicRequest(route, filledPath(['/docs/{}', '/docs/{}/'], docsPage), 'GET'),
  'GET /api/v1': (route) =>
    publicRequest(
      route,
      fc.constantFrom('/api/v1', '/api/v1/', '/API/V1').map((path) => ({ path, aim: {} })),
      'GET',
    ),
  'USE /a/{token}/{action}': actionLink('GET'),
  'GET /a/{token}/{action}': actionLink('GET'),
  'POST /a/{token}/{action}': actionLink('POST'),
  'GET /ical/{file}': (route) => publicRequest(route, filledPath(['/ical/{}'], icalFile), 'GET'),
  'GET /.well-known/oauth-authorization-server': fixedPaths(
    'GET',
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-authorization-server/x',
  ),
  'GET /.well-known/oauth-protected-resource/mcp': fixedPaths('GET', '/.well-known/oauth-protected-resource/mcp'),
  'GET /.well-known/oauth-protected-resource/api/v1': fixedPaths('GET', '/.well-known/oauth-protected-resource/api/v1'),
  'OPTIONS /oauth/register': fixedPaths('OPTIONS', '/oauth/register'),
  'OPTIONS /oauth/token': fixedPaths('OPTIONS', '/oauth/token'),
  'OPTIONS /oauth/revoke': fixedPaths('OPTIONS', '/oauth/revoke'),
  'POST /oauth/register': fixedPaths('POST', '/oauth/register', '/OAUTH/REGISTER'),
  'POST /oauth/token': fixedPaths('POST', '/oauth/token'),
  'POST /oauth/revoke': fixedPaths('POST', '/oauth/revoke'),
  'GET /oauth/authorize': (route) =>
    publicRequest(route, fc.oneof(fc.constant({ path: '/oauth/authorize', aim: {} }), authorizeQuery), 'GET'),
  'POST /oauth/authorize': fixedPaths('POST', '/oauth/authorize'),
  // Any method reaches the MCP server's one path; JSON-RPC goes by POST.
  'ALL /mcp': fixedPaths('POST', '/mcp', '/mcp/', '/MCP'),
  'GET /healthz': (route) => publicRequest(route, fc.constant({ path: '/healthz', aim: {} }), 'GET'),
  'GET /readyz': (route) => publicRequest(route, fc.constant({ path: '/readyz', aim: {} }), 'GET'),
};

/** Pings answered 200, per secret: the only state the public routes may change. */
const pinged = new Set<string>();

/** Why an answer of a public route is wrong, or null. */
function judgePublic(req: Req, res: Res): string | null {
  const head = oversizedHead(req, res);
  if (head !== undefined) return head;
  if (res.status >= 500) return `status ${res.status}: ${res.text.slice(0, 300)}`;
  if (!res.headers['x-request-id']) return 'no X-Request-Id';
  const aim = req.aim!;
  const method = req.method;
  // A conditional GET or HEAD (`If-None-Match: *` matches any representation) may be answered 304 for 200.
  const ok =
    res.status === 200 ||
    (res.status === 304 && (method === 'GET' || method === 'HEAD') && headerOf(req, 'if-none-match') !== undefined);
  if (aim.console) {
    if (method === 'POST' && res.status < 400) return `a console write without a CSRF token answered ${res.status}`;
    if (aim.console === 'signed-in' && res.status === 200) return 'a console page shown without a session';
    return null;
  }
  if (aim.secret) {
    // 200 means "recorded": exactly for a known secret, with a method the receiver takes.
    const pingable = PINGABLE.includes(method);
    if (pingable && aim.secret.known !== ok)
      return `ping ${aim.secret.known ? 'of a known secret' : 'of an unknown secret'} answered ${res.status}`;
    if (pingable && ok && !aim.secret.start) pinged.add(`${aim.secret.fail ? 'fail' : 'ok'}/${aim.secret.value}`);
    return null;
  }
  const cookie = ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith(`${ACCESS_COOKIE}=`));
  if (cookie && !(aim.page === 'protected' && aim.rightPassword)) return 'an access cookie without the right password';
  if (aim.page === 'private' || aim.page === 'unknown' || aim.page === 'protected') {
    // Nothing of a page that is not public, or protected (no request here carries a valid cookie), is shown.
    if (res.status >= 200 && res.status < 300 && method !== 'OPTIONS') return `${res.status} for a ${aim.page} page`;
    if (res.status === 303 && !(aim.page === 'protected' && aim.rightPassword))
      return `303 for a ${aim.page} page without the right password`;
  }
  if (aim.route === 'GET /status/{slug}' && aim.page === 'public' && (method === 'GET' || method === 'HEAD') && !ok)
    return `a public page answered ${res.status}`;
  if (
    [
      'GET /healthz',
      'GET /readyz',
      'GET /docs',
      'GET /docs/search',
      'GET /api/v1',
      'GET /api/v1/openapi.json',
    ].includes(aim.route) &&
    (method === 'GET' || method === 'HEAD') &&
    !ok
  ) {
    return `${aim.route} answered ${res.status}`;
  }
  return null;
}

/** Every row the public routes could touch, in both workspaces. */
async function publicState() {
  const workspaceId = { in: [ws.ws.id, other.ws.id] };
  const [monitors, components, pages, sections, maintenance, incidents, idempotency, tokens, results] =
    await Promise.all([
      h.prisma.monitor.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
      h.prisma.component.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
      h.prisma.statusPage.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
      h.prisma.statusPageSection.findMany({
        where: { statusPage: { workspaceId } },
        orderBy: { id: 'asc' },
        include: { components: true },
      }),
      h.prisma.maintenanceWindow.findMany({
        where: { workspaceId },
        orderBy: { id: 'asc' },
        include: { components: true },
      }),
      h.prisma.incident.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
      h.prisma.idempotencyRecord.findMany({ where: { workspaceId }, orderBy: { id: 'asc' } }),
      h.prisma.apiToken.findMany({
        where: { OR: [{ workspaceId }, { primaryWorkspaceId: workspaceId }] },
        orderBy: { id: 'asc' },
      }),
      h.prisma.checkResult.count({ where: { monitor: { workspaceId } } }),
    ]);
  return { monitors, components, pages, sections, maintenance, incidents, idempotency, tokens, results };
}

describe('bad input to the public routes (no token)', () => {
  it('has a generator for every public route the app mounts', () => {
    const routes = publicRoutes();
    // Not vacuous: the heartbeat receiver, the status pages and the documents are found by walking the app.
    expect(routes).toEqual(
      expect.arrayContaining(['USE /ping', 'POST /status/{slug}/login', 'GET /api/v1/openapi.json', 'GET /readyz']),
    );
    expect(routes.filter((r) => !generatorFor(r))).toEqual([]);
  });

  it(`answers ${PUBLIC_RUNS} random requests below 500 and in time, and changes nothing but the pings it accepted`, async () => {
    // The API fuzz above may have deleted a seed heartbeat (a DELETE with its id): known secrets are those still there.
    const live = await h.prisma.monitor.findMany({
      where: { pingSecret: { in: pub.secrets } },
      select: { pingSecret: true },
    });
    pub.secrets.splice(0, pub.secrets.length, ...live.map((m) => m.pingSecret!));
    // Likewise a seed page it deleted, renamed (slug), hid or locked is no longer an open page: aim only at those that are.
    const open = await h.prisma.statusPage.findMany({
      where: { slug: { in: pub.publicSlugs }, isPublic: true, passwordHash: null },
      select: { slug: true },
    });
    pub.publicSlugs.splice(0, pub.publicSlugs.length, ...open.map((p) => p.slug));
    expect(pub.publicSlugs.length).toBeGreaterThan(0);
    const routes = publicRoutes().filter((r) => generatorFor(r));
    // One request per route first (there are too many routes for a uniform draw to reach each of them), then the
    // random mix, where the console's many routes weigh less so that they do not crowd out the rest.
    const weighted = routes.map((r) => ({
      arbitrary: generatorFor(r)!(r),
      weight: r === 'USE /ping' ? 24 : PUBLIC_GENERATORS[r] ? 4 : 1,
    }));
    const reqs = [
      ...routes.flatMap((r, i) => fc.sample(generatorFor(r)!(r), { numRuns: 1, seed: SEED + i })),
      ...fc.sample(fc.oneof(...weighted), { numRuns: PUBLIC_RUNS, seed: SEED }),
      // A few logins with the right password, readable: a narrow target the mix reaches too rarely to count on.
      ...fc.sample(
        loginRequest('POST /status/{slug}/login').filter((r) => r.aim?.rightPassword === true),
        { numRuns: 3, seed: SEED },
      ),
    ];
    // Every route and every kind of target is really exercised (the weights make each near certain; the seed is fixed).
    expect(new Set(reqs.map((r) => r.op))).toEqual(new Set(routes));
    for (const kind of ['public', 'protected', 'private', 'unknown'])
      expect([kind, reqs.some((r) => r.aim?.page === kind)]).toEqual([kind, true]);
    expect(reqs.some((r) => r.aim?.secret?.known)).toBe(true);
    expect(reqs.some((r) => r.aim?.rightPassword)).toBe(true);

    const before = await publicState();
    const failures = await runAll(reqs, judgePublic, PUBLIC_TIMEOUT_MS);
    expectNoFailures('public-routes fuzz', failures);

    // Only the pings that were answered 200 changed anything: their monitors' lastPingAt / lastPingFailAt (and
    // run in progress), and their log.
    const after = await publicState();
    const pingFields = ['lastPingAt', 'lastPingFailAt', 'updatedAt'] as const;
    const mask = (state: typeof before) => ({
      ...state,
      monitors: state.monitors.map((m) => ({
        ...m,
        lastPingAt: null,
        lastPingFailAt: null,
        updatedAt: null,
        runStartedAt: null,
        runStartedRid: null,
        lastRunDurationMs: null,
      })),
    });
    const loggedPings = await h.prisma.heartbeatPing.count({
      where: { monitorId: { in: after.monitors.map((m) => m.id) } },
    });
    expect(loggedPings).toBe(reqs.filter((r) => r.aim?.secret?.known && PINGABLE.includes(r.method)).length);
    expect(mask(after)).toEqual(mask(before));
    for (const m of after.monitors) {
      const old = before.monitors.find((x) => x.id === m.id)!;
      const changed = Object.fromEntries(pingFields.map((f) => [f, old[f]?.getTime() !== m[f]?.getTime()]));
      const secret = m.pingSecret ?? '';
      expect({ id: m.id, lastPingAt: changed.lastPingAt, lastPingFailAt: changed.lastPingFailAt }).toEqual({
        id: m.id,
        lastPingAt: pinged.has(`ok/${secret}`),
        lastPingFailAt: pinged.has(`fail/${secret}`),
      });
    }
    expect(await brokenInvariants(h.prisma, { workspaceIds: [ws.ws.id, other.ws.id] })).toEqual({});
  }, 180_000);
});
