/**
 * What mountRoutes gives every declared operation, whatever the resource: one rule for bodies, strict queries, 405
 * with `Allow` for a known path asked with another method. Each is checked on every declared operation
 * (routes/api-routes.ts), so a new one gets the same behaviour and the same test.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { API_ROUTES } from '../apps/api/src/routes/api-routes.js';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
let tokens: Awaited<ReturnType<typeof makeWorkspace>>['tokens'];
let ws: Awaited<ReturnType<typeof makeWorkspace>>['ws'];
/** An owner's personal token: a person's own operations (`/me/...`) take no org token. */
let personal: string;
beforeAll(async () => {
  h = makeHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  ({ ws, tokens } = await makeWorkspace(h.prisma));
  const owner = await makeUser(h.prisma, [{ workspace: ws.slug, role: 'owner' }]);
  personal = (await createToken(h.prisma, { kind: 'personal', email: owner.email })).token;
});

/** The owner's token that fits the path: personal for `/me/...`, the org token otherwise. */
const ownerFor = (path: string) => bearer(path.startsWith('/me/') ? personal : tokens.owner);
afterAll(async () => {
  await h.close();
});

const url = (path: string, id = randomUUID()) => `/api/v1${path.replace('{id}', id)}`;
type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect([res.status, res.body.error?.code]).toEqual([status, code]);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.headers['x-request-id']).toBeTruthy();
}

describe('a known path asked with a method it does not take', () => {
  it('answers 405 with Allow and the envelope, for every declared path', async () => {
    const byPath = new Map<string, string[]>();
    for (const r of API_ROUTES) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r.method.toUpperCase()]);
    for (const [path, methods] of byPath) {
      const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
      const wrong = (['get', 'post', 'patch', 'delete', 'put'] as Method[]).filter(
        (m) => !methods.includes(m.toUpperCase()),
      );
      for (const method of wrong) {
        const res = await request(h.app)[method](url(path)).set(ownerFor(path));
        expectEnvelope(res, 405, 'invalid_request');
        expect([method, path, res.headers.allow?.split(', ').sort()]).toEqual([method, path, allowed.sort()]);
      }
    }
  });

  it('answers OPTIONS with 204 and the same Allow', async () => {
    const res = await request(h.app).options('/api/v1/monitors').set(bearer(tokens.owner));
    expect([res.status, res.headers.allow]).toEqual([204, 'POST, GET, HEAD']);
  });

  it('answers HEAD by GET where a path has it, 405 where it has none, and OPTIONS on a path with an id', async () => {
    const m = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ name: 'head', target: 'https://example.com' });
    const head = await request(h.app).head(`/api/v1/monitors/${m.body.data.id}`).set(bearer(tokens.viewer));
    expect([head.status, head.headers['content-type'], head.headers.etag]).toEqual([
      200,
      'application/json; charset=utf-8',
      `"${m.body.data.version}"`,
    ]);
    const headless = await request(h.app)
      .head(`/api/v1/incidents/${randomUUID()}/acknowledge`)
      .set(bearer(tokens.owner));
    expect([headless.status, headless.headers.allow]).toEqual([405, 'POST']);
    const options = await request(h.app).options(`/api/v1/monitors/${m.body.data.id}`).set(bearer(tokens.owner));
    expect([options.status, options.headers.allow]).toEqual([204, 'GET, PATCH, DELETE, HEAD']);
    // A path without an id answers its own 405, not the operations of the path with one it also matches.
    const counts = await request(h.app).delete('/api/v1/monitors/counts').set(bearer(tokens.owner));
    expect([counts.status, counts.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('answers 400 to an id with a malformed escape, whatever the method', async () => {
    for (const method of ['get', 'put'] as const) {
      const res = await request(h.app)[method]('/api/v1/monitors/%E0%A4%A').set(bearer(tokens.owner));
      expectEnvelope(res, 400, 'invalid_request');
      expect(res.body.error.message).toBe('The request is malformed');
    }
  });

  it('still answers 404 for a path no operation has, and 401 before 405 without a token', async () => {
    expectEnvelope(await request(h.app).get('/api/v1/nothing-here').set(bearer(tokens.owner)), 404, 'not_found');
    expectEnvelope(await request(h.app).put('/api/v1/monitors'), 401, 'unauthorized');
  });
});

