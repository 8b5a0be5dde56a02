/**
 * POST /monitors/import/openapi (spec section 9) against two documents shipped as fixtures (an OpenAPI 3.0 pet store
 * in YAML, an OpenAPI 3.1 document in JSON, both with component `$ref`s) and the project's own served document: the
 * plan, apply, a second import that shows only the difference, the imported monitors' checks against a local API, and
 * a document fetched from a URL through the SSRF guard.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { checkAt } from './support/worker-harness.js';

let h: Harness;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let server: http.Server;
let base: string;
let petstoreYaml: string;
let items31: Record<string, unknown>;
/** What the pet store answers for an order: a `quantity` of 0 breaks its schema (exclusiveMinimum). */
let quantity = 2;

const fixture = (name: string) => readFile(join(import.meta.dirname, 'fixtures/openapi', name), 'utf8');

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  w = await makeWorkspace(h.prisma);
  petstoreYaml = await fixture('petstore-3.0.yaml');
  items31 = JSON.parse(await fixture('items-3.1.json')) as Record<string, unknown>;
  server = http.createServer((req, res) => {
    const json = (value: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/docs/petstore.yaml') {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      return void res.end(petstoreYaml);
    }
    if (url.pathname === '/api/v3/store/inventory') return json({ available: 3, sold: 1 });
    if (url.pathname === '/api/v3/pet/findByStatus')
      return json([{ id: 10, name: 'doggie', photoUrls: [], category: { id: 1, name: 'Dogs' }, nickname: null }]);
    if (url.pathname === '/api/v3/pet/10') return json({ id: 10, name: 'doggie', photoUrls: [] });
    if (url.pathname === '/api/v3/user/logout') return json({});
    if (url.pathname === '/api/v3/store/order/1') return json({ id: 1, quantity });
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await h.close();
});

const importOpenApi = (body: Record<string, unknown>, token = w.tokens.admin) =>
  request(h.app).post('/api/v1/monitors/import/openapi').set(bearer(token)).send(body);

type Change = {
  action: string;
  ref: string;
  id: string | null;
  fields?: Record<string, { from: unknown; to: unknown }>;
};
const byRef = (changes: Change[]) => Object.fromEntries(changes.map((c) => [c.ref, c]));

let slotSeq = 0;
const check = (monitorId: string) => checkAt(h, monitorId, new Date(Date.UTC(2032, 0, 1, 0, slotSeq++)));

