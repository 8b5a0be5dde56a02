import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import assert from 'node:assert/strict';
import { encodeCursor, endOfLog, hashToken } from '@statusvane/shared';
import request from 'supertest';
import {
  addMember,
  createToken,
  createUser,
  createWorkspace,
  removeMember,
  revokeToken,
} from '../apps/api/src/admin/admin-commands.js';
import { assignPolicy, createPolicy } from '../apps/api/src/admin/policy-commands.js';
import {
  arrangeStatusPage,
  clearStatusPagePassword,
  setStatusPagePassword,
} from '../apps/api/src/admin/status-page-commands.js';
import { createStatusPage } from '../apps/api/src/services/status-pages/create-status-page.js';
import { adminProcess } from './support/admin-cli.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeUser, makeWorkspace, serviceCtx, uniq, type Harness } from './support/harness.js';

/** Audit events (docs/decisions.md, "Versions and audit events"). */
let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let ownerTokenId: string;
beforeAll(async () => {
  h = makeHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  ws = await makeWorkspace(h.prisma);
  ownerTokenId = (await h.prisma.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(ws.tokens.owner) } })).id;
});
afterAll(async () => {
  await h.close();
});

type Event = {
  id: string;
  at: string;
  actor: { type: string; id: string; name: string };
  action: string;
  resourceType: string;
  resourceId: string;
  changes?: Record<string, { from: unknown; to: unknown }>;
};

const api = (token = ws.tokens.owner) => ({
  post: (path: string, body: object = {}) => request(h.app).post(`/api/v1${path}`).set(bearer(token)).send(body),
  patch: (path: string, body: object) => request(h.app).patch(`/api/v1${path}`).set(bearer(token)).send(body),
  del: (path: string) => request(h.app).delete(`/api/v1${path}`).set(bearer(token)),
  get: (path: string) => request(h.app).get(`/api/v1${path}`).set(bearer(token)),
});
/** The events of one record, oldest first, as GET /audit-events shows them. */
const eventsOf = async (resourceId: string, token = ws.tokens.admin): Promise<Event[]> => {
  const res = await api(token).get(`/audit-events?resourceId=${resourceId}&perPage=250`);
  expect(res.status).toBe(200);
  return (res.body.data as Event[]).reverse();
};
const actions = async (resourceId: string) => (await eventsOf(resourceId)).map((e) => e.action);
/** Every audit event row of the workspace, in the database (secrets must not be anywhere in it). */
const rawEvents = async (workspaceId = ws.ws.id) =>
  JSON.stringify(await h.prisma.auditEvent.findMany({ where: { workspaceId }, omit: { seq: true } }));

