/**
 * Multi-step API checks and workspace secrets (spec section 9) against a small API on 127.0.0.1: login -> create ->
 * read -> delete, a failure in step 2 with its cleanup step, a missing extract, a secret kept to its allowedHosts and
 * out of results, events and the API, and an SSRF target reached through an extract refused when the step runs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { consoleBrowser, setUserPassword } from './support/console.js';
import { checkAt, startWorker, waitFor } from './support/worker-harness.js';

const PASSWORD = 'hunter2-Sup3rSecret-value';
const TOKEN = 'session-token-42';

/** What the API under test received, in order. */
interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

let h: Harness;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let server: http.Server;
let base: string;
const seen: Seen[] = [];
const items = new Map<string, { id: string; name: string }>();
let failCreates = false;

/** The API the checks exercise: login with a password, then items behind a bearer token. */
function startApi(): Promise<void> {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      seen.push({ method: req.method!, path: url.pathname, authorization: req.headers.authorization, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
        res.end(value === undefined ? '' : JSON.stringify(value));
      };
      const authed = req.headers.authorization === `Bearer ${TOKEN}`;
      if (url.pathname === '/login' && req.method === 'POST') {
        const sent = JSON.parse(body || '{}') as { password?: string };
        return sent.password === PASSWORD ? json(200, { token: TOKEN, user: { id: 7 } }) : json(401, { error: 'no' });
      }
      if (url.pathname === '/logout' && req.method === 'POST') return json(authed ? 204 : 401, undefined);
      if (url.pathname === '/next') return json(200, { next: 'http://10.20.30.40/internal' });
      if (!authed) return json(401, { error: 'unauthorized' });
      if (url.pathname === '/items' && req.method === 'POST') {
        if (failCreates) return json(500, { error: 'boom' });
        const id = `item-${items.size + 1}`;
        items.set(id, { id, name: (JSON.parse(body) as { name: string }).name });
        return json(201, items.get(id));
      }
      const m = /^\/items\/([\w-]+)$/.exec(url.pathname);
      if (m && req.method === 'GET') return items.has(m[1]!) ? json(200, items.get(m[1]!)) : json(404, {});
      if (m && req.method === 'DELETE') return items.delete(m[1]!) ? json(204, undefined) : json(404, {});
      json(404, {});
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve();
    }),
  );
}

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  w = await makeWorkspace(h.prisma);
  await startApi();
  const res = await request(h.app)
    .post('/api/v1/secrets')
    .set(bearer(w.tokens.admin))
    .send({ name: 'PASSWORD', value: PASSWORD, allowedHosts: ['127.0.0.1'] });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  server.close();
  await h.close();
});

const login = {
  name: 'login',
  method: 'POST',
  url: `{{base}}/login`,
  headers: { 'Content-Type': 'application/json' },
  body: '{"user":"probe","password":"{{secrets.PASSWORD}}"}',
  expectedStatusCodes: [200],
  extract: [{ as: 'token', from: 'json', path: '$.token' }],
};

/** A step as a test writes it (the API judges the rest). */
type Step = Record<string, unknown> & { name: string; headers?: Record<string, string>; body?: string };

/** The login -> create -> read -> delete flow, `base` filled in (the schema refuses an unknown template). */
function flow(): Step[] {
  return [
    { ...login, url: `${base}/login` },
    {
      name: 'create',
      method: 'POST',
      url: `${base}/items`,
      headers: { Authorization: 'Bearer {{token}}' },
      body: '{"name":"probe item"}',
      expectedStatusCodes: [201],
      assertions: [
        { source: 'json', property: '$.name', operator: 'eq', value: 'probe item' },
        { source: 'header', property: 'x-request-id', operator: 'matches', value: '^req-[0-9]+$' },
      ],
      extract: [{ as: 'itemId', from: 'json', path: '$.id' }],
      responseSchema: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'string' }, name: { type: 'string' } },
      },
    },
    {
      name: 'read',
      method: 'GET',
      url: `${base}/items/{{itemId}}`,
      headers: { Authorization: 'Bearer {{token}}' },
      assertions: [
        { source: 'status', operator: 'eq', value: 200 },
        { source: 'json', property: '$.id', operator: 'exists' },
        { source: 'responseMs', operator: 'lt', value: 5000 },
      ],
    },
    {
      name: 'delete',
      method: 'DELETE',
      url: `${base}/items/{{itemId}}`,
      headers: { Authorization: 'Bearer {{token}}' },
      expectedStatusCodes: [204],
      always: true,
    },
  ];
}

