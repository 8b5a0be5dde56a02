import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { API_ROUTES } from '../apps/api/src/routes/api-routes.js';
import { takesIfMatch } from '../apps/api/src/routes/define-route.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeUser, makeWorkspace, uniq, type Harness } from './support/harness.js';

/** Versions, ETag and If-Match (docs/decisions.md, "Versions and audit events"). */
let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const createPage = async () => {
  const res = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(ws.tokens.owner))
    .send({ vanityUrl: uniq('page'), name: 'Page' });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; version: number; name: string };
};
const patchPage = (id: string, body: object, ifMatch?: string) => {
  const req = request(h.app).patch(`/api/v1/status-pages/${id}`).set(bearer(ws.tokens.admin));
  return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body);
};
const eventsOf = (id: string) => h.prisma.auditEvent.findMany({ where: { resourceId: id }, orderBy: { seq: 'asc' } });

describe('version and ETag', () => {
  it('starts at 1, grows by one per write, and is answered as ETag by GET and PATCH (not by lists)', async () => {
    const page = await createPage();
    expect(page.version).toBe(1);
    const got = await request(h.app).get(`/api/v1/status-pages/${page.id}`).set(bearer(ws.tokens.viewer));
    expect([got.status, got.headers.etag, got.body.data.version]).toEqual([200, '"1"', 1]);

    const renamed = await patchPage(page.id, { name: 'Renamed' });
    expect([renamed.status, renamed.headers.etag, renamed.body.data.version]).toEqual([200, '"2"', 2]);
    const again = await patchPage(page.id, { isPublic: false });
    expect([again.headers.etag, again.body.data.version]).toEqual(['"3"', 3]);

    const list = await request(h.app).get('/api/v1/status-pages').set(bearer(ws.tokens.viewer));
    expect(list.headers.etag).toBeUndefined();
    expect(list.body.data.find((p: { id: string }) => p.id === page.id).version).toBe(3);
  });

  it('GET with If-None-Match of the current ETag answers 304', async () => {
    const page = await createPage();
    const res = await request(h.app)
      .get(`/api/v1/status-pages/${page.id}`)
      .set(bearer(ws.tokens.viewer))
      .set('If-None-Match', '"1"');
    expect(res.status).toBe(304);
  });

  it('validates If-None-Match whatever Cache-Control says (fetch sends no-cache), weak tags and lists included', async () => {
    const page = await createPage();
    const get = (ifNoneMatch: string, cacheControl = 'no-cache') =>
      request(h.app)
        .get(`/api/v1/status-pages/${page.id}`)
        .set(bearer(ws.tokens.viewer))
        .set('If-None-Match', ifNoneMatch)
        .set('Cache-Control', cacheControl)
        .set('Pragma', 'no-cache');
    for (const tag of ['"1"', 'W/"1"', '"7", "1"', '*']) {
      const res = await get(tag);
      expect([tag, res.status, res.headers.etag, res.text]).toEqual([tag, 304, '"1"', '']);
    }
    expect((await get('"1"', 'max-age=0')).status).toBe(304);
    const stale = await get('"2"');
    expect([stale.status, stale.body.data.id]).toEqual([200, page.id]);
    // The OpenAPI document revalidates the same way.
    const doc = await request(h.app).get('/api/v1/openapi.json');
    const again = await request(h.app)
      .get('/api/v1/openapi.json')
      .set('If-None-Match', doc.headers.etag!)
      .set('Cache-Control', 'no-cache');
    expect(again.status).toBe(304);
  });
});