describe('one event per successful write through the API', () => {
  it('monitors: created, updated, deleted, with the actor and the fields that changed', async () => {
    const created = await api().post('/monitors', makeMonitorInput({ name: 'Audited', intervalSeconds: 60 }));
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    await api(ws.tokens.member).patch(`/monitors/${id}`, { intervalSeconds: 120, enabled: false });
    await api(ws.tokens.admin).del(`/monitors/${id}`);

    const [c, u, d] = await eventsOf(id);
    expect(c).toMatchObject({
      actor: { type: 'token', id: ownerTokenId, name: expect.any(String) },
      action: 'monitor.created',
      resourceType: 'monitor',
      resourceId: id,
      changes: { name: { from: null, to: 'Audited' }, intervalSeconds: { from: null, to: 60 } },
    });
    // What checks observe is not a change: no status, lastCheckedAt or certificate in the create's changes.
    expect(Object.keys(c!.changes!)).not.toEqual(expect.arrayContaining(['status']));
    expect(u).toMatchObject({
      action: 'monitor.updated',
      actor: { type: 'token' },
      changes: { intervalSeconds: { from: 60, to: 120 }, enabled: { from: true, to: false } },
    });
    expect(Object.keys(u!.changes!).sort()).toEqual(['enabled', 'intervalSeconds']);
    expect(u!.actor.id).not.toBe(ownerTokenId); // the member's token
    expect(d).toMatchObject({ action: 'monitor.deleted', changes: { name: { from: 'Audited', to: null } } });
    expect(Date.parse(c!.at)).toBeLessThanOrEqual(Date.parse(d!.at));
  });

  it('a monitor PATCH that changes nothing (the same name, headers and body) records nothing', async () => {
    const created = await api().post(
      '/monitors',
      makeMonitorInput({ name: 'Same', method: 'POST', headers: { 'X-Key': 'k1' }, body: '{"a":1}' }),
    );
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const webhookEvents = () => h.prisma.event.count({ where: { subject: `monitors/${id}`, type: 'monitor.updated' } });
    const same = await api().patch(`/monitors/${id}`, { name: 'Same', headers: { 'X-Key': 'k1' }, body: '{"a":1}' });
    expect([same.status, same.body.data.version]).toEqual([200, 1]);
    expect(await actions(id)).toEqual(['monitor.created']);
    expect(await webhookEvents()).toBe(0);
    // A new header value is a change, shown redacted.
    const changed = await api().patch(`/monitors/${id}`, { headers: { 'X-Key': 'k2' }, body: '{"a":1}' });
    expect(changed.body.data.version).toBe(2);
    expect((await eventsOf(id)).at(-1)?.changes).toEqual({ headers: { from: '<redacted>', to: '<redacted>' } });
    expect(await webhookEvents()).toBe(1);
  });

  it('components, maintenance windows and status pages', async () => {
    const monitor = (await api().post('/monitors', makeMonitorInput())).body.data;
    await api().patch(`/components/${monitor.componentId}`, { description: 'The public API' });
    expect(await eventsOf(monitor.componentId)).toEqual([
      expect.objectContaining({
        action: 'component.updated',
        resourceType: 'component',
        changes: { description: { from: '', to: 'The public API' } },
      }),
    ]);

    const windowId = (
      await api().post('/maintenance', {
        title: 'Upgrade',
        startsAt: '2031-01-01T00:00:00Z',
        endsAt: '2031-01-01T02:00:00Z',
      })
    ).body.data.id;
    await api().patch(`/maintenance/${windowId}`, { status: 'cancel' });
    expect((await api().del(`/maintenance/${windowId}`)).status).toBe(204);
    const [wc, wu, wd] = await eventsOf(windowId);
    expect(wc).toMatchObject({
      action: 'maintenance_window.created',
      changes: { title: { from: null, to: 'Upgrade' } },
    });
    expect(wu).toMatchObject({
      action: 'maintenance_window.updated',
      changes: { status: { from: 'scheduled', to: 'cancelled' } },
    });
    expect(wd).toMatchObject({
      action: 'maintenance_window.deleted',
      changes: { title: { from: 'Upgrade', to: null }, status: { from: 'cancelled', to: null } },
    });

    const page = (await api().post('/status-pages', { vanityUrl: uniq('audit'), name: 'Audit' })).body.data;
    await api().patch(`/status-pages/${page.id}`, { sections: [{ name: 'API', componentIds: [monitor.componentId] }] });
    await api().del(`/status-pages/${page.id}`);
    const [pc, pu, pd] = await eventsOf(page.id);
    expect(pc).toMatchObject({ action: 'status_page.created' });
    expect(pu).toMatchObject({
      action: 'status_page.updated',
      changes: { sections: { from: [], to: [{ name: 'API', componentIds: [monitor.componentId] }] } },
    });
    expect(pd).toMatchObject({ action: 'status_page.deleted', changes: { slug: { from: page.slug, to: null } } });
  });

  it('incidents: created, update posted, acknowledged, resolved, deleted; a no-op action records nothing', async () => {
    const id = (await api().post('/incidents', { title: 'Slow API', message: 'Looking' })).body.data.id as string;
    await api().post(`/incidents/${id}/updates`, { status: 'identified', message: 'Found it' });
    await api().post(`/incidents/${id}/acknowledge`);
    await api().post(`/incidents/${id}/acknowledge`); // already acknowledged: 200, nothing changes
    await api().post(`/incidents/${id}/resolve`);
    await api().post(`/incidents/${id}/resolve`);
    const incident = await api().get(`/incidents/${id}`);
    expect(incident.body.data.version).toBe(4);
    await api().del(`/incidents/${id}`);
    const events = await eventsOf(id);
    expect(events.map((e) => e.action)).toEqual([
      'incident.created',
      'incident.update_posted',
      'incident.acknowledged',
      'incident.resolved',
      'incident.deleted',
    ]);
    expect(events[1]!.changes).toEqual({
      update: { from: null, to: { id: expect.any(String), status: 'identified', message: 'Found it' } },
    });
    expect(events[3]!.changes).toEqual({
      status: { from: 'acknowledged', to: 'resolved' },
      resolvedAt: { from: null, to: expect.any(String) },
    });

    // A `resolved` update is one write: the resolve and the message in one transaction, one event, one version.
    const other = (await api().post('/incidents', { title: 'Slow DB' })).body.data as { id: string; version: number };
    const posted = await api().post(`/incidents/${other.id}/updates`, { status: 'resolved', message: 'Fixed' });
    expect(posted.status).toBe(201);
    const after = (await api().get(`/incidents/${other.id}`)).body.data;
    expect([after.status, after.version]).toEqual(['resolved', other.version + 1]);
    const resolvedEvents = await eventsOf(other.id);
    expect(resolvedEvents.map((e) => e.action)).toEqual(['incident.created', 'incident.update_posted']);
    expect(resolvedEvents[1]!.changes).toEqual({
      status: { from: 'open', to: 'resolved' },
      resolvedAt: { from: null, to: expect.any(String) },
      update: { from: null, to: { id: expect.any(String), status: 'resolved', message: 'Fixed' } },
    });
  });

  it('names the user behind a personal token', async () => {
    const user = await makeUser(h.prisma, [{ workspace: ws.ws.id, role: 'admin' }]);
    const personal = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
    const page = await request(h.app)
      .post('/api/v1/status-pages')
      .set({ ...bearer(personal), 'X-Statusvane-Workspace': ws.ws.slug })
      .send({ vanityUrl: uniq('by-user'), name: 'By user' });
    expect(page.status).toBe(201);
    const [event] = await eventsOf(page.body.data.id);
    expect(event!.actor).toEqual({ type: 'user', id: user.id, name: user.email });
  });
});