async function createApiMonitor(steps: unknown[], extra: Record<string, unknown> = {}) {
  const res = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.member))
    .send({ type: 'api', name: 'API flow', steps, ...extra });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; steps: Array<Record<string, unknown>> };
}

let slotSeq = 0;
const check = (monitorId: string) => checkAt(h, monitorId, new Date(Date.UTC(2031, 0, 1, 0, slotSeq++)));

const results = async (monitorId: string) =>
  (await request(h.app).get(`/api/v1/monitors/${monitorId}/results`).set(bearer(w.tokens.viewer))).body;

describe('api monitors', () => {
  it('runs login -> create -> read -> delete, and lists each step with the result', async () => {
    const monitor = await createApiMonitor(flow());
    // Step headers and bodies are write-only: names and presence only.
    expect(monitor.steps[0]).toMatchObject({ name: 'login', headerNames: ['Content-Type'], hasBody: true });
    expect(monitor.steps[0]).not.toHaveProperty('body');
    seen.length = 0;
    const result = await check(monitor.id);
    expect(result).toMatchObject({ outcome: 'up', reason: null, statusCode: 204 });
    expect(result.steps!.map((s) => [s.name, s.outcome, s.statusCode])).toEqual([
      ['login', 'passed', 200],
      ['create', 'passed', 201],
      ['read', 'passed', 200],
      ['delete', 'passed', 204],
    ]);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /login',
      'POST /items',
      'GET /items/item-1',
      'DELETE /items/item-1',
    ]);
    // The secret went to its allowed host, and the extract carried the token on.
    expect(seen[0]!.body).toContain(PASSWORD);
    expect(seen[1]!.authorization).toBe(`Bearer ${TOKEN}`);
    expect(items.size).toBe(0);

    const listed = await results(monitor.id);
    expect(listed.data[0].status).toBe('up');
    expect(listed.data[0].steps).toEqual([
      { name: 'login', outcome: 'passed', reason: null, statusCode: 200, responseMs: expect.any(Number) },
      { name: 'create', outcome: 'passed', reason: null, statusCode: 201, responseMs: expect.any(Number) },
      { name: 'read', outcome: 'passed', reason: null, statusCode: 200, responseMs: expect.any(Number) },
      { name: 'delete', outcome: 'passed', reason: null, statusCode: 204, responseMs: expect.any(Number) },
    ]);
  });

  it('reports a failure in step 2 and still runs the cleanup step, which never hides it', async () => {
    const steps = [
      { ...login, url: `${base}/login` },
      { ...flow()[1]!, name: 'create' },
      flow()[2]!,
      {
        name: 'logout',
        method: 'POST',
        url: `${base}/logout`,
        headers: { Authorization: 'Bearer {{token}}' },
        always: true,
        expectedStatusCodes: [200],
      },
    ];
    const monitor = await createApiMonitor(steps);
    failCreates = true;
    seen.length = 0;
    const result = await check(monitor.id).finally(() => (failCreates = false));
    expect(result.outcome).toBe('down');
    // The logout step failed too (it answers 204, not 200): step 2 is still the reason.
    expect(result.reason).toBe('step_failed: create: unexpected_status:500');
    expect(result.steps!.map((s) => [s.name, s.outcome, s.reason])).toEqual([
      ['login', 'passed', null],
      ['create', 'failed', 'unexpected_status:500'],
      ['read', 'skipped', null],
      ['logout', 'failed', 'unexpected_status:204'],
    ]);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /login', 'POST /items', 'POST /logout']);
  });

  it('fails clearly when an extract is missing, and skips a cleanup that needs it', async () => {
    const steps = flow();
    steps[0] = { ...steps[0]!, extract: [{ as: 'token', from: 'json', path: '$.session.token' }] };
    const monitor = await createApiMonitor(steps);
    const result = await check(monitor.id);
    expect(result.reason).toBe('step_failed: login: extract_missing: token: $.session.token not found in the response');
    expect(result.steps!.map((s) => s.outcome)).toEqual(['failed', 'skipped', 'skipped', 'skipped']);
    expect(result.steps![3]!.reason).toBe('extract_missing: {{itemId}} has no value');
  });

  it('refuses an SSRF target at run time, even when it comes from an extract', async () => {
    const monitor = await createApiMonitor([
      { ...login, url: `${base}/login` },
      {
        name: 'discover',
        method: 'GET',
        url: `${base}/next`,
        extract: [{ as: 'next', from: 'json', path: '$.next' }],
      },
      { name: 'follow', method: 'GET', url: '{{next}}', headers: { Authorization: 'Bearer {{token}}' } },
    ]);
    const result = await check(monitor.id);
    expect(result.reason).toBe('step_failed: follow: ssrf_blocked');
    expect(result.steps!.map((s) => s.outcome)).toEqual(['passed', 'passed', 'failed']);
  });

  it('never sends a secret to a host outside its allowedHosts', async () => {
    await request(h.app)
      .post('/api/v1/secrets')
      .set(bearer(w.tokens.owner))
      .send({ name: 'ELSEWHERE', value: 'elsewhere-value-123', allowedHosts: ['api.example.com'] })
      .expect(201);
    const monitor = await createApiMonitor([
      { name: 'leak', method: 'GET', url: `${base}/next`, headers: { 'X-Key': '{{secrets.ELSEWHERE}}' } },
    ]);
    seen.length = 0;
    const result = await check(monitor.id);
    expect(result.reason).toBe('step_failed: leak: secret_host_not_allowed: ELSEWHERE may not be sent to 127.0.0.1');
    expect(seen).toEqual([]);
  });

  it('bounds the whole run by timeoutMs', async () => {
    const hang = http.createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    const port = (hang.address() as AddressInfo).port;
    try {
      const monitor = await createApiMonitor(
        [
          { name: 'slow', method: 'GET', url: `http://127.0.0.1:${port}/` },
          { name: 'cleanup', method: 'GET', url: `${base}/next`, always: true },
        ],
        { timeoutMs: 1000 },
      );
      const started = Date.now();
      const result = await check(monitor.id);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(result.reason).toBe('step_failed: slow: timeout');
      expect(result.steps!.map((s) => s.outcome)).toEqual(['failed', 'skipped']);
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
  });
});