describe('If-Match', () => {
  it('PATCH with the current version writes; with a stale one: 412 precondition_failed and nothing written', async () => {
    const page = await createPage();
    const ok = await patchPage(page.id, { name: 'First' }, '"1"');
    expect([ok.status, ok.headers.etag]).toEqual([200, '"2"']);

    const stale = await patchPage(page.id, { name: 'Second' }, '"1"');
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({
      error: { code: 'precondition_failed', message: expect.stringContaining('version 2'), details: { version: 2 } },
    });
    const row = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } });
    expect([row.name, row.version]).toEqual(['First', 2]);
    expect((await eventsOf(page.id)).map((e) => e.action)).toEqual(['status_page.created', 'status_page.updated']);
  });

  it('takes a list of tags and `*`; a weak tag never matches; a malformed value is 400 naming the header', async () => {
    const page = await createPage();
    expect((await patchPage(page.id, { name: 'a' }, '"7", "1"')).status).toBe(200);
    expect((await patchPage(page.id, { name: 'b' }, '*')).status).toBe(200);
    expect((await patchPage(page.id, { name: 'c' }, 'W/"3"')).status).toBe(412);
    const bad = await patchPage(page.id, { name: 'd' }, '3');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'If-Match', message: expect.any(String) }]);
    expect((await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } })).version).toBe(3);
  });

  it('DELETE with a stale version: 412 and the record stays; with the current one: 204', async () => {
    const page = await createPage();
    await patchPage(page.id, { name: 'moved on' });
    const del = (ifMatch: string) =>
      request(h.app).delete(`/api/v1/status-pages/${page.id}`).set(bearer(ws.tokens.admin)).set('If-Match', ifMatch);
    expect((await del('"1"')).status).toBe(412);
    expect(await h.prisma.statusPage.count({ where: { id: page.id } })).toBe(1);
    expect((await del('"2"')).status).toBe(204);
    expect(await h.prisma.statusPage.count({ where: { id: page.id } })).toBe(0);
    // A record that is gone is 404, whatever If-Match says.
    expect((await del('"2"')).status).toBe(404);
  });

  it('two writers holding the same version: exactly one succeeds, the other gets 412', async () => {
    const page = await createPage();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => patchPage(page.id, { name: `writer ${i}` }, '"1"')),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    const row = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } });
    expect([row.name, row.version]).toEqual([winner.body.data.name, 2]);
    expect(await h.prisma.auditEvent.count({ where: { resourceId: page.id, action: 'status_page.updated' } })).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Every PATCH and DELETE: a stale If-Match is 412 with nothing written, the current one writes once
// ---------------------------------------------------------------------------------------------------------------

/** A record of the workspace: the path to it, its state in the database, and its version (null once gone). */
interface Target {
  path: string;
  resourceId: string;
  state: () => Promise<unknown>;
  version: () => Promise<number | null>;
}

const createIn = async (path: string, body: object) => {
  const res = await request(h.app).post(`/api/v1${path}`).set(bearer(ws.tokens.owner)).send(body);
  expect([path, res.status]).toEqual([path, 201]);
  return res.body.data.id as string;
};

/** A target from its path and a read of its row (null once deleted). */
const target = (path: string, resourceId: string, row: () => Promise<{ version: number } | null>): Target => ({
  path,
  resourceId,
  state: row,
  version: async () => (await row())?.version ?? null,
});