describe('secrets', () => {
  it('monitor headers and body, a status page password and a ping URL show only "<redacted>"', async () => {
    const monitor = (
      await api().post(
        '/monitors',
        makeMonitorInput({ method: 'POST', headers: { 'X-Api-Key': 'sekrit-header-1' }, body: 'sekrit-body-1' }),
      )
    ).body.data;
    await api().patch(`/monitors/${monitor.id}`, {
      headers: { 'X-Api-Key': 'sekrit-header-2' },
      body: 'sekrit-body-2',
    });
    const [, updated] = await eventsOf(monitor.id);
    expect(updated!.changes).toEqual({
      headers: { from: '<redacted>', to: '<redacted>' },
      body: { from: '<redacted>', to: '<redacted>' },
    });

    const heartbeat = (await api().post('/monitors', { type: 'heartbeat', name: 'Nightly', intervalSeconds: 3600 }))
      .body.data;
    const [hb] = await eventsOf(heartbeat.id);
    expect(hb!.changes!.pingUrl).toEqual({ from: null, to: '<redacted>' });

    const page = (await api().post('/status-pages', { vanityUrl: uniq('pw'), name: 'PW' })).body.data;
    await api().patch(`/status-pages/${page.id}`, { password: 'sekrit-password-1' });
    await api().patch(`/status-pages/${page.id}`, { password: null });
    const [, set, cleared] = await eventsOf(page.id);
    expect(set!.changes).toEqual({
      passwordProtected: { from: false, to: true },
      password: { from: null, to: '<redacted>' },
    });
    expect(cleared!.changes!.password).toEqual({ from: '<redacted>', to: null });

    const raw = await rawEvents();
    for (const secret of ['sekrit', heartbeat.pingUrl.split('/').pop()]) expect(raw).not.toContain(secret);
  });
});