describe('one rule for bodies on every operation', () => {
  it('refuses a body that is not JSON, on operations that take no body as on those that do', async () => {
    for (const r of API_ROUTES) {
      const res = await request(h.app)
        [r.method](url(r.path))
        .set(ownerFor(r.path))
        .set('Content-Type', 'text/plain')
        .send('hello');
      expect([r.method, r.path, res.status, res.body.error?.message]).toEqual([
        r.method,
        r.path,
        400,
        r.request?.body?.yaml
          ? 'Send a JSON body (Content-Type: application/json) or YAML (Content-Type: application/yaml)'
          : 'Send a JSON body with Content-Type: application/json',
      ]);
    }
  });

  it('an operation without a body takes none, an empty one, or {}; any field is 400', async () => {
    const monitor = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ name: 'x', target: 'https://example.com' });
    expect(monitor.status).toBe(201);
    const incident = await h.prisma.incident.create({
      data: { workspaceId: ws.id, monitorId: null, title: 'manual', source: 'manual' },
    });
    const ack = () => request(h.app).post(`/api/v1/incidents/${incident.id}/acknowledge`).set(bearer(tokens.member));
    expect((await ack()).status).toBe(200);
    expect((await ack().set('Content-Length', '0')).status).toBe(200);
    expect((await ack().send({})).status).toBe(200);
    const withField = await ack().send({ note: 'x' });
    expectEnvelope(withField, 400, 'invalid_request');
    expect(withField.body.error.details.issues).toEqual([{ path: 'note', message: 'Unknown field' }]);
  });
});

describe('one schema per body', () => {
  it('declares every body by the schema that parses it, which the document shows (no pass-through schema)', () => {
    const passThrough = API_ROUTES.filter((r) => {
      const schema = r.request?.body?.schema;
      return schema !== undefined && schema.safeParse(Symbol('anything')).success;
    }).map((r) => `${r.method} ${r.path}`);
    expect(passThrough).toEqual([]);
  });
});

describe('strict queries on every operation', () => {
  it('refuses an unknown query parameter with 400 naming it', async () => {
    for (const r of API_ROUTES) {
      const res = await request(h.app)
        [r.method](`${url(r.path)}?surprise=1`)
        .set(ownerFor(r.path))
        .send({});
      expect([r.method, r.path, res.status, res.body.error?.details?.issues]).toEqual([
        r.method,
        r.path,
        400,
        [{ path: 'surprise', message: 'Unknown field' }],
      ]);
    }
  });
});

describe('ids in paths', () => {
  it('are case-insensitive: an id in upper case finds its record on every kind of resource', async () => {
    const monitor = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ name: 'upper', target: 'https://example.com' });
    const window = await request(h.app)
      .post('/api/v1/maintenance')
      .set(bearer(tokens.owner))
      .send({ title: 'upper', startsAt: '2031-01-01T00:00:00Z', endsAt: '2031-01-01T01:00:00Z' });
    const incident = await h.prisma.incident.create({
      data: { workspaceId: ws.id, monitorId: null, title: 'upper', source: 'manual' },
    });
    for (const path of [
      `/api/v1/monitors/${monitor.body.data.id}`,
      `/api/v1/maintenance/${window.body.data.id}`,
      `/api/v1/incidents/${incident.id}/escalation`,
    ]) {
      const res = await request(h.app).get(path.toUpperCase().replace('/API/V1', '/api/v1')).set(bearer(tokens.viewer));
      expect([path, res.status]).toEqual([path, 200]);
    }
  });

  it('are echoed in a 404 only when short and plain', async () => {
    const get = (id: string) => request(h.app).get(`/api/v1/monitors/${id}`).set(bearer(tokens.viewer));
    const plain = randomUUID();
    expect((await get(plain)).body.error.message).toBe(`monitor ${plain} was not found`);
    for (const raw of ['x'.repeat(5000), '..%2F..%2Fhealthz', 'a%00b']) {
      const res = await get(raw);
      expectEnvelope(res, 404, 'not_found');
      expect(res.body.error.message).toBe('monitor was not found');
    }
    const unknown = await request(h.app)
      .get(`/api/v1/${'y'.repeat(5000)}`)
      .set(bearer(tokens.viewer));
    expectEnvelope(unknown, 404, 'not_found');
    expect(unknown.body.error.message.length).toBeLessThan(150);
  });
});