const targets = {
  async monitor(): Promise<Target> {
    const id = await createIn('/monitors', makeMonitorInput({ headers: { 'X-Key': 'k' } }));
    const row = () => h.prisma.monitor.findUnique({ where: { id } });
    return target(`/monitors/${id}`, id, row);
  },
  async component(): Promise<Target> {
    const monitor = await createIn('/monitors', makeMonitorInput());
    const { componentId: id } = await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor } });
    const row = () => h.prisma.component.findUnique({ where: { id } });
    return target(`/components/${id}`, id, row);
  },
  async maintenance(): Promise<Target> {
    const id = await createIn('/maintenance', {
      title: 'Window',
      startsAt: '2031-01-01T00:00:00Z',
      endsAt: '2031-01-01T02:00:00Z',
    });
    const row = () => h.prisma.maintenanceWindow.findUnique({ where: { id }, include: { components: true } });
    return target(`/maintenance/${id}`, id, row);
  },
  async statusPage(): Promise<Target> {
    const id = await createIn('/status-pages', { vanityUrl: uniq('page'), name: 'Page' });
    const row = () => h.prisma.statusPage.findUnique({ where: { id }, include: { sections: true } });
    return target(`/status-pages/${id}`, id, row);
  },
  async incident(): Promise<Target> {
    const id = await createIn('/incidents', { title: 'Manual', message: 'Looking' });
    const row = () => h.prisma.incident.findUnique({ where: { id }, include: { updates: true } });
    return target(`/incidents/${id}`, id, row);
  },
  async policy(): Promise<Target> {
    const id = await createIn('/escalation-policies', {
      name: 'On call',
      steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'oncall@example.test' }] }],
    });
    const row = () => h.prisma.escalationPolicy.findUnique({ where: { id }, include: { steps: true } });
    return target(`/escalation-policies/${id}`, id, row);
  },
  async member(): Promise<Target> {
    const res = await request(h.app)
      .post('/api/v1/members')
      .set(bearer(ws.tokens.owner))
      .send({ email: `${uniq('member')}@example.test`, role: 'member' });
    expect(res.status).toBe(201);
    const userId = res.body.data.userId as string;
    const row = () =>
      h.prisma.membership.findUnique({ where: { workspaceId_userId: { workspaceId: ws.ws.id, userId } } });
    return target(`/members/${userId}`, userId, row);
  },
  async token(): Promise<Target> {
    const id = await createIn('/tokens', { name: 'Deploys', role: 'member' });
    const row = () => h.prisma.apiToken.findFirst({ where: { id, revokedAt: null } });
    return target(`/tokens/${id}`, id, row);
  },
  async wallToken(): Promise<Target> {
    const id = await createIn('/wall-tokens', { name: 'Office' });
    const row = () => h.prisma.wallToken.findUnique({ where: { id } });
    return target(`/wall-tokens/${id}`, id, row);
  },
  async webhook(): Promise<Target> {
    const id = await createIn('/webhooks', { url: 'https://93.184.215.14/hook?token=a-secret' });
    const row = () => h.prisma.webhook.findUnique({ where: { id } });
    return target(`/webhooks/${id}`, id, row);
  },
  async schedule(): Promise<Target> {
    const { id: userId } = await makeUser(h.prisma, [{ workspace: ws.ws.slug, role: 'member' }]);
    const id = await createIn('/schedules', {
      name: 'On call',
      timezone: 'Europe/Berlin',
      layers: [
        {
          name: 'Weekly',
          startsAt: '2026-01-05T09:00:00+01:00',
          rotation: { every: 1, unit: 'weeks' },
          handoffTime: '09:00',
          members: [userId],
        },
      ],
    });
    const row = () => h.prisma.schedule.findUnique({ where: { id } });
    return target(`/schedules/${id}`, id, row);
  },
  /** A schedule's override: audited and versioned on the schedule; its state is gone once removed. */
  async override(): Promise<Target> {
    const schedule = await targets.schedule();
    const { userId } = await h.prisma.membership.findFirstOrThrow({ where: { workspaceId: ws.ws.id } });
    const res = await request(h.app)
      .post(`/api/v1${schedule.path}/overrides`)
      .set(bearer(ws.tokens.owner))
      .send({ userId, startsAt: '2026-12-01T00:00:00Z', endsAt: '2026-12-02T00:00:00Z' });
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    const row = async () =>
      (await h.prisma.scheduleOverride.count({ where: { id } }))
        ? h.prisma.schedule.findUnique({ where: { id: schedule.resourceId } })
        : null;
    return target(`${schedule.path}/overrides/${id}`, schedule.resourceId, row);
  },
  /** A schedule's calendar feed: audited and versioned on the schedule; gone once revoked. */
  async calendarFeed(): Promise<Target> {
    const schedule = await targets.schedule();
    const res = await request(h.app).post(`/api/v1${schedule.path}/calendar-token`).set(bearer(ws.tokens.owner));
    expect(res.status).toBe(201);
    const row = async () =>
      (await h.prisma.calendarToken.count({ where: { scheduleId: schedule.resourceId } }))
        ? h.prisma.schedule.findUnique({ where: { id: schedule.resourceId } })
        : null;
    return target(`${schedule.path}/calendar-token`, schedule.resourceId, row);
  },
  async accountingPolicy(): Promise<Target> {
    // The policy's row exists once written (GET answers the defaults at version 1 before).
    const put = await request(h.app)
      .put('/api/v1/settings/accounting')
      .set(bearer(ws.tokens.owner))
      .send({ maintenance: 'down' });
    expect(put.status).toBe(200);
    const row = () => h.prisma.accountingPolicy.findUnique({ where: { workspaceId: ws.ws.id } });
    return target('/settings/accounting', ws.ws.id, row);
  },
  async subscriber(): Promise<Target> {
    const page = await targets.statusPage();
    const { slug } = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.resourceId } });
    const sub = await request(h.app)
      .post(`/status/${slug}/subscribe`)
      .send({ email: `${uniq('sub')}@example.test` });
    expect(sub.status).toBe(202);
    const { id } = await h.prisma.statusPageSubscriber.findFirstOrThrow({ where: { statusPageId: page.resourceId } });
    const row = () => h.prisma.statusPageSubscriber.findUnique({ where: { id } });
    return target(`${page.path}/subscribers/${id}`, id, row);
  },
  async secret(): Promise<Target> {
    const name = `S_${uniq('s')
      .replace(/[^a-z0-9]/gi, '_')
      .toUpperCase()}`.slice(0, 64);
    const res = await request(h.app)
      .post('/api/v1/secrets')
      .set(bearer(ws.tokens.owner))
      .send({ name, value: 'first-value', allowedHosts: ['api.example.com'] });
    expect(res.status).toBe(201);
    const row = () => h.prisma.workspaceSecret.findFirst({ where: { workspaceId: ws.ws.id, name } });
    const { id } = (await row())!;
    return target(`/secrets/${name}`, id, row);
  },
};

