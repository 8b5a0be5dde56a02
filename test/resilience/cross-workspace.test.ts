/**
 * Cross-workspace access. For EVERY declared operation (routes/api-routes.ts) with an `{id}`, a real record of workspace A
 * is requested with each kind of token of workspace B: the answer is the very answer a random uuid gets (status,
 * body with the id masked, headers but the per-request ones), it changes nothing, and lists of B never show A's
 * records. The operations come from the route declarations: a new `{id}` route without a factory below fails the test.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { API_ROUTES } from '../../apps/api/src/routes/api-routes.js';
import { successOf } from '../../apps/api/src/routes/define-route.js';
import { addMember, createToken, createUser } from '../../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from '../support/harness.js';
import { brokenInvariants } from './support/invariants.js';
import { deleteKeys } from './support/processes.js';

let h: Harness;
let A: Awaited<ReturnType<typeof makeWorkspace>>;
let B: Awaited<ReturnType<typeof makeWorkspace>>;
/** B's callers: every token kind, with what it must send to act in B. */
let callers: Array<{ label: string; headers: Record<string, string> }>;

beforeAll(async () => {
  h = makeHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  A = await makeWorkspace(h.prisma);
  B = await makeWorkspace(h.prisma);
  // A user who belongs to both: the header picks B, whose records she may see; A's stay out of reach through B.
  const user = await createUser(h.prisma, { email: `${uniq('x')}@example.test` });
  await addMember(h.prisma, { workspace: B.ws.id, email: user.email, role: 'owner' });
  await addMember(h.prisma, { workspace: A.ws.id, email: user.email, role: 'viewer' });
  const personal = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
  const oauth = (await createToken(h.prisma, { kind: 'oauth', email: user.email, workspaces: B.ws.id })).token;
  callers = [
    { label: 'org owner', headers: bearer(B.tokens.owner) },
    { label: 'org admin', headers: bearer(B.tokens.admin) },
    { label: 'org viewer', headers: bearer(B.tokens.viewer) },
    {
      label: 'org owner naming its workspace',
      headers: { ...bearer(B.tokens.owner), 'X-Statusvane-Workspace': B.ws.slug },
    },
    { label: 'personal', headers: { ...bearer(personal), 'X-Statusvane-Workspace': B.ws.slug } },
    { label: 'oauth', headers: bearer(oauth) },
  ];
});