describe('api monitors in the worker runtime', () => {
  it('a failing run opens an incident and writes events like an http monitor, with no secret in them', async () => {
    const worker = startWorker(h);
    failCreates = true;
    try {
      const monitor = await createApiMonitor(flow(), { openThreshold: 1, confirmAfterSeconds: 0 });
      // The create queued the first check: the runtime's worker runs it through its one http probe.
      const incident = await waitFor(
        () => h.prisma.incident.findFirst({ where: { monitorId: monitor.id } }),
        20_000,
        'an incident',
      );
      expect(incident.title).toBeDefined();
      const done = await waitFor(
        async () =>
          worker.completed.find(
            (c) => (c.job.data as { monitorId: string }).monitorId === monitor.id && 'result' in c.outcome,
          ),
        10_000,
        'the completed check',
      );
      expect(done.outcome).toMatchObject({
        type: 'api',
        result: { outcome: 'down', reason: 'step_failed: create: unexpected_status:500' },
      });
      const events = await waitFor(
        async () => {
          const res = await request(h.app).get('/api/v1/events?limit=500').set(bearer(w.tokens.viewer));
          return JSON.stringify(res.body).includes(incident.id) ? res : null;
        },
        10_000,
        'the incident.opened event',
      );
      const opened = (events.body.data as Array<{ type: string }>).filter(
        (e) => e.type.endsWith('incident.opened') && JSON.stringify(e).includes(incident.id),
      );
      expect(opened).toHaveLength(1);
      expect(JSON.stringify(events.body)).not.toContain(PASSWORD);
    } finally {
      failCreates = false;
      await worker.close();
    }
  });
});

