import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  createDnsMonitorSchema,
  createApiMonitorSchema,
  createDomainMonitorSchema,
  createHeartbeatMonitorSchema,
  createHttpMonitorSchema,
  createMaintenanceSchema,
  createMonitorSchema,
  createStatusPageSchema,
  createTcpMonitorSchema,
  updateMaintenanceSchema,
  updateMonitorSchema,
} from '@statusvane/shared';
import {
  EVENT_TYPE_PREFIX,
  EVENT_TYPES,
  SIGNATURE_HEADER,
  verifyWebhookSignature,
  webhookSigningSecret,
} from '@statusvane/shared';
import { WEBHOOK_BODY_SCHEMAS } from '../apps/api/src/routes/docs/openapi-webhooks.js';
import { loadAssets } from '../apps/api/src/views/assets.js';
import { renderDocsIndex, renderDocsReference, renderDocsTag } from '../apps/api/src/views/docs/docs-pages.js';
import { deliverSubscriberMessage } from '../apps/worker/src/subscribers/deliver.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startTarget, type Target } from './support/targets.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The Endpoints table of management-api.md, plus the two incident actions. Written out by hand, not derived from
 * the document's own list, so the suite fails if the document loses an operation.
 */
const SPEC_ENDPOINTS: Array<[method: string, path: string]> = [
  ['post', '/maintenance'],
  ['get', '/maintenance'],
  ['get', '/maintenance/{id}'],
  ['patch', '/maintenance/{id}'],
  ['delete', '/maintenance/{id}'],
  ['post', '/monitors'],
  ['get', '/monitors'],
  ['get', '/monitors/counts'],
  ['get', '/monitors/{id}'],
  ['patch', '/monitors/{id}'],
  ['delete', '/monitors/{id}'],
  ['get', '/monitors/{id}/response-times'],
  ['get', '/components'],
  ['get', '/components/{id}'],
  ['patch', '/components/{id}'],
  ['get', '/monitors/{id}/pings'],
  ['post', '/status-pages'],
  ['get', '/status-pages'],
  ['get', '/status-pages/{id}'],
  ['patch', '/status-pages/{id}'],
  ['delete', '/status-pages/{id}'],
  ['get', '/status-pages/{id}/layout'],
  ['get', '/incidents'],
  ['get', '/incidents/{id}'],
  ['get', '/incidents/{id}/escalation'],
  ['delete', '/incidents/{id}'],
  ['post', '/incidents/{id}/acknowledge'],
  ['post', '/incidents/{id}/resolve'],
  ['post', '/incidents'],
  ['post', '/incidents/{id}/updates'],
  ['get', '/incidents/{id}/updates'],
  ['get', '/status-pages/{id}/subscribers'],
  ['delete', '/status-pages/{id}/subscribers/{subscriberId}'],
  ['get', '/escalation-policies'],
  ['post', '/escalation-policies'],
  ['get', '/escalation-policies/{id}'],
  ['patch', '/escalation-policies/{id}'],
  ['delete', '/escalation-policies/{id}'],
  ['post', '/config/plan'],
  ['post', '/config/apply'],
  ['get', '/config'],
  ['post', '/escalation-policies/{id}/test'],
  ['post', '/escalation-policies/signing-secret/reveal'],
  ['post', '/escalation-policies/signing-secret/rotate'],
  ['get', '/monitors/{id}/results'],
  ['get', '/tokens'],
  ['post', '/tokens'],
  ['delete', '/tokens/{id}'],
  ['get', '/wall-tokens'],
  ['post', '/wall-tokens'],
  ['delete', '/wall-tokens/{id}'],
  ['get', '/members'],
  ['post', '/members'],
  ['post', '/members/{userId}/invitation'],
  ['patch', '/members/{userId}'],
  ['delete', '/members/{userId}'],
  ['get', '/audit-events'],
  ['get', '/events'],
  ['post', '/webhooks'],
  ['get', '/webhooks'],
  ['get', '/webhooks/{id}'],
  ['patch', '/webhooks/{id}'],
  ['delete', '/webhooks/{id}'],
  ['get', '/webhooks/{id}/deliveries'],
  ['post', '/webhooks/{id}/replay'],
  // Section 10: on-call schedules, and the caller's own contact methods and calendar feed.
  ['post', '/schedules'],
  ['get', '/schedules'],
  ['get', '/schedules/{id}'],
  ['patch', '/schedules/{id}'],
  ['delete', '/schedules/{id}'],
  ['get', '/schedules/{id}/overrides'],
  ['post', '/schedules/{id}/overrides'],
  ['delete', '/schedules/{id}/overrides/{overrideId}'],
  ['get', '/schedules/{id}/oncall'],
  ['get', '/schedules/{id}/shifts'],
  ['get', '/oncall'],
  ['post', '/schedules/{id}/calendar-token'],
  ['delete', '/schedules/{id}/calendar-token'],
  ['get', '/me/contact-methods'],
  ['put', '/me/contact-methods'],
  ['post', '/me/calendar-token'],
  ['delete', '/me/calendar-token'],
  ['get', '/me/connected-apps'],
  ['delete', '/me/connected-apps/{id}'],
  ['post', '/secrets'],
  ['get', '/secrets'],
  ['put', '/secrets/{name}'],
  ['delete', '/secrets/{name}'],
  ['post', '/monitors/import/openapi'],
  ['get', '/settings/accounting'],
  ['put', '/settings/accounting'],
  ['get', '/monitors/{id}/uptime'],
  ['get', '/reports/uptime'],
  ['post', '/reports/uptime/send'],
];