describe('OpenAPI import', () => {
  it('plans one http monitor per GET operation it can call (OpenAPI 3.0, YAML text, $refs resolved), writing nothing', async () => {
    const res = await importOpenApi({ name: 'pets', document: petstoreYaml, baseUrl: `${base}/api/v3` });
    expect(res.status).toBe(200);
    const changes = byRef(res.body.data.changes as Change[]);
    expect(Object.keys(changes).sort()).toEqual([
      'openapi.pets.find-pets-by-status',
      'openapi.pets.get-inventory',
      'openapi.pets.get-pet-by-id',
      'openapi.pets.logout-user',
    ]);
    expect(res.body.data.summary).toEqual({ create: 4, update: 0, delete: 0, noop: 0 });
    const skipped = res.body.data.skipped as Array<{ operation: string; reason: string }>;
    expect(skipped.map((s) => s.operation).sort()).toEqual(['findPetsByTags', 'getOrderById']);
    const byStatus = changes['openapi.pets.find-pets-by-status']!.fields!;
    expect(byStatus.target!.to).toBe(`${base}/api/v3/pet/findByStatus?status=available`);
    expect(byStatus.expectedStatusCodes!.to).toEqual([200]);
    expect(byStatus.metadata!.to).toEqual({ openapi: 'findPetsByStatus' });
    // The component schemas it reaches are copied into $defs; 3.0's nullable becomes a type list.
    const schema = byStatus.responseSchema!.to as {
      items: unknown;
      $defs: Record<string, { properties: Record<string, unknown> }>;
    };
    expect(schema.items).toEqual({ $ref: '#/$defs/Pet' });
    expect(Object.keys(schema.$defs).sort()).toEqual(['Category', 'Pet', 'Tag']);
    expect(schema.$defs.Pet!.properties.nickname).toEqual({ type: ['string', 'null'] });
    expect(changes['openapi.pets.get-pet-by-id']!.fields!.target!.to).toBe(`${base}/api/v3/pet/10`);
    expect(changes['openapi.pets.logout-user']!.fields!.expectedStatusCodes!.to).toEqual([]);
    expect(await h.prisma.monitor.count({ where: { workspaceId: w.ws.id } })).toBe(0);
  });

  it('applies (managers only); the monitors pass against the API; a changed document shows only the difference', async () => {
    const body = { name: 'pets', document: parseYaml(petstoreYaml) as object, baseUrl: `${base}/api/v3`, apply: true };
    expect((await importOpenApi(body, w.tokens.member)).status).toBe(403);
    const applied = await importOpenApi(body);
    expect(applied.status).toBe(200);
    expect(applied.body.data.summary).toMatchObject({ create: 4 });
    const ids = Object.fromEntries((applied.body.data.changes as Change[]).map((c) => [c.ref, c.id!]));
    for (const id of Object.values(ids)) expect([id, (await check(id)).outcome]).toEqual([id, 'up']);

    // Again, unchanged: only noop.
    const again = await importOpenApi({ ...body, apply: false });
    expect(again.body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 4 });

    // A monitor of another import, and one managed by config, are never pruned by this one.
    const other = await importOpenApi({ name: 'items', document: items31, baseUrl: `${base}/items-api`, apply: true });
    expect(other.status).toBe(200);

    // The document changes: an operation gone, one now with an example, one with a new status.
    const changed = parseYaml(petstoreYaml) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    delete changed.paths['/user/logout'];
    (changed.paths['/store/order/{orderId}']!.get!.parameters as Array<Record<string, unknown>>)[0]!.example = 1;
    const inventory = changed.paths['/store/inventory']!.get!.responses as Record<string, unknown>;
    inventory['203'] = { description: 'cached' };
    const second = await importOpenApi({ ...body, document: changed });
    expect(second.status).toBe(200);
    const changes = byRef(second.body.data.changes as Change[]);
    expect(second.body.data.summary).toEqual({ create: 1, update: 1, delete: 1, noop: 2 });
    expect(changes['openapi.pets.logout-user']!.action).toBe('delete');
    expect(changes['openapi.pets.get-order-by-id']!.action).toBe('create');
    expect(changes['openapi.pets.get-inventory']).toMatchObject({
      action: 'update',
      fields: { expectedStatusCodes: { from: [200], to: [200, 203] } },
    });
    expect(Object.keys(changes).some((r) => r.startsWith('openapi.items.'))).toBe(false);
    const order = await h.prisma.monitor.findFirstOrThrow({ where: { ref: 'openapi.pets.get-order-by-id' } });
    // The imported schema is checked: 3.0's boolean exclusiveMinimum read as JSON Schema's.
    expect((await check(order.id)).outcome).toBe('up');
    quantity = 0;
    expect((await check(order.id)).reason).toBe('schema_mismatch: /quantity: must be > 0');
  });

  it('reads OpenAPI 3.1 (type lists, const, a recursive schema, path-level parameters)', async () => {
    const res = await importOpenApi({ name: 'items31', document: items31, baseUrl: 'http://127.0.0.1:9/v2' });
    expect(res.status).toBe(200);
    const changes = byRef(res.body.data.changes as Change[]);
    expect(Object.keys(changes).sort()).toEqual([
      'openapi.items31.get-health',
      'openapi.items31.get-tree',
      'openapi.items31.list-items',
    ]);
    expect(res.body.data.skipped).toEqual([
      { operation: 'getItem', reason: 'parameter itemId (path) is required and has no example' },
    ]);
    expect(changes['openapi.items31.get-tree']!.fields!.responseSchema!.to).toEqual({
      $ref: '#/$defs/Node',
      $defs: {
        Node: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        },
      },
    });
    // A body beyond the API's usual 256 KiB is read (up to 5 MiB).
    const large = { ...items31, info: { title: 'Items', version: '2', description: 'x'.repeat(400_000) } };
    expect((await importOpenApi({ name: 'items31', document: large, baseUrl: 'http://127.0.0.1:9/v2' })).status).toBe(
      200,
    );
    // `2XX` documents no particular code: any 2xx or 3xx passes.
    expect(changes['openapi.items31.get-tree']!.fields!.expectedStatusCodes!.to).toEqual([]);
  });

  it('takes the document as JSON text, and a safe retry with an Idempotency-Key replays the answer', async () => {
    const text = await fixture('items-3.1.json');
    const send = () =>
      request(h.app)
        .post('/api/v1/monitors/import/openapi')
        .set(bearer(w.tokens.admin))
        .set('Idempotency-Key', 'import-items-text')
        .send({ name: 'itemstext', document: text, baseUrl: 'https://items.example.com/v2' });
    const first = await send();
    expect([first.status, first.body.error]).toEqual([200, undefined]);
    expect(first.body.data.summary).toEqual({ create: 3, update: 0, delete: 0, noop: 0 });
    const again = await send();
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(again.body).toEqual(first.body);
    // Applied with a key: the answer is stored with the monitors, and a retry replays it instead of applying again.
    const apply = () =>
      request(h.app)
        .post('/api/v1/monitors/import/openapi')
        .set(bearer(w.tokens.admin))
        .set('Idempotency-Key', 'import-items-text-apply')
        .send({ name: 'itemstext', document: text, baseUrl: 'https://items.example.com/v2', apply: true });
    const applied = await apply();
    expect([applied.status, applied.body.data.summary]).toEqual([200, { create: 3, update: 0, delete: 0, noop: 0 }]);
    const replayed = await apply();
    expect([replayed.headers['idempotent-replayed'], replayed.body]).toEqual(['true', applied.body]);
    expect(await h.prisma.monitor.count({ where: { ref: { startsWith: 'openapi.itemstext.' } } })).toBe(3);
  });

  it("imports the project's own served document", async () => {
    const served = await request(h.app).get('/api/v1/openapi.json');
    expect(served.status).toBe(200);
    const res = await importOpenApi({
      name: 'self',
      document: served.body,
      baseUrl: 'http://127.0.0.1:9/api/v1',
      headers: { Authorization: 'Bearer sv_example' },
      include: ['listMonitors', 'GET /incidents'],
    });
    expect(res.status).toBe(200);
    const changes = byRef(res.body.data.changes as Change[]);
    expect(Object.keys(changes).sort()).toEqual(['openapi.self.list-incidents', 'openapi.self.list-monitors']);
    const monitors = changes['openapi.self.list-monitors']!.fields!;
    expect(monitors.headers!.to).toEqual({ Authorization: '<redacted>' });
    expect(monitors.responseSchema!.to).toMatchObject({ required: expect.arrayContaining(['data', 'pagination']) });
    expect(Object.keys((monitors.responseSchema!.to as { $defs: object }).$defs)).toContain('Monitor');
  });

  it('fetches a document from a URL through the SSRF guard, and refuses what it must', async () => {
    const fetched = await importOpenApi({ name: 'byurl', documentUrl: `${base}/docs/petstore.yaml`, baseUrl: base });
    expect(fetched.status).toBe(200);
    expect(fetched.body.data.summary.create).toBe(4);
    const blocked = await importOpenApi({ name: 'byurl', documentUrl: 'http://10.0.0.1/openapi.json', baseUrl: base });
    expect(blocked.status).toBe(400);
    expect(blocked.body.error.details.issues[0]).toMatchObject({ path: 'documentUrl' });
    const missing = await importOpenApi({ name: 'byurl', documentUrl: `${base}/nothing.json`, baseUrl: base });
    expect(missing.body.error.details.issues[0]).toMatchObject({ path: 'documentUrl', message: 'answered 404' });
    const both = await importOpenApi({ name: 'x', document: {}, documentUrl: `${base}/a`, baseUrl: base });
    expect(both.status).toBe(400);
    const swagger = await importOpenApi({ name: 'x', document: { swagger: '2.0', paths: {} }, baseUrl: base });
    expect(swagger.body.error.details.issues[0]).toMatchObject({
      path: 'document',
      message: expect.stringMatching(/Swagger 2.0/),
    });
    const notYaml = await importOpenApi({ name: 'x', document: 'openapi: [unclosed', baseUrl: base });
    expect(notYaml.status).toBe(400);
    const unknown = await importOpenApi({ name: 'x', document: items31, baseUrl: base, include: ['nope'] });
    expect(unknown.body.error.details.issues[0]).toMatchObject({ path: 'include' });
  });
});