describe('writing api monitors', () => {
  const post = (body: object) => request(h.app).post('/api/v1/monitors').set(bearer(w.tokens.member)).send(body);

  it('refuses unknown template names, unknown secrets and a bad pattern at write time', async () => {
    const res = await post({
      type: 'api',
      name: 'bad',
      steps: [
        { name: 'a', method: 'GET', url: `${base}/x/{{nope}}` },
        { name: 'b', method: 'GET', url: `${base}/y`, headers: { 'X-K': '{{secrets.MISSING}}' } },
        {
          name: 'c',
          method: 'GET',
          url: `${base}/z`,
          assertions: [{ source: 'body', operator: 'matches', value: '(?=lookahead)' }],
          extract: [{ as: 'secrets', from: 'json', path: '$.a' }],
        },
      ],
    });
    expect(res.status).toBe(400);
    const paths = res.body.error.details.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(['steps[0].url', 'steps[2].assertions[0].value', 'steps[2].extract[0].as']),
    );
    expect(JSON.stringify(res.body)).toContain('{{nope}} is not extracted by an earlier step');
    // The secret is judged once the schema passes.
    const secretOnly = await post({
      type: 'api',
      name: 'bad',
      steps: [{ name: 'b', method: 'GET', url: `${base}/y`, headers: { 'X-K': '{{secrets.MISSING}}' } }],
    });
    expect(secretOnly.status).toBe(400);
    expect(JSON.stringify(secretOnly.body)).toContain('the workspace has no secret MISSING');
  });

  it('keeps step secrets sent back as "<redacted>" on PATCH', async () => {
    const monitor = await createApiMonitor(flow());
    const steps = flow().map((s) => ({
      ...s,
      ...(s.headers ? { headers: Object.fromEntries(Object.keys(s.headers).map((k) => [k, '<redacted>'])) } : {}),
      ...(s.body ? { body: '<redacted>' } : {}),
    }));
    const res = await request(h.app)
      .patch(`/api/v1/monitors/${monitor.id}`)
      .set(bearer(w.tokens.member))
      .send({ steps });
    expect(res.status).toBe(200);
    seen.length = 0;
    expect((await check(monitor.id)).outcome).toBe('up');
    expect(seen[0]!.body).toContain(PASSWORD);
  });
});