/** The parsed document: read loosely, the assertions say what must be there. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document read loosely on purpose
type Json = Record<string, any>;

let h: Harness;
let doc: Json;
/** Receives the webhooks the suite has sent (escalation pages, subscriber messages). */
let rx: Target;
beforeAll(async () => {
  // Loopback targets allowed: the webhooks below are sent to a local receiver.
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  doc = (await request(h.app).get('/api/v1/openapi.json')).body as Json;
  rx = await startTarget();
});
afterAll(async () => {
  await rx?.close();
  await h.close();
});

const operations = () =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, op]) => ({ method, path, op: op as Json })),
  );

describe('GET /api/v1/openapi.json', () => {
  it('is public JSON, cacheable, with the usual transport headers', async () => {
    const res = await request(h.app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['cache-control']).toMatch(/public/);
    expect(res.body).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Statusvane Management API', version: '1.0.0' },
      security: [{ bearerAuth: [] }],
    });
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const prefix of ['sv_', 'svu_', 'mcp_at_'])
      expect(res.body.components.securitySchemes.bearerAuth.description).toContain(`\`${prefix}\``);

    const again = await request(h.app).get('/api/v1/openapi.json').set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
  });

  it('does not open the authenticated API', async () => {
    const res = await request(h.app).get('/api/v1/monitors');
    expect(res.status).toBe(401);
  });
});

/** Object keys sorted at every depth (array order kept): the fixture diffs line by line, whatever the build order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * The served document against the committed one (test/fixtures/openapi.json): a refactor must answer the same paths
 * and schemas. A deliberate change updates the fixture in the same commit, saying why in the commit body:
 * `UPDATE_OPENAPI_FIXTURE=1 npm test -- test/openapi.test.ts` rewrites it.
 */