describe('webhooks', () => {
  it('created, updated, replayed, deleted: the URL and the secret show only "<redacted>"; the same URL is no change', async () => {
    const created = await api().post('/webhooks', {
      url: 'https://93.184.215.14/hook?token=sekrit-url-1',
      types: ['incident.opened'],
      description: 'Bot',
    });
    expect(created.status).toBe(201);
    const hook = created.body.data as { id: string; secret: string; version: number };
    expect(hook.version).toBe(1);
    const patch = (body: object) => api(ws.tokens.admin).patch(`/webhooks/${hook.id}`, body);
    // The same URL (another path, same display) and another description.
    expect(
      (await patch({ url: 'https://93.184.215.14/other?token=sekrit-url-2', description: 'Pager' })).body.data,
    ).toMatchObject({ version: 2, url: 'https://93.184.215.14/…' });
    // Sent again unchanged: nothing changes, no event, the version stands.
    const same = await patch({ url: 'https://93.184.215.14/other?token=sekrit-url-2', description: 'Pager' });
    expect([same.status, same.headers.etag]).toEqual([200, '"2"']);
    const end = encodeCursor(await endOfLog(h.prisma));
    const before = (await api().get(`/webhooks/${hook.id}`)).body.data;
    // A replay is recorded but is no edit: the version (and updatedAt) stay, so a PATCH holding "2" still applies.
    const replayed = await api().post(`/webhooks/${hook.id}/replay`, { after: end });
    expect([replayed.status, replayed.body.data]).toEqual([200, before]);
    const held = await api(ws.tokens.admin).del(`/webhooks/${hook.id}`).set('If-Match', '"2"');
    expect(held.status).toBe(204);

    const [c, u, r, d, ...rest] = await eventsOf(hook.id);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      action: 'webhook.created',
      resourceType: 'webhook',
      actor: { type: 'token', id: ownerTokenId },
      changes: {
        url: { from: null, to: '<redacted>' },
        secret: { from: null, to: '<redacted>' },
        types: { from: null, to: ['incident.opened'] },
        description: { from: null, to: 'Bot' },
      },
    });
    expect(u).toMatchObject({ action: 'webhook.updated', actor: { type: 'token' } });
    expect(u!.changes).toEqual({
      url: { from: '<redacted>', to: '<redacted>' },
      description: { from: 'Bot', to: 'Pager' },
    });
    expect(r).toMatchObject({ action: 'webhook.replayed' });
    expect(d).toMatchObject({ action: 'webhook.deleted', changes: { description: { from: 'Pager', to: null } } });
    const raw = await rawEvents();
    for (const secret of ['sekrit', hook.secret]) expect(raw).not.toContain(secret);
  });
});

describe('a write that fails records nothing', () => {
  it('a refused PATCH (409, 400 judged in the transaction) leaves no event and the version as it was', async () => {
    const taken = (await api().post('/status-pages', { vanityUrl: uniq('taken'), name: 'T' })).body.data;
    const page = (await api().post('/status-pages', { vanityUrl: uniq('mine'), name: 'M' })).body.data;
    const conflict = await api().patch(`/status-pages/${page.id}`, { name: 'Renamed', slug: taken.slug });
    expect(conflict.status).toBe(409);
    expect(await actions(page.id)).toEqual(['status_page.created']);
    expect((await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } })).version).toBe(1);

    const monitor = (await api().post('/monitors', makeMonitorInput())).body.data;
    const policy = '00000000-0000-4000-8000-000000000000';
    const refused = await api().patch(`/monitors/${monitor.id}`, { name: 'x', escalationPolicyId: policy });
    expect(refused.status).toBe(400);
    expect(await actions(monitor.id)).toEqual(['monitor.created']);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).version).toBe(1);
  });

  it('the event is in the write transaction: a hook that throws after it rolls both back', async () => {
    const slug = uniq('rolled');
    await expect(
      createStatusPage(h.deps, {
        ctx: serviceCtx(ws.ws, 'owner', {
          // Only createMonitor asks a hook for its `answer` (to store it beside others'): a status page calls it.
          inTransaction: Object.assign(
            async () => {
              throw new Error('store failed');
            },
            { answer: () => assert.fail('a status page stores its answer through the hook') },
          ),
        }),
        input: { slug, name: 'P', isPublic: true },
      }),
    ).rejects.toThrow('store failed');
    expect(await h.prisma.statusPage.count({ where: { slug } })).toBe(0);
    expect(
      await h.prisma.auditEvent.count({
        where: { workspaceId: ws.ws.id, changes: { path: ['slug', 'to'], equals: slug } },
      }),
    ).toBe(0);
  });
});