describe('workspace secrets', () => {
  it('lists names, hosts and usedBy; refuses to delete one in use; never answers a value', async () => {
    const monitor = await createApiMonitor(flow());
    const list = await request(h.app).get('/api/v1/secrets').set(bearer(w.tokens.viewer));
    expect(list.status).toBe(200);
    const password = list.body.data.find((s: { name: string }) => s.name === 'PASSWORD');
    expect(password).toMatchObject({ name: 'PASSWORD', allowedHosts: ['127.0.0.1'], version: 1 });
    expect(password.usedBy).toContain(monitor.id);
    const del = await request(h.app).delete('/api/v1/secrets/PASSWORD').set(bearer(w.tokens.admin));
    expect(del.status).toBe(409);
    expect(del.body.error.details.monitors).toContain(monitor.id);
    // A member may not manage secrets.
    const denied = await request(h.app)
      .put('/api/v1/secrets/PASSWORD')
      .set(bearer(w.tokens.member))
      .send({ value: 'x', allowedHosts: ['127.0.0.1'] });
    expect(denied.status).toBe(403);
    const dup = await request(h.app)
      .post('/api/v1/secrets')
      .set(bearer(w.tokens.admin))
      .send({ name: 'PASSWORD', value: 'other', allowedHosts: ['a.example'] });
    expect(dup.status).toBe(409);
  });

  it('replaces a value with PUT (audit redacted) and deletes an unused one', async () => {
    await request(h.app)
      .post('/api/v1/secrets')
      .set(bearer(w.tokens.admin))
      .send({ name: 'ROTATING', value: 'first-value-abc', allowedHosts: ['a.example'] })
      .expect(201);
    const put = await request(h.app)
      .put('/api/v1/secrets/rotating')
      .set(bearer(w.tokens.admin))
      .set('If-Match', '"1"')
      .send({ value: 'second-value-def', allowedHosts: ['b.example'] });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ name: 'ROTATING', allowedHosts: ['b.example'], version: 2 });
    const stale = await request(h.app)
      .put('/api/v1/secrets/ROTATING')
      .set(bearer(w.tokens.admin))
      .set('If-Match', '"1"')
      .send({ value: 'third', allowedHosts: ['b.example'] });
    expect(stale.status).toBe(412);
    const audit = await request(h.app).get('/api/v1/audit-events?resourceType=secret').set(bearer(w.tokens.admin));
    const updated = audit.body.data.find((e: { action: string }) => e.action === 'secret.updated');
    expect(updated.changes.value).toEqual({ from: '<redacted>', to: '<redacted>' });
    expect(JSON.stringify(audit.body)).not.toMatch(/first-value|second-value/);
    await request(h.app).delete('/api/v1/secrets/ROTATING').set(bearer(w.tokens.admin)).expect(204);
    await request(h.app).delete('/api/v1/secrets/ROTATING').set(bearer(w.tokens.admin)).expect(404);
  });

  it('keeps the value out of results, events, the monitor and the API', async () => {
    const monitor = await createApiMonitor([
      // The server echoes nothing, but the reason quotes the body sent back: a failing assertion on what it answered.
      { ...login, url: `${base}/login`, assertions: [{ source: 'body', operator: 'contains', value: 'nothing' }] },
    ]);
    await check(monitor.id);
    const answers = [
      await results(monitor.id),
      (await request(h.app).get(`/api/v1/monitors/${monitor.id}`).set(bearer(w.tokens.viewer))).body,
      (await request(h.app).get('/api/v1/events').set(bearer(w.tokens.viewer))).body,
      (await request(h.app).get('/api/v1/secrets').set(bearer(w.tokens.viewer))).body,
      (await request(h.app).get('/api/v1/config').set(bearer(w.tokens.viewer))).body,
      (await request(h.app).get('/api/v1/audit-events').set(bearer(w.tokens.admin))).body,
    ];
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(PASSWORD);
    const stored = await h.prisma.$queryRaw<Array<{ row: string }>>`
      SELECT row_to_json(r)::text AS row FROM check_results r WHERE "monitorId" = ${monitor.id}::uuid`;
    for (const { row } of stored) expect(row).not.toContain(PASSWORD);
    const secretRow = await h.prisma.workspaceSecret.findFirstOrThrow({ where: { workspaceId: w.ws.id } });
    expect(secretRow.valueEnc).not.toContain(PASSWORD);
    expect(secretRow.valueEnc.startsWith('v1:')).toBe(true);
  });
});