describe('the document against its committed fixture', () => {
  const fixture = join(root, 'test/fixtures/openapi.json');

  it('is unchanged', async () => {
    const served = `${JSON.stringify(sortedKeys(doc), null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI_FIXTURE === '1') await writeFile(fixture, served);
    expect(served).toBe(await readFile(fixture, 'utf8'));
  });
});

describe('the document', () => {
  it('describes every operation of the spec, and nothing else', () => {
    const documented = operations()
      .map(({ method, path }) => `${method} ${path}`)
      .sort();
    expect(documented).toEqual(SPEC_ENDPOINTS.map(([m, p]) => `${m} ${p}`).sort());
  });

  it('gives every operation an id, a summary, a tag, the workspace header and the error responses', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      expect([where, typeof op.operationId]).toEqual([where, 'string']);
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      expect([where, Boolean(op.summary), op.tags?.length]).toEqual([where, true, 1]);
      const paramRefs = (op.parameters ?? []).map((p: Json) => p.$ref);
      // A person's own operations (`/me/...`) are the same in every workspace and do not read the header.
      const own = path.startsWith('/me/');
      expect([where, paramRefs.includes('#/components/parameters/WorkspaceHeader')]).toEqual([where, !own]);

      const codes = Object.keys(op.responses);
      expect([where, codes]).toEqual([where, expect.arrayContaining(['400', '401', '403', '429', '503'])]);
      if (path.includes('{id}')) {
        expect([where, codes]).toEqual([where, expect.arrayContaining(['404'])]);
        expect([where, paramRefs]).toEqual([where, expect.arrayContaining(['#/components/parameters/Id'])]);
      }
      for (const code of codes.filter((c) => c.startsWith('4') || c.startsWith('5'))) {
        const r = op.responses[code];
        const schema = r.$ref
          ? doc.components.responses[r.$ref.split('/').pop()].content['application/json'].schema
          : r.content['application/json'].schema;
        expect([where, code, schema]).toEqual([where, code, { $ref: '#/components/schemas/Error' }]);
      }
    }
    expect(doc.components.parameters.WorkspaceHeader).toMatchObject({
      name: 'X-Statusvane-Workspace',
      in: 'header',
      required: false,
    });
  });

  it('states the success codes of the decisions: 201 on create, 202 on a send, 204 without a body on delete, 200 otherwise', () => {
    for (const { method, path, op } of operations()) {
      const success = Object.keys(op.responses).filter((c) => c.startsWith('2'));
      const sends = method === 'post' && /\/send$/.test(path);
      const creates =
        method === 'post' &&
        !sends &&
        !/acknowledge|resolve|replay|reveal|invitation|\/test$|^\/config\/|\/import\//.test(path);
      expect([method, path, success]).toEqual([
        method,
        path,
        [creates ? '201' : sends ? '202' : method === 'delete' ? '204' : '200'],
      ]);
    }
    expect(doc.paths['/incidents/{id}'].delete.responses['204'].content).toBeUndefined();
    for (const action of ['acknowledge', 'resolve']) {
      expect(
        doc.paths[`/incidents/{id}/${action}`].post.responses['200'].content['application/json'].schema.properties.data,
      ).toEqual({
        $ref: '#/components/schemas/Incident',
      });
    }
  });

  it('documents If-Match and 412 on every PUT, PATCH and DELETE, and ETag on every answer that is one versioned record', () => {
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      const paramRefs = (op.parameters ?? []).map((p: Json) => p.$ref);
      // A person's own settings (`/me/...`) carry no version.
      const conditional = (method === 'put' || method === 'patch' || method === 'delete') && !path.startsWith('/me/');
      expect([where, paramRefs.includes('#/components/parameters/IfMatch')]).toEqual([where, conditional]);
      expect([where, op.responses['412']?.$ref]).toEqual([
        where,
        conditional ? '#/components/responses/PreconditionFailed' : undefined,
      ]);
      const [code, success] = Object.entries(op.responses as Json).find(([c]) => c.startsWith('2'))!;
      const data = success.content?.['application/json'].schema.properties?.data;
      const hasVersion = (schema: Json | undefined): boolean =>
        schema?.$ref
          ? hasVersion(doc.components.schemas[schema.$ref.split('/').pop()])
          : Boolean(schema?.properties?.version) || (schema?.allOf ?? []).some(hasVersion);
      const versioned = hasVersion(data);
      expect([where, code, Boolean(success.headers?.ETag)]).toEqual([where, code, versioned]);
    }
    for (const name of ['Monitor', 'Component', 'StatusPage', 'MaintenanceWindow', 'Incident', 'Subscriber', 'Webhook'])
      expect([name, doc.components.schemas[name].required]).toEqual([name, expect.arrayContaining(['version'])]);
    expect(doc.components.parameters.IfMatch).toMatchObject({ name: 'If-Match', in: 'header', required: false });
  });

  it('documents the safe-retry header on every POST that creates or sends, with 409 for a key in flight', () => {
    const creates = operations().filter(({ op }) => op.responses['201']);
    expect(creates.map(({ path }) => path).sort()).toEqual([
      '/escalation-policies',
      '/escalation-policies/signing-secret/rotate',
      '/incidents',
      '/incidents/{id}/updates',
      '/maintenance',
      '/me/calendar-token',
      '/members',
      '/monitors',
      '/schedules',
      '/schedules/{id}/calendar-token',
      '/schedules/{id}/overrides',
      '/secrets',
      '/status-pages',
      '/tokens',
      '/wall-tokens',
      '/webhooks',
    ]);
    for (const { method, path, op } of operations()) {
      const refs = (op.parameters ?? []).map((p: Json) => p.$ref);
      // `/me/calendar-token` makes a new feed URL each time (the last answered is the one that works), in no
      // workspace, where safe-retry answers are kept: it takes no Idempotency-Key (docs/decisions.md). An OpenAPI
      // import answers a plan (200) but creates monitors with `apply`: it takes the header too.
      const success =
        op.responses['201'] ??
        op.responses['202'] ??
        (path === '/monitors/import/openapi' ? op.responses['200'] : undefined);
      const idempotent = success !== undefined && !path.startsWith('/me/');
      expect([method, path, refs.includes('#/components/parameters/IdempotencyKey')]).toEqual([
        method,
        path,
        idempotent,
      ]);
      if (idempotent) {
        expect(op.responses['409']).toBeDefined();
        expect(success.headers['Idempotent-Replayed']).toBeDefined();
      }
    }
    const param = doc.components.parameters.IdempotencyKey;
    expect(param).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false, schema: { maxLength: 255 } });
    expect(param.description).toMatch(/Idempotent-Replayed: true/);
    expect(param.description).toMatch(/400/);
    expect(param.description).toMatch(/409/);
  });

  it('describes the rate-limit and request-id headers', () => {
    const ok = doc.paths['/monitors'].get.responses['200'].headers;
    expect(Object.keys(ok)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    expect(Object.keys(doc.components.responses.TooManyRequests.headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'X-Request-Id']),
    );
  });

  it('passes `redocly lint` (recommended rules) with no error and no warning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'statusvane-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc, null, 2));
      const cli = join(root, 'node_modules/@redocly/cli/bin/cli.js');
      const stdout = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          [cli, 'lint', file, '--format=json', `--config=${join(root, 'redocly.yaml')}`],
          {
            cwd: root,
            env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
            timeout: 60_000,
            maxBuffer: 16 * 1024 * 1024,
          },
          // Redocly exits non-zero when it finds errors; the JSON report on stdout says which.
          (err, out) => (out ? resolve(out) : reject(err ?? new Error('redocly printed nothing'))),
        );
      });
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
      };
      const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

/** A `$ref` of the document, followed. */
const resolve = (node: Json): Json => (node?.$ref ? resolve(at(node.$ref)) : node);
const at = (pointer: string): Json =>
  pointer
    .slice(2)
    .split('/')
    .reduce((node: Json, key) => node[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

describe('the document says what the API does', () => {
  it('declares 304 and If-None-Match on every GET (and HEAD) that answers an ETag, and nowhere else', () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of ['get', 'head', 'post', 'patch', 'delete']) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const success = Object.entries(op.responses as Json).find(([c]) => c.startsWith('2'))![1] as Json;
        const revalidates = (method === 'get' || method === 'head') && Boolean(success.headers?.ETag);
        const params = (op.parameters ?? []).map((p: Json) => p.$ref);
        expect([
          method,
          path,
          op.responses['304']?.$ref,
          params.includes('#/components/parameters/IfNoneMatch'),
        ]).toEqual([method, path, revalidates ? '#/components/responses/NotModified' : undefined, revalidates]);
      }
    }
    const notModified = doc.components.responses.NotModified;
    expect([notModified.content, Object.keys(notModified.headers)]).toEqual([
      undefined,
      expect.arrayContaining(['ETag']),
    ]);
    expect(doc.components.parameters.IfNoneMatch).toMatchObject({ name: 'If-None-Match', in: 'header' });
  });

  it('declares 413 and 405 (with Allow) on every operation: any body sent is read, and a path refuses other methods', () => {
    for (const { method, path, op } of operations()) {
      expect([method, path, op.responses['413']?.$ref, op.responses['405']?.$ref]).toEqual([
        method,
        path,
        '#/components/responses/PayloadTooLarge',
        '#/components/responses/MethodNotAllowed',
      ]);
    }
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toEqual({ $ref: '#/components/headers/Allow' });
  });

  it('declares HEAD on every GET path: the same parameters and answers as the GET, none with a body, never 405', () => {
    const gets = operations().filter(({ method }) => method === 'get');
    expect(gets.length).toBeGreaterThan(20);
    for (const { path, op } of gets) {
      const head = doc.paths[path].head as Json | undefined;
      expect([path, head?.operationId]).toEqual([path, `${op.operationId}Head`]);
      expect([path, head!.parameters]).toEqual([path, op.parameters]);
      const codes = Object.keys(op.responses).filter((c) => c !== '405');
      expect([path, Object.keys(head!.responses)]).toEqual([path, codes]);
      for (const [code, r] of Object.entries(head!.responses as Json))
        expect([path, code, resolve(r).content]).toEqual([path, code, undefined]);
    }
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>))
      expect([path, Boolean(item.head)]).toEqual([path, Boolean(item.get)]);
  });

  it('types the data of every event type, as GET /events lists them and the event webhooks deliver them', () => {
    const schemas = doc.components.schemas as Json;
    const page = schemas.EventPage.properties.data.items;
    expect(page).toEqual({ $ref: '#/components/schemas/Event' });
    const variants = (schemas.Event.oneOf as Json[]).map((v) => resolve(v));
    expect(
      variants
        .map((v) => v.properties.type.enum)
        .flat()
        .sort(),
    ).toEqual(EVENT_TYPES.map((t) => `${EVENT_TYPE_PREFIX}${t}`).sort());
    for (const type of EVENT_TYPES) {
      const variant = variants.find((v) => v.properties.type.enum[0] === `${EVENT_TYPE_PREFIX}${type}`)!;
      const data = variant.properties.data as Json;
      // Each type says what its data holds: an object with named, required properties (not a bag of anything).
      expect([type, data.type, Object.keys(data.properties ?? {}).length > 0, data.required?.length > 0]).toEqual([
        type,
        'object',
        true,
        true,
      ]);
      const hook = doc.webhooks[type].post as Json;
      expect([type, hook.requestBody.content['application/cloudevents+json'].schema]).toEqual([
        type,
        {
          $ref: `#/components/schemas/${schemas.Event.discriminator.mapping[`${EVENT_TYPE_PREFIX}${type}`].split('/').pop()}`,
        },
      ]);
      const headers = (hook.parameters as Json[]).filter((p) => p.in === 'header').map((p) => p.name);
      expect([type, headers]).toEqual([type, [SIGNATURE_HEADER, 'Statusvane-Delivery']]);
      expect([type, Object.keys(hook.responses)]).toEqual([type, ['2XX', '4XX', '5XX']]);
    }
    const monitorData = (t: string) =>
      resolve(variants.find((v) => v.properties.type.enum[0] === `${EVENT_TYPE_PREFIX}${t}`)!.properties.data);
    expect(monitorData('monitor.created').properties.monitor).toEqual({ $ref: '#/components/schemas/EventMonitor' });
    expect(Object.keys(monitorData('monitor.status_changed').properties).sort()).toEqual([
      'checkedAt',
      'monitor',
      'previousStatus',
      'status',
    ]);
    expect(Object.keys(monitorData('incident.updated').properties).sort()).toEqual(['incident', 'update']);
  });

  it('declares the escalation and status page subscriber webhooks, signed', () => {
    for (const name of ['escalation', 'status-page-subscriber']) {
      const hook = doc.webhooks[name].post as Json;
      const schema = resolve(hook.requestBody.content['application/json'].schema);
      expect([name, (schema.oneOf as Json[]).length]).toEqual([name, 2]);
      expect([name, (hook.parameters as Json[]).map((p) => p.name)]).toEqual([
        name,
        [SIGNATURE_HEADER, 'Statusvane-Delivery'],
      ]);
    }
  });

  it('documents the public page JSON as it is answered: wrapped in `data`', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(tokens.owner))
      .send({ vanityUrl: uniq('doc'), name: 'Documented', isPublic: true });
    expect(created.status).toBe(201);
    const res = await request(h.app).get(`/status/${created.body.data.slug}`).set('Accept', 'application/json');
    expect([res.status, Object.keys(res.body)]).toEqual([200, ['data']]);
    const documented = /`\{ "data": \{ ([a-zA-Z, ]+) \} \}`/.exec(doc.info.description)?.[1]?.split(', ');
    expect(documented?.sort()).toEqual(Object.keys(res.body.data).sort());
  });
});