describe('GET /audit-events', () => {
  it('is for managers only: owner and admin read, member and viewer get 403', async () => {
    for (const [role, status] of [
      ['owner', 200],
      ['admin', 200],
      ['member', 403],
      ['viewer', 403],
    ] as const) {
      expect([role, (await api(ws.tokens[role]).get('/audit-events')).status]).toEqual([role, status]);
    }
  });

  it('lists newest first, paginated, filtered by resourceType, resourceId, action and actorId; 400 on bad input', async () => {
    const other = await makeWorkspace(h.prisma);
    const mine = await makeWorkspace(h.prisma);
    const as = (token: string) => api(token);
    const a = (await as(mine.tokens.owner).post('/status-pages', { vanityUrl: uniq('a'), name: 'A' })).body.data;
    const b = (await as(mine.tokens.admin).post('/status-pages', { vanityUrl: uniq('b'), name: 'B' })).body.data;
    await as(mine.tokens.owner).patch(`/status-pages/${a.id}`, { name: 'A2' });
    await as(other.tokens.owner).post('/status-pages', { vanityUrl: uniq('o'), name: 'Other' });

    const list = await as(mine.tokens.owner).get('/audit-events?resourceType=status_page');
    expect(list.body.data.map((e: Event) => [e.action, e.resourceId])).toEqual([
      ['status_page.updated', a.id],
      ['status_page.created', b.id],
      ['status_page.created', a.id],
    ]);
    const page2 = await as(mine.tokens.owner).get('/audit-events?resourceType=status_page&perPage=2&page=2');
    expect(page2.body.pagination).toEqual({ page: 2, perPage: 2, total: 3, totalPages: 2 });
    expect(page2.body.data.map((e: Event) => e.resourceId)).toEqual([a.id]);

    const byAction = await as(mine.tokens.owner).get('/audit-events?action=status_page.updated');
    expect(byAction.body.data.map((e: Event) => e.resourceId)).toEqual([a.id]);
    const adminId = (await h.prisma.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(mine.tokens.admin) } }))
      .id;
    const byActor = await as(mine.tokens.owner).get(`/audit-events?actorId=${adminId}`);
    expect(byActor.body.data.map((e: Event) => [e.action, e.resourceId])).toEqual([['status_page.created', b.id]]);
    const byId = await as(mine.tokens.owner).get(`/audit-events?resourceId=${b.id.toUpperCase()}`);
    expect(byId.body.data).toHaveLength(1);
    // The workspace's own events only: creating it and its tokens (admin CLI), and its pages.
    const all = await as(mine.tokens.owner).get('/audit-events?perPage=250');
    expect(new Set(all.body.data.map((e: Event) => e.resourceType))).toEqual(
      new Set(['workspace', 'token', 'status_page']),
    );
    expect(all.body.data.some((e: Event) => e.changes?.name?.to === 'Other')).toBe(false);

    for (const query of ['resourceType=planet', 'resourceId=12', 'since=yesterday', 'perPage=0']) {
      const bad = await as(mine.tokens.owner).get(`/audit-events?${query}`);
      expect([query, bad.status, bad.body.error.code]).toEqual([query, 400, 'invalid_request']);
    }
  });
});