describe('responseSchema on http monitors', () => {
  it('fails a body that does not match with schema_mismatch: <instance path>: <message>', async () => {
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.member))
      .send({
        name: 'schema',
        target: `${base}/next`,
        responseSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { next: { type: 'integer' } },
        },
      });
    expect(res.status).toBe(201);
    expect(res.body.data.responseSchema).toMatchObject({ type: 'object' });
    const result = await check(res.body.data.id);
    expect(result.reason).toBe('schema_mismatch: /next: must be integer');
  });

  it('refuses a remote $ref and an unknown dialect', async () => {
    const res = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(w.tokens.member))
      .send({ name: 'schema', target: `${base}/next`, responseSchema: { $ref: 'https://example.com/s.json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues[0]).toMatchObject({ path: 'responseSchema' });
  });
});

describe('api monitors as code', () => {
  const config = (path: 'plan' | 'apply', doc: unknown) =>
    request(h.app)
      .post(`/api/v1/config/${path}`)
      .set(bearer(w.tokens.admin))
      .send(doc as object);
  const doc = (steps: Step[]) => ({ version: 1, monitors: [{ ref: 'flow.api', type: 'api', name: 'Flow', steps }] });

  it('applies an api monitor, exports its steps redacted, and plans the export back to no change', async () => {
    const applied = await config('apply', doc(flow()));
    expect(applied.status).toBe(200);
    expect(applied.body.data.summary).toMatchObject({ create: 1 });
    expect(JSON.stringify(applied.body)).not.toContain(PASSWORD);
    const id = applied.body.data.changes[0].id as string;
    seen.length = 0;
    expect((await check(id)).outcome).toBe('up');
    expect(seen[0]!.body).toContain(PASSWORD);

    const exported = await request(h.app).get('/api/v1/config').set(bearer(w.tokens.viewer));
    const entry = (exported.body.data.monitors as Array<{ ref: string; steps: Step[] }>).find(
      (m) => m.ref === 'flow.api',
    )!;
    expect(entry.steps[0]).toMatchObject({ headers: { 'Content-Type': '<redacted>' }, body: '<redacted>' });
    expect(JSON.stringify(exported.body)).not.toContain(PASSWORD);
    const back = await config('plan', { version: 1, monitors: [entry] });
    expect(back.status).toBe(200);
    expect(back.body.data.summary).toMatchObject({ create: 0, update: 0, noop: 1 });

    // A changed step is an update; its redacted header values stay as stored.
    const changed = entry.steps.map((s) => (s.name === 'read' ? { ...s, expectedStatusCodes: [200] } : s));
    const update = await config('apply', { version: 1, monitors: [{ ...entry, steps: changed }] });
    expect(update.body.data.summary).toMatchObject({ update: 1 });
    expect(update.body.data.changes[0].fields.steps.to[0].body).toBe('<redacted>');
    seen.length = 0;
    expect((await check(id)).outcome).toBe('up');
    expect(seen[0]!.body).toContain(PASSWORD);
  });

  it('refuses a step naming a secret the workspace does not have', async () => {
    const steps = flow();
    steps[0] = { ...steps[0]!, body: '{"password":"{{secrets.NOT_THERE}}"}' };
    const res = await config('plan', doc(steps));
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues).toEqual([
      expect.objectContaining({ path: 'monitors[0].steps', message: expect.stringContaining('NOT_THERE') }),
    ]);
  });
});

describe('api monitors in the console', () => {
  it('lists an api monitor with its steps in place of a target', async () => {
    const monitor = await createApiMonitor(flow());
    const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'viewer' }]);
    await setUserPassword(h.prisma, user.email, 'correct horse battery staple');
    const b = consoleBrowser(h);
    await b.signIn(user.email, 'correct horse battery staple');
    const page = await b.get(`/app/${w.ws.slug}/monitors?q=API%20flow`);
    expect(page.status).toBe(200);
    const row = new RegExp(`<tr id="monitor-${monitor.id}"[\\s\\S]*?</tr>`).exec(page.text)?.[0] ?? '';
    expect(row).toContain(`4 steps: POST ${base}/login`);
    expect(row).toContain('>API<');
    expect(page.text).not.toContain(PASSWORD);
  });
});