describe('the webhooks as sent', () => {
  const received = (marker: string) => rx.requests.filter((r) => r.path.includes(marker));

  it('an escalation page is what the document says, signed with the workspace secret', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const marker = uniq('page');
    const policy = await request(h.app)
      .post('/api/v1/escalation-policies')
      .set(bearer(tokens.owner))
      .send({
        name: 'Hook',
        steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: rx.url(`/status/200?${marker}`) }] }],
      });
    expect(policy.status).toBe(201);
    const tested = await request(h.app)
      .post(`/api/v1/escalation-policies/${policy.body.data.id}/test`)
      .set(bearer(tokens.owner));
    expect([tested.status, tested.body.data[0]?.ok]).toEqual([200, true]);
    const [page] = received(marker);
    expect(page!.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(page!.body) as unknown;
    const parsed = WEBHOOK_BODY_SCHEMAS.escalation.safeParse(body);
    expect(parsed.error).toBeUndefined();
    // Nothing the document leaves out (parsing drops unknown keys).
    expect(parsed.data).toEqual(body);
    expect(parsed.data).toMatchObject({ type: 'incident.escalation', test: true });
    expect(page!.headers['statusvane-delivery']).toBe((parsed.data as { deliveryId: string }).deliveryId);
    const secret = webhookSigningSecret(h.config.encryption.current.key, ws.id);
    expect(verifyWebhookSignature(secret, String(page!.headers['statusvane-signature']), page!.body)).toBe(true);
  });

  it('status page subscriber messages are what the document says, signed with the subscriber secret', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const page = (
      await request(h.app)
        .post('/api/v1/status-pages')
        .set(bearer(tokens.owner))
        .send({ vanityUrl: uniq('subs'), name: 'Subscribed', isPublic: true })
    ).body.data as { slug: string };
    const marker = uniq('sub');
    const subscribed = await request(h.app)
      .post(`/status/${page.slug}/subscribe`)
      .send({ webhookUrl: rx.url(`/status/200?${marker}`) });
    expect(subscribed.status).toBe(202);
    const { id: subscriberId, secret } = subscribed.body.data as { id: string; secret: string };
    const incident = await request(h.app)
      .post('/api/v1/incidents')
      .set(bearer(tokens.owner))
      .send({ title: 'Slow checkout', message: 'Looking' });
    const update = await request(h.app)
      .post(`/api/v1/incidents/${incident.body.data.id}/updates`)
      .set(bearer(tokens.owner))
      .send({ status: 'identified', message: 'Found it' });
    const window = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(tokens.owner))
      .send({ title: 'Upgrade', startsAt: '2031-01-01T00:00:00Z', endsAt: '2031-01-01T01:00:00Z' });
    const keys = [
      `incident:${incident.body.data.id}:opened`,
      `update:${update.body.data.id}`,
      `maintenance:${window.body.data.id}:scheduled`,
    ];
    const deps = {
      prisma: h.prisma,
      keyring: h.config.encryption,
      guard: h.deps.guard,
      email: null,
      publicBaseUrl: h.config.publicBaseUrl,
    };
    for (const eventKey of keys) {
      const row = await h.prisma.subscriberDelivery.create({ data: { subscriberId, eventKey } });
      expect(await deliverSubscriberMessage(deps, row.id, { finalAttempt: true })).toEqual({ outcome: 'sent' });
    }
    const bodies = received(marker);
    expect(bodies.map((b) => JSON.parse(b.body).type)).toEqual([
      'incident.opened',
      'incident.updated',
      'maintenance.scheduled',
    ]);
    for (const b of bodies) {
      const body = JSON.parse(b.body) as unknown;
      const parsed = WEBHOOK_BODY_SCHEMAS.subscriber.safeParse(body);
      expect([parsed.error, parsed.data]).toEqual([undefined, body]);
      expect(verifyWebhookSignature(secret, String(b.headers['statusvane-signature']), b.body)).toBe(true);
    }
  });
});