describe('the admin CLI', () => {
  it('records its writes with a cli actor: workspace, members, org tokens, status pages, policies', async () => {
    const made = await createWorkspace(h.prisma, { slug: uniq('cli'), name: 'CLI' });
    const user = await createUser(h.prisma, { email: `${uniq('cli')}@example.test` });
    await addMember(h.prisma, { workspace: made.id, email: user.email, role: 'member' });
    await addMember(h.prisma, { workspace: made.id, email: user.email, role: 'admin' });
    await removeMember(h.prisma, { workspace: made.id, email: user.email });
    const token = await createToken(h.prisma, { kind: 'org', workspace: made.id, role: 'admin', name: 'ci' });
    const page = (
      await request(h.app)
        .post('/api/v1/status-pages')
        .set(bearer(token.token))
        .send({ vanityUrl: uniq('c'), name: 'C' })
    ).body.data;
    const monitor = (await request(h.app).post('/api/v1/monitors').set(bearer(token.token)).send(makeMonitorInput()))
      .body.data;
    const opts = { publicBaseUrl: 'https://status.example.test' };
    await setStatusPagePassword(h.prisma, { id: page.id, password: 'sekrit-cli-pw' }, opts);
    await clearStatusPagePassword(h.prisma, { id: page.id }, opts);
    await arrangeStatusPage(h.prisma, {
      id: page.id,
      json: JSON.stringify([{ name: 'All', componentIds: [monitor.componentId] }]),
    });
    const policy = await createPolicy(
      h.prisma,
      {
        workspace: made.id,
        json: JSON.stringify({
          name: 'On call',
          repeatCount: 0,
          silent: false,
          runbook: '',
          steps: [
            {
              delayMinutes: 0,
              minImpact: 'none',
              targets: [{ channel: 'webhook', target: 'https://93.184.215.14/sekrit-hook' }],
            },
          ],
        }),
      },
      { guard: h.deps.guard, encryption: h.config.encryption.current },
    );
    await assignPolicy(h.prisma, { monitor: monitor.id, policy: policy.id }, h.config);
    // Assigned again: nothing changes, so no audit event, no version and no `monitor.updated` (as a no-op PATCH).
    const updatedEvents = () => h.prisma.event.count({ where: { workspaceId: made.id, type: 'monitor.updated' } });
    const logged = await updatedEvents();
    expect(logged).toBe(1);
    await assignPolicy(h.prisma, { monitor: monitor.id, policy: policy.id }, h.config);
    expect(await updatedEvents()).toBe(logged);
    await revokeToken(h.prisma, { id: token.id });

    const events = (
      await h.prisma.auditEvent.findMany({ where: { workspaceId: made.id }, orderBy: [{ at: 'asc' }, { seq: 'asc' }] })
    ).filter((e) => e.actorType === 'cli');
    expect(events.map((e) => e.action)).toEqual([
      'workspace.created',
      'member.created',
      'member.updated',
      'member.deleted',
      'token.created',
      'status_page.updated',
      'status_page.updated',
      'status_page.updated',
      'escalation_policy.created',
      'monitor.updated',
      'token.deleted',
    ]);
    expect(events[0]).toMatchObject({ actorId: expect.any(String), actorName: expect.stringContaining('@') });
    expect(events[2]!.changes).toEqual({ role: { from: 'member', to: 'admin' } });
    expect(events[5]!.changes).toEqual({
      passwordProtected: { from: false, to: true },
      password: { from: null, to: '<redacted>' },
    });
    expect(events[9]!.changes).toEqual({ escalationPolicyId: { from: null, to: policy.id } });
    // Each write moved its record's version: the page was written three times, the monitor once.
    expect((await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } })).version).toBe(4);
    expect((await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor.id } })).version).toBe(2);
    expect(await rawEvents(made.id)).not.toContain('sekrit');
  });

  it('a command run as a process records the operating-system user', async () => {
    const page = (await api().post('/status-pages', { vanityUrl: uniq('proc'), name: 'Proc' })).body.data;
    const out = await adminProcess(['status-page', 'clear-password', '--id', page.id]);
    expect([out.code, out.stderr]).toEqual([0, '']);
    const [, event] = await eventsOf(page.id);
    expect(event).toMatchObject({ action: 'status_page.updated', actor: { type: 'cli', id: expect.any(String) } });
    expect(event!.actor.id.length).toBeGreaterThan(0);
  });
});