afterAll(async () => {
  await h?.close();
  await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}:*`]).catch(() => undefined);
});

// ---------------------------------------------------------------------------------------------------------------
// Records of workspace A, one factory per kind, and what each operation sends
// ---------------------------------------------------------------------------------------------------------------

/** `params`: the path's other parameters (`{subscriberId}`), the record's own, sent alike to A's id and a random one. */
type Resource = { id: string; params?: Record<string, string>; state: () => Promise<unknown> };

const createIn = async (path: string, body: object) => {
  const res = await request(h.app).post(`/api/v1${path}`).set(bearer(A.tokens.owner)).send(body);
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};

const resources = {
  async monitor(): Promise<Resource> {
    const id = await createIn('/monitors', {
      name: 'A private',
      target: 'https://93.184.215.14/a',
      method: 'POST',
      headers: { 'X-Key': 'a-secret' },
      body: 'a',
    });
    return { id, state: () => h.prisma.monitor.findUnique({ where: { id } }) };
  },
  async component(): Promise<Resource> {
    const monitor = await resources.monitor();
    const { componentId: id } = await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } });
    return { id, state: () => h.prisma.component.findUnique({ where: { id } }) };
  },
  async maintenance(): Promise<Resource> {
    const id = await createIn('/maintenance', {
      title: 'A window',
      startsAt: '2031-01-01T00:00:00Z',
      endsAt: '2031-01-01T02:00:00Z',
    });
    return { id, state: () => h.prisma.maintenanceWindow.findUnique({ where: { id }, include: { components: true } }) };
  },
  async statusPage(): Promise<Resource> {
    const id = await createIn('/status-pages', { vanityUrl: uniq('a-page'), name: 'A page' });
    return { id, state: () => h.prisma.statusPage.findUnique({ where: { id }, include: { sections: true } }) };
  },
  async incident(): Promise<Resource> {
    const monitor = await resources.monitor();
    const row = await h.prisma.incident.create({
      data: {
        workspaceId: A.ws.id,
        monitorId: monitor.id,
        openMonitorId: monitor.id,
        title: 'A private is down',
        status: 'open',
        impact: 'major',
        source: 'monitor',
      },
    });
    return { id: row.id, state: () => h.prisma.incident.findUnique({ where: { id: row.id } }) };
  },
  async escalationPolicy(): Promise<Resource> {
    const id = await createIn('/escalation-policies', {
      name: 'A on-call',
      steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'a-oncall@example.test' }] }],
    });
    return {
      id,
      state: () =>
        h.prisma.escalationPolicy.findUnique({ where: { id }, include: { steps: { include: { targets: true } } } }),
    };
  },
  async webhook(): Promise<Resource> {
    const id = await createIn('/webhooks', { url: 'https://93.184.215.14/a-hook?token=a-secret' });
    return { id, state: () => h.prisma.webhook.findUnique({ where: { id }, include: { deliveries: true } }) };
  },
  async token(): Promise<Resource> {
    const id = await createIn('/tokens', { name: 'A deploys', role: 'member' });
    return { id, state: () => h.prisma.apiToken.findUnique({ where: { id } }) };
  },
  async wallToken(): Promise<Resource> {
    const id = await createIn('/wall-tokens', { name: 'A office' });
    return { id, state: () => h.prisma.wallToken.findUnique({ where: { id } }) };
  },
  async member(): Promise<Resource> {
    const res = await request(h.app)
      .post('/api/v1/members')
      .set(bearer(A.tokens.owner))
      .send({ email: `${uniq('a-member')}@example.test`, role: 'member' });
    expect(res.status).toBe(201);
    const userId = res.body.data.userId as string;
    return {
      id: userId,
      state: () => h.prisma.membership.findUnique({ where: { workspaceId_userId: { workspaceId: A.ws.id, userId } } }),
    };
  },
  async schedule(): Promise<Resource> {
    const { userId } = await h.prisma.membership.findFirstOrThrow({ where: { workspaceId: A.ws.id } });
    const id = await createIn('/schedules', {
      name: 'A on call',
      timezone: 'UTC',
      layers: [
        {
          name: 'Daily',
          startsAt: '2026-01-01T09:00:00Z',
          rotation: { every: 1, unit: 'days' },
          handoffTime: '09:00',
          members: [userId],
        },
      ],
    });
    const res = await request(h.app)
      .post(`/api/v1/schedules/${id}/overrides`)
      .set(bearer(A.tokens.owner))
      .send({ userId, startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-02T00:00:00Z' });
    expect(res.status).toBe(201);
    await request(h.app).post(`/api/v1/schedules/${id}/calendar-token`).set(bearer(A.tokens.owner)).expect(201);
    return {
      id,
      params: { overrideId: res.body.data.id as string },
      state: () =>
        h.prisma.schedule.findUnique({
          where: { id },
          include: { layers: true, overrides: true, calendarToken: true },
        }),
    };
  },
  async subscriber(): Promise<Resource> {
    const page = await resources.statusPage();
    const { slug } = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } });
    const sub = await request(h.app)
      .post(`/status/${slug}/subscribe`)
      .send({ email: `${uniq('a-sub')}@example.test` });
    expect(sub.status).toBe(202);
    const row = await h.prisma.statusPageSubscriber.findFirstOrThrow({ where: { statusPageId: page.id } });
    return {
      id: page.id,
      params: { subscriberId: row.id },
      state: () => h.prisma.statusPageSubscriber.findUnique({ where: { id: row.id } }),
    };
  },
};

interface Variant {
  label: string;
  body?: object;
  query?: string;
  /** Fails validation: 400 or 404, whichever the operation checks first, as long as a random id gets the same. */
  invalid?: true;
}

/**
 * Every `{id}` operation of the document needs an entry: how to make a record of A for it, and the requests to try
 * (a valid one, plus ones that fail validation, so that the order of checks cannot tell existence either).
 */
const FACTORIES: Record<string, { make: () => Promise<Resource>; variants: Variant[] }> = {
  'GET /maintenance/{id}': { make: resources.maintenance, variants: [{ label: 'plain' }] },
  'DELETE /maintenance/{id}': { make: resources.maintenance, variants: [{ label: 'plain' }] },
  'PATCH /maintenance/{id}': {
    make: resources.maintenance,
    variants: [
      { label: 'valid', body: { title: 'hijacked' } },
      { label: 'cancel', body: { status: 'cancel' } },
      { label: 'invalid', body: { title: 42 }, invalid: true },
    ],
  },
  'GET /monitors/{id}': { make: resources.monitor, variants: [{ label: 'plain' }] },
  'PATCH /monitors/{id}': {
    make: resources.monitor,
    variants: [
      { label: 'valid', body: { name: 'hijacked', enabled: false } },
      { label: 'invalid', body: { intervalSeconds: 1 }, invalid: true },
      { label: 'type change', body: { type: 'tcp' }, invalid: true },
    ],
  },
  'DELETE /monitors/{id}': { make: resources.monitor, variants: [{ label: 'plain' }] },
  'GET /components/{id}': { make: resources.component, variants: [{ label: 'plain' }] },
  'PATCH /components/{id}': {
    make: resources.component,
    variants: [
      { label: 'valid', body: { name: 'hijacked', description: 'x' } },
      { label: 'invalid', body: { name: '' }, invalid: true },
    ],
  },
  'GET /monitors/{id}/uptime': {
    make: resources.monitor,
    variants: [
      { label: 'default' },
      { label: 'weeks in Berlin', query: '?granularity=week&timezone=Europe/Berlin' },
      { label: 'bad granularity', query: '?granularity=year', invalid: true },
      { label: 'from after to', query: '?from=2026-10-10&to=2026-10-01', invalid: true },
    ],
  },
  'GET /monitors/{id}/pings': {
    make: resources.monitor,
    variants: [
      { label: 'default' },
      { label: 'page 2', query: '?page=2&perPage=1' },
      { label: 'bad page', query: '?page=0', invalid: true },
    ],
  },
  'GET /monitors/{id}/response-times': {
    make: resources.monitor,
    variants: [
      { label: 'default' },
      { label: 'week', query: '?period=week' },
      { label: 'bad period', query: '?period=century', invalid: true },
    ],
  },
  'GET /monitors/{id}/results': {
    make: resources.monitor,
    variants: [
      { label: 'default' },
      { label: 'filtered', query: '?region=local&status=up,down&since=2020-01-01T00:00:00Z' },
      { label: 'bad status', query: '?status=sideways', invalid: true },
    ],
  },
  'GET /status-pages/{id}': { make: resources.statusPage, variants: [{ label: 'plain' }] },
  'PATCH /status-pages/{id}': {
    make: resources.statusPage,
    variants: [
      { label: 'valid', body: { name: 'hijacked', sections: [], password: 'hijacked-pw' } },
      { label: 'invalid', body: { name: '' }, invalid: true },
    ],
  },
  'DELETE /status-pages/{id}': { make: resources.statusPage, variants: [{ label: 'plain' }] },
  'GET /status-pages/{id}/layout': { make: resources.statusPage, variants: [{ label: 'plain' }] },
  'GET /incidents/{id}': { make: resources.incident, variants: [{ label: 'plain' }] },
  'GET /incidents/{id}/escalation': { make: resources.incident, variants: [{ label: 'plain' }] },
  'POST /incidents/{id}/acknowledge': {
    make: resources.incident,
    variants: [{ label: 'no body' }, { label: 'a body', body: { note: 'x' }, invalid: true }],
  },
  'POST /incidents/{id}/resolve': {
    make: resources.incident,
    variants: [{ label: 'no body' }, { label: 'a body', body: { note: 'x' }, invalid: true }],
  },
  'DELETE /incidents/{id}': { make: resources.incident, variants: [{ label: 'plain' }] },
  'POST /incidents/{id}/updates': {
    make: resources.incident,
    variants: [
      { label: 'valid', body: { status: 'resolved', message: 'hijacked' } },
      { label: 'invalid', body: { status: 'fixed' }, invalid: true },
    ],
  },
  'GET /incidents/{id}/updates': { make: resources.incident, variants: [{ label: 'plain' }] },
  'GET /escalation-policies/{id}': { make: resources.escalationPolicy, variants: [{ label: 'plain' }] },
  'PATCH /escalation-policies/{id}': {
    make: resources.escalationPolicy,
    variants: [
      { label: 'valid', body: { name: 'hijacked', isDefault: true } },
      {
        label: 'steps',
        body: { steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'b@example.test' }] }] },
      },
      { label: 'invalid', body: { repeatCount: -1 }, invalid: true },
    ],
  },
  'DELETE /escalation-policies/{id}': { make: resources.escalationPolicy, variants: [{ label: 'plain' }] },
  'POST /escalation-policies/{id}/test': {
    make: resources.escalationPolicy,
    variants: [{ label: 'no body' }, { label: 'a body', body: { target: 'x' }, invalid: true }],
  },
  'DELETE /tokens/{id}': { make: resources.token, variants: [{ label: 'plain' }] },
  'DELETE /wall-tokens/{id}': { make: resources.wallToken, variants: [{ label: 'plain' }] },
  'PATCH /members/{userId}': {
    make: resources.member,
    variants: [
      { label: 'valid', body: { role: 'admin' } },
      { label: 'invalid', body: { role: 'boss' }, invalid: true },
    ],
  },
  'DELETE /members/{userId}': { make: resources.member, variants: [{ label: 'plain' }] },
  'POST /members/{userId}/invitation': { make: resources.member, variants: [{ label: 'plain' }] },
  'GET /status-pages/{id}/subscribers': { make: resources.subscriber, variants: [{ label: 'plain' }] },
  'DELETE /status-pages/{id}/subscribers/{subscriberId}': {
    make: resources.subscriber,
    variants: [{ label: 'plain' }],
  },
  'GET /schedules/{id}': { make: resources.schedule, variants: [{ label: 'plain' }] },
  'PATCH /schedules/{id}': {
    make: resources.schedule,
    variants: [
      { label: 'valid', body: { name: 'hijacked' } },
      { label: 'invalid', body: { timezone: 'Nowhere/Else' }, invalid: true },
    ],
  },
  'DELETE /schedules/{id}': { make: resources.schedule, variants: [{ label: 'plain' }] },
  'GET /schedules/{id}/overrides': { make: resources.schedule, variants: [{ label: 'plain' }] },
  'POST /schedules/{id}/overrides': {
    make: resources.schedule,
    variants: [
      {
        label: 'valid',
        body: { userId: randomUUID(), startsAt: '2031-01-01T00:00:00Z', endsAt: '2031-01-02T00:00:00Z' },
      },
      { label: 'invalid', body: { userId: 'x' }, invalid: true },
    ],
  },
  'DELETE /schedules/{id}/overrides/{overrideId}': { make: resources.schedule, variants: [{ label: 'plain' }] },
  'GET /schedules/{id}/oncall': {
    make: resources.schedule,
    variants: [{ label: 'plain' }, { label: 'at', query: '?at=2026-06-01T00:00:00Z' }],
  },
  'GET /schedules/{id}/shifts': {
    make: resources.schedule,
    variants: [
      { label: 'plain' },
      { label: 'too long', query: '?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z', invalid: true },
    ],
  },
  'POST /schedules/{id}/calendar-token': { make: resources.schedule, variants: [{ label: 'plain' }] },
  'DELETE /schedules/{id}/calendar-token': { make: resources.schedule, variants: [{ label: 'plain' }] },
  'GET /webhooks/{id}': { make: resources.webhook, variants: [{ label: 'plain' }] },
  'PATCH /webhooks/{id}': {
    make: resources.webhook,
    variants: [
      { label: 'valid', body: { description: 'hijacked', types: [] } },
      { label: 'invalid', body: { url: '' }, invalid: true },
    ],
  },
  'DELETE /webhooks/{id}': { make: resources.webhook, variants: [{ label: 'plain' }] },
  'GET /webhooks/{id}/deliveries': { make: resources.webhook, variants: [{ label: 'plain' }] },
  'POST /webhooks/{id}/replay': {
    make: resources.webhook,
    variants: [
      { label: 'valid', body: { after: '0'.repeat(32) } },
      { label: 'invalid', body: { after: 'x' }, invalid: true },
    ],
  },
};

/** The parameter that names the record: `{id}`, or `{userId}` for members. */
const RECORD_PARAM = /\{(id|userId)\}/;

/**
 * Every declared operation with an `{id}` (or `{userId}`): what app.ts serves and the document describes. A person's
 * own (`/me/...`) are no workspace's: their own suites (oauth: another user's connected app is 404) cover them.
 */
function idOperations(): Array<{ key: string; method: string; path: string; read: boolean }> {
  return API_ROUTES.filter((r) => RECORD_PARAM.test(r.path) && r.roles !== 'self').map((r) => ({
    key: `${r.method.toUpperCase()} ${r.path}`,
    method: r.method.toUpperCase(),
    path: r.path,
    read: r.roles === 'read',
  }));
}

const VOLATILE = new Set([
  'x-request-id',
  'date',
  'etag',
  'ratelimit-remaining',
  'ratelimit-reset',
  'content-length',
  'connection',
  'keep-alive',
]);

/** What a caller can observe of an answer, with the id it asked for masked. */
function observable(res: request.Response, id: string) {
  const mask = (s: string) => s.split(id).join('<id>');
  const headers = Object.fromEntries(
    Object.entries(res.headers)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]) => [k, mask(String(v))]),
  );
  return {
    status: res.status,
    body: JSON.parse(mask(JSON.stringify(res.body ?? null))),
    text: mask(res.text ?? ''),
    headers,
  };
}

/** The path with `{id}` and the record's other parameters filled in. */
const pathOf = (path: string, id: string, r: Resource) =>
  Object.entries(r.params ?? {}).reduce((p, [k, v]) => p.replace(`{${k}}`, v), path.replace(RECORD_PARAM, id));

function call(method: string, path: string, headers: Record<string, string>, v: Variant) {
  let req = request(h.app)
    [method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](`/api/v1${path}${v.query ?? ''}`)
    .set(headers);
  if (v.body) req = req.send(v.body);
  return req;
}

describe('a token of another workspace', () => {
  it('has a factory for every declared {id} operation', () => {
    const ops = idOperations();
    expect(ops.length).toBeGreaterThanOrEqual(5);
    expect(ops.map((o) => o.key).filter((k) => !FACTORIES[k])).toEqual([]);
  });

  it('gets, for every {id} operation, exactly the answer a random uuid gets, and changes nothing', async () => {
    /** Documented operations that no router serves: a random uuid and A's id then both get "No route for". */
    const unmounted: string[] = [];
    for (const op of idOperations()) {
      const factory = FACTORIES[op.key];
      if (!factory) continue; // reported by the test above
      for (const variant of factory.variants) {
        const resource = await factory.make();
        const before = await resource.state();
        for (const caller of callers) {
          const random = randomUUID();
          const foreign = await call(op.method, pathOf(op.path, resource.id, resource), caller.headers, variant);
          const missing = await call(op.method, pathOf(op.path, random, resource), caller.headers, variant);
          const label = `${op.key} (${variant.label}) as ${caller.label}`;
          expect([label, observable(foreign, resource.id)]).toEqual([label, observable(missing, random)]);
          // A viewer may not write nor read what managers only read (403); a body that fails validation may be
          // refused first (400); otherwise 404.
          const expected = [caller.label === 'org viewer' && !op.read ? 403 : 404, ...(variant.invalid ? [400] : [])];
          expect([label, expected.includes(foreign.status)]).toEqual([label, true]);
          if (foreign.status === 404) expect([label, foreign.body.error.code]).toEqual([label, 'not_found']);
        }
        // Nothing about the record changed.
        expect([op.key, await resource.state()]).toEqual([op.key, before]);
        // Control: the record is real and reachable by its own workspace. A documented operation that is not
        // mounted would make the comparison above vacuous (both "No route for"): that is a failure, not a warning.
        const own = await call(op.method, pathOf(op.path, resource.id, resource), bearer(A.tokens.owner), variant);
        if (own.status === 404 && /^No route for/.test(own.body?.error?.message ?? ''))
          unmounted.push(`${op.key} (${variant.label})`);
        else expect([op.key, variant.label, own.status === 404]).toEqual([op.key, variant.label, false]);
      }
    }
    expect(unmounted).toEqual([]);
    expect(await brokenInvariants(h.prisma, { workspaceIds: [A.ws.id, B.ws.id] })).toEqual({});
  }, 120_000);

  it('cannot reach workspace A by naming it: the same 403 as for a workspace that does not exist', async () => {
    const stranger = await createUser(h.prisma, { email: `${uniq('s')}@example.test` });
    await addMember(h.prisma, { workspace: B.ws.id, email: stranger.email, role: 'owner' });
    const personal = (await createToken(h.prisma, { kind: 'personal', email: stranger.email })).token;
    const oauth = (await createToken(h.prisma, { kind: 'oauth', email: stranger.email, workspaces: B.ws.id })).token;
    for (const token of [personal, oauth, B.tokens.owner]) {
      for (const [real, fake] of [
        [A.ws.slug, uniq('nope')],
        [A.ws.id, randomUUID()],
      ] as const) {
        const toA = await request(h.app).get('/api/v1/monitors').set(bearer(token)).set('X-Statusvane-Workspace', real);
        const toNothing = await request(h.app)
          .get('/api/v1/monitors')
          .set(bearer(token))
          .set('X-Statusvane-Workspace', fake);
        expect(toA.status).toBe(403);
        expect(observable(toA, real)).toEqual(observable(toNothing, fake));
      }
    }
  });

  it("never lists workspace A's records", async () => {
    const aIds = [
      (await resources.monitor()).id,
      (await resources.incident()).id,
      (await resources.maintenance()).id,
      (await resources.statusPage()).id,
      (await resources.webhook()).id,
      (await resources.escalationPolicy()).id,
      (await resources.token()).id,
      (await resources.member()).id,
    ];
    // Every GET without an id: the paginated lists asked for their largest page, and the others (GET /config) whole.
    // A person's own (`/me/...`) are no workspace's: their own suite (contact-methods) covers them.
    const lists = API_ROUTES.filter((r) => !r.path.includes('{') && r.method === 'get' && r.roles !== 'self').map(
      (r) => ({
        path: r.path,
        roles: r.roles,
        query: successOf(r).page ? '?perPage=250' : '',
      }),
    );
    expect(lists.length).toBeGreaterThanOrEqual(2);
    for (const { path, roles, query } of lists) {
      for (const caller of callers) {
        const res = await request(h.app).get(`/api/v1${path}${query}`).set(caller.headers);
        // A list for managers only (GET /tokens, /audit-events, /webhooks) is 403 to a viewer.
        const expected = caller.label === 'org viewer' && roles !== 'read' ? 403 : 200;
        expect([path, caller.label, res.status]).toEqual([path, caller.label, expected]);
        for (const id of aIds) expect(res.text).not.toContain(id);
      }
    }
  });
});