describe('the create-monitor schema agrees with the validator', () => {
  const schemas = () => doc.components.schemas as Json;

  it('is one of the six types, the http one with `type` optional and defaulting to http, as the validator reads it', () => {
    const union = schemas().CreateMonitorInput;
    expect(union.anyOf).toEqual([
      { $ref: '#/components/schemas/CreateHttpMonitorInput' },
      { $ref: '#/components/schemas/CreateTcpMonitorInput' },
      { $ref: '#/components/schemas/CreateHeartbeatMonitorInput' },
      { $ref: '#/components/schemas/CreateDnsMonitorInput' },
      { $ref: '#/components/schemas/CreateApiMonitorInput' },
      { $ref: '#/components/schemas/CreateDomainMonitorInput' },
    ]);
    const http = schemas().CreateHttpMonitorInput;
    expect(http.required).not.toContain('type');
    expect(http.properties.type).toMatchObject({ enum: ['http'] });
    for (const other of [
      'CreateTcpMonitorInput',
      'CreateHeartbeatMonitorInput',
      'CreateDnsMonitorInput',
      'CreateApiMonitorInput',
      'CreateDomainMonitorInput',
    ])
      expect([other, schemas()[other].required]).toEqual([other, expect.arrayContaining(['type'])]);
    const legacy = createMonitorSchema.safeParse({ name: 'x', target: 'https://example.com' });
    expect(legacy.success && legacy.data.type).toBe('http');
    expect(doc.paths['/monitors'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateMonitorInput',
    });
  });

  it('lists exactly the fields each variant accepts, required where the validator requires them, and no others', () => {
    const variants = {
      CreateHttpMonitorInput: createHttpMonitorSchema,
      CreateTcpMonitorInput: createTcpMonitorSchema,
      CreateHeartbeatMonitorInput: createHeartbeatMonitorSchema,
      CreateDnsMonitorInput: createDnsMonitorSchema,
      CreateApiMonitorInput: createApiMonitorSchema,
      CreateDomainMonitorInput: createDomainMonitorSchema,
    };
    for (const [name, zod] of Object.entries(variants)) {
      const documented = schemas()[name];
      const shape = zod.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
      expect([name, Object.keys(documented.properties).sort()]).toEqual([name, Object.keys(shape).sort()]);
      // `type` of an http body may be omitted: createMonitorSchema fills it in before the union applies.
      const required = Object.keys(shape).filter(
        (k) => !shape[k]!.safeParse(undefined).success && !(name === 'CreateHttpMonitorInput' && k === 'type'),
      );
      expect([name, [...documented.required].sort()]).toEqual([name, required.sort()]);
      expect(documented.additionalProperties).toBe(false);
    }
  });

  it('documents examples the validator accepts, and the validator refuses what the schema forbids', () => {
    const examples = doc.paths['/monitors'].post.requestBody.content['application/json'].examples as Record<
      string,
      { value: unknown }
    >;
    expect(Object.keys(examples).sort()).toEqual(['api', 'dns', 'domain', 'heartbeat', 'http', 'tcp']);
    for (const [name, { value }] of Object.entries(examples))
      expect([name, createMonitorSchema.safeParse(value).success]).toEqual([name, true]);

    const http = schemas().CreateHttpMonitorInput;
    // additionalProperties: false
    expect(createMonitorSchema.safeParse({ name: 'x', target: 'https://example.com', enabled: true }).success).toBe(
      false,
    );
    // type omitted: read as http, as the description says
    const legacy = createMonitorSchema.safeParse({ name: 'x', target: 'https://example.com' });
    expect(legacy.success && legacy.data.type).toBe('http');
    // the documented bounds are the validator's
    const { minimum, maximum } = http.properties.intervalSeconds;
    for (const [value, ok] of [
      [minimum - 1, false],
      [minimum, true],
      [maximum, true],
      [maximum + 1, false],
    ] as const) {
      expect([
        value,
        createMonitorSchema.safeParse({ name: 'x', target: 'https://example.com', intervalSeconds: value }).success,
      ]).toEqual([value, ok]);
    }
    expect(http.properties.method.enum).toEqual(['GET', 'HEAD', 'POST']);
    expect(createMonitorSchema.safeParse({ name: 'x', target: 'https://example.com', method: 'PUT' }).success).toBe(
      false,
    );
  });
});