/** Each PUT, PATCH and DELETE the API declares, with a record to write and a valid body: a new one without an entry fails. */
const CONDITIONAL: Record<string, { make: () => Promise<Target>; body?: object }> = {
  'PATCH /maintenance/{id}': { make: targets.maintenance, body: { title: 'Changed' } },
  'DELETE /maintenance/{id}': { make: targets.maintenance },
  'PATCH /monitors/{id}': { make: targets.monitor, body: { name: 'Changed', headers: { 'X-Key': 'other' } } },
  'DELETE /monitors/{id}': { make: targets.monitor },
  'PATCH /components/{id}': { make: targets.component, body: { description: 'Changed' } },
  'PATCH /status-pages/{id}': { make: targets.statusPage, body: { name: 'Changed', sections: [] } },
  'DELETE /status-pages/{id}': { make: targets.statusPage },
  'DELETE /incidents/{id}': { make: targets.incident },
  'PATCH /escalation-policies/{id}': { make: targets.policy, body: { name: 'Changed', silent: true } },
  'DELETE /escalation-policies/{id}': { make: targets.policy },
  'DELETE /status-pages/{id}/subscribers/{subscriberId}': { make: targets.subscriber },
  'PATCH /members/{userId}': { make: targets.member, body: { role: 'admin' } },
  'DELETE /members/{userId}': { make: targets.member },
  'DELETE /tokens/{id}': { make: targets.token },
  'DELETE /wall-tokens/{id}': { make: targets.wallToken },
  'PATCH /webhooks/{id}': {
    make: targets.webhook,
    body: { url: 'https://93.184.215.14/other?token=b-secret', types: ['incident.opened'] },
  },
  'DELETE /webhooks/{id}': { make: targets.webhook },
  'PATCH /schedules/{id}': { make: targets.schedule, body: { name: 'Changed', timezone: 'America/New_York' } },
  'DELETE /schedules/{id}': { make: targets.schedule },
  'DELETE /schedules/{id}/overrides/{overrideId}': { make: targets.override },
  'DELETE /schedules/{id}/calendar-token': { make: targets.calendarFeed },
  'PUT /secrets/{name}': {
    make: targets.secret,
    body: { value: 'second-value', allowedHosts: ['api.example.com'] },
  },
  'DELETE /secrets/{name}': { make: targets.secret },
  'PUT /settings/accounting': { make: targets.accountingPolicy, body: { maintenance: 'up' } },
};

const conditionalRoutes = API_ROUTES.filter(takesIfMatch).map((r) => `${r.method.toUpperCase()} ${r.path}`);

describe('If-Match on every PUT, PATCH and DELETE', () => {
  it('covers every declared PUT, PATCH and DELETE', () => {
    expect(conditionalRoutes.sort()).toEqual(Object.keys(CONDITIONAL).sort());
  });

  it.each(conditionalRoutes)('%s: stale -> 412 and nothing written; current -> written once', async (key) => {
    const { make, body } = CONDITIONAL[key]!;
    const method = key.split(' ')[0]!.toLowerCase() as 'put' | 'patch' | 'delete';
    const target = await make();
    const send = (ifMatch: string) => {
      const req = request(h.app)[method](`/api/v1${target.path}`).set(bearer(ws.tokens.owner)).set('If-Match', ifMatch);
      return body ? req.send(body) : req;
    };
    const version = (await target.version())!;
    const state = await target.state();
    const events = () => h.prisma.auditEvent.count({ where: { resourceId: target.resourceId } });
    const eventsBefore = await events();

    const stale = await send(`"${version + 1}"`);
    expect([key, stale.status, stale.body.error?.code, stale.body.error?.details]).toEqual([
      key,
      412,
      'precondition_failed',
      { version },
    ]);
    expect(await target.state()).toEqual(state);
    expect(await events()).toBe(eventsBefore);

    const ok = await send(`"${version}"`);
    expect([key, ok.status]).toEqual([key, method === 'delete' ? 204 : 200]);
    if (method !== 'delete') {
      expect([ok.headers.etag, ok.body.data.version]).toEqual([`"${version + 1}"`, version + 1]);
      expect(await target.version()).toBe(version + 1);
    } else {
      expect(await target.version()).toBeNull();
    }
    expect(await events()).toBe(eventsBefore + 1);
  });
});