describe('request examples', () => {
  it('are accepted by the validators the routes use (Redocly checks them against the document)', () => {
    const validators = [
      ['post', '/monitors', createMonitorSchema],
      ['patch', '/monitors/{id}', updateMonitorSchema],
      ['post', '/maintenance', createMaintenanceSchema],
      ['patch', '/maintenance/{id}', updateMaintenanceSchema],
      ['post', '/status-pages', createStatusPageSchema],
    ] as const;
    for (const [method, path, schema] of validators) {
      const examples = doc.paths[path][method].requestBody.content['application/json'].examples as Record<
        string,
        { value: unknown }
      >;
      expect([method, path, Object.keys(examples).length > 0]).toEqual([method, path, true]);
      for (const [name, { value }] of Object.entries(examples)) {
        expect([method, path, name, schema.safeParse(value).success]).toEqual([method, path, name, true]);
      }
    }
  });
});

describe('GET /docs', () => {
  /** Every page of the reference: the overview and the pages it links (one per tag, webhooks, reference). */
  async function docsPages(): Promise<Map<string, string>> {
    const index = await request(h.app).get('/docs');
    expect(index.status).toBe(200);
    const out = new Map([['/docs', index.text]]);
    for (const [, href] of index.text.matchAll(/href="(\/docs\/[a-z0-9-]+)"/g)) {
      if (out.has(href!)) continue;
      const res = await request(h.app).get(href!);
      expect([href, res.status]).toEqual([href, 200]);
      out.set(href!, res.text);
    }
    return out;
  }

  it('is a self-contained HTML reference naming every operation, one page per tag', async () => {
    const pages = await docsPages();
    const html = [...pages.values()].join('\n');
    for (const [method, path] of SPEC_ENDPOINTS) {
      expect([method, path, html.includes(`${method.toUpperCase()} ${path}`)]).toEqual([method, path, true]);
    }
    // The webhooks Statusvane sends, each with its body.
    for (const name of Object.keys(doc.webhooks as Json))
      expect([name, pages.get('/docs/webhooks')!.includes(`<span class="path">${name}</span>`)]).toEqual([name, true]);
    for (const [href, page] of pages) {
      // Nothing loaded from anywhere: no script at all, no absolute or protocol-relative src/href.
      expect([href, /<script/i.test(page)]).toEqual([href, false]);
      expect([href, /\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i.test(page)]).toEqual([href, false]);
    }
    expect((await request(h.app).get('/docs/no-such-tag')).status).toBe(404);
  });

  it('sends a Content-Security-Policy that forbids outside loads and allows only its own hashed stylesheet', async () => {
    const res = await request(h.app).get('/docs');
    const csp = res.headers['content-security-policy']!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|'unsafe-inline'|script-src/);
    expect(res.text).not.toMatch(/<style|\sstyle="/);
    expect(res.text).toMatch(/<link rel="stylesheet" href="\/app\/assets\/docs-[A-Z0-9]+\.css"\/>/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('filters operations without JavaScript: /docs/search?q= lists the matches, linked to their page', async () => {
    const res = await request(h.app).get('/docs/search').query({ q: 'maintenance post' });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /<a href="\/docs\/maintenance#op-createMaintenanceWindow"><code>POST \/maintenance<\/code><\/a>/,
    );
    expect(res.text).not.toContain('GET /monitors');
    const none = await request(h.app).get('/docs/search').query({ q: '<b>nothing</b>' });
    expect(none.text).toContain('0 operations match “&lt;b>nothing&lt;/b>”.');
  });

  it('escapes the text it renders', async () => {
    const hostile = {
      info: { title: '<img src=x onerror=alert(1)>', version: '1', description: 'a `<b>` and **<i>**' },
      tags: [{ name: 'T"<', description: '</p><script>alert(1)</script>' }],
      paths: {
        '/x/{id}': {
          get: { operationId: 'x" onmouseover="y', summary: '<svg onload=z>', tags: ['T"<'], responses: {} },
        },
      },
      components: { schemas: { 'Bad"Name': { description: '</pre><script>' } } },
    };
    const links = { base: '/docs', specUrl: '/spec.json', assets: (await loadAssets()).urls };
    const html = [
      renderDocsIndex(hostile, links),
      renderDocsTag(hostile, links, 't')!,
      renderDocsReference(hostile, links),
    ].join('\n');
    expect(html).not.toMatch(/<script|<img|<svg|<b>|<i>|onmouseover="/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)>');
    expect(html).toContain('<code>&lt;b></code>');
  });
});
