import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SIGNATURE_HEADER } from '@statusvane/shared';
import { startAlertProviders } from './support/alert-providers.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let fake: Awaited<ReturnType<typeof startAlertProviders>>;
let h: Harness;
let w: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  fake = await startAlertProviders();
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8', ...fake.env });
  w = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
  await fake.close();
});

const SECRET_URL = 'https://hooks.example.test/services/T000/B000/s3cretPath?token=s3cretQuery';
const ROUTING_KEY = 'abcdefghijklmnopqrstuvwxyz012345';
const body = (over: Record<string, unknown> = {}) => ({
  name: 'On call',
  runbook: 'https://wiki.example.test/rb',
  steps: [
    {
      delayMinutes: 0,
      targets: [
        { channel: 'slack', target: SECRET_URL },
        { channel: 'pagerduty', routingKey: ROUTING_KEY },
      ],
    },
    { delayMinutes: 10, minImpact: 'major', targets: [{ channel: 'email', target: 'cto@example.test' }] },
  ],
  ...over,
});
const api = (token: string) => ({
  post: (path: string, b: unknown) =>
    request(h.app)
      .post(`/api/v1${path}`)
      .set(bearer(token))
      .send(b as object),
  patch: (path: string, b: unknown) =>
    request(h.app)
      .patch(`/api/v1${path}`)
      .set(bearer(token))
      .send(b as object),
  get: (path: string) => request(h.app).get(`/api/v1${path}`).set(bearer(token)),
  delete: (path: string) => request(h.app).delete(`/api/v1${path}`).set(bearer(token)),
});
const create = async (over: Record<string, unknown> = {}, token = w.tokens.admin) => {
  const res = await api(token).post('/escalation-policies', body(over));
  expect([res.status, res.body.error]).toEqual([201, undefined]);
  return res.body.data as {
    id: string;
    version: number;
    isDefault: boolean;
    steps: Array<{ id: string; targets: Array<{ channel: string; display: string }> }>;
  };
};
const pathsOf = (res: request.Response) =>
  (res.body.error?.details?.issues as Array<{ path: string }> | undefined)?.map((i) => i.path);

describe('escalation policies over HTTP', () => {
  it('creates with the CLI body, shows targets only as display, stores them encrypted, lists and gets', async () => {
    const res = await api(w.tokens.owner).post('/escalation-policies', body());
    expect(res.status).toBe(201);
    const p = res.body.data;
    expect(p).toMatchObject({ name: 'On call', repeatCount: 0, silent: false, isDefault: false });
    expect(p.steps.map((s: { position: number; delayMinutes: number; minImpact: string }) => s)).toMatchObject([
      { position: 0, delayMinutes: 0, minImpact: 'none' },
      { position: 1, delayMinutes: 10, minImpact: 'major' },
    ]);
    expect(p.steps[0].targets.map((t: object) => ({ ...t, id: undefined }))).toEqual([
      { channel: 'slack', display: 'https://hooks.example.test/…', id: undefined },
      { channel: 'pagerduty', display: 'routing key …2345', id: undefined },
    ]);
    for (const secret of ['s3cret', ROUTING_KEY]) expect(JSON.stringify(res.body)).not.toContain(secret);
    const rows = await h.prisma.escalationTarget.findMany({ where: { step: { policyId: p.id } } });
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.legacyTarget).toBeNull();
      expect(row.targetEnc).toMatch(/^v1:/);
      expect(row.targetEnc).not.toContain('s3cret');
    }

    const list = await api(w.tokens.viewer).get('/escalation-policies?perPage=1');
    expect(list.status).toBe(200);
    expect(list.body.pagination).toMatchObject({ page: 1, perPage: 1 });
    expect(list.body.data).toHaveLength(1);
    const all = await api(w.tokens.viewer).get('/escalation-policies?perPage=250');
    expect(all.body.data.map((x: { id: string }) => x.id)).toContain(p.id);
    const one = await api(w.tokens.member).get(`/escalation-policies/${p.id.toUpperCase()}`);
    expect([one.status, one.body.data]).toEqual([200, p]);
  });

  it('is managers only: a member or viewer gets 403 and nothing is written', async () => {
    const before = await h.prisma.escalationPolicy.count({ where: { workspaceId: w.ws.id } });
    for (const token of [w.tokens.member, w.tokens.viewer]) {
      expect((await api(token).post('/escalation-policies', body())).status).toBe(403);
    }
    const p = await create();
    for (const token of [w.tokens.member, w.tokens.viewer]) {
      expect((await api(token).patch(`/escalation-policies/${p.id}`, { name: 'x' })).status).toBe(403);
      expect((await api(token).delete(`/escalation-policies/${p.id}`)).status).toBe(403);
    }
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: w.ws.id } })).toBe(before + 1);
  });

  it('400 names every bad field (schema, ladder order, SSRF) and writes nothing', async () => {
    const before = await h.prisma.escalationPolicy.count();
    const bad = await api(w.tokens.admin).post('/escalation-policies', {
      name: '',
      extra: 1,
      steps: [
        { delayMinutes: 5, targets: [{ channel: 'pagerduty', routingKey: 'short' }] },
        { delayMinutes: 1, targets: [{ channel: 'webhook', target: 'ftp://x.example/y' }] },
      ],
    });
    expect(bad.status).toBe(400);
    expect(pathsOf(bad)?.sort()).toEqual(
      ['extra', 'name', 'steps[0].targets[0].routingKey', 'steps[1].delayMinutes', 'steps[1].targets[0].target'].sort(),
    );
    const inward = await api(w.tokens.admin).post(
      '/escalation-policies',
      body({ steps: [{ delayMinutes: 0, targets: [{ channel: 'teams', target: 'http://169.254.169.254/latest' }] }] }),
    );
    expect([inward.status, pathsOf(inward)]).toEqual([400, ['steps[0].targets[0].target']]);
    expect(await h.prisma.escalationPolicy.count()).toBe(before);
  });

  it('POST honours Idempotency-Key: a retry answers the stored policy and creates one', async () => {
    const before = await h.prisma.escalationPolicy.count({ where: { workspaceId: w.ws.id } });
    const send = () =>
      request(h.app)
        .post('/api/v1/escalation-policies')
        .set(bearer(w.tokens.admin))
        .set('Idempotency-Key', `policy-${w.ws.id}`)
        .send(body());
    const first = await send();
    const again = await send();
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: w.ws.id } })).toBe(before + 1);
  });

  it('isDefault moves the workspace default; false on the default leaves none', async () => {
    const a = await create({ isDefault: true });
    expect(a.isDefault).toBe(true);
    const b = await create({ isDefault: true });
    // The old default shows isDefault: false now, a change of its record: one version more (spec §1).
    const lost = (await api(w.tokens.viewer).get(`/escalation-policies/${a.id}`)).body.data;
    expect([lost.isDefault, lost.version]).toEqual([false, a.version + 1]);
    expect(b.isDefault).toBe(true);
    const moved = await api(w.tokens.admin).patch(`/escalation-policies/${a.id}`, { isDefault: true });
    expect(moved.body.data.isDefault).toBe(true);
    const left = (await api(w.tokens.viewer).get(`/escalation-policies/${b.id}`)).body.data;
    expect([left.isDefault, left.version]).toEqual([false, b.version + 1]);
    const cleared = await api(w.tokens.admin).patch(`/escalation-policies/${a.id}`, { isDefault: false });
    expect(cleared.body.data.isDefault).toBe(false);
    expect((await h.prisma.workspace.findUniqueOrThrow({ where: { id: w.ws.id } })).defaultEscalationPolicyId).toBe(
      null,
    );
    // false on a policy that is not the default changes nothing.
    await api(w.tokens.admin).patch(`/escalation-policies/${b.id}`, { isDefault: true });
    await api(w.tokens.admin).patch(`/escalation-policies/${a.id}`, { isDefault: false });
    expect((await h.prisma.workspace.findUniqueOrThrow({ where: { id: w.ws.id } })).defaultEscalationPolicyId).toBe(
      b.id,
    );
  });

  it('moving the default records the change of the policy that loses it (audit event, version + 1)', async () => {
    const audit = async (id: string) =>
      (await api(w.tokens.admin).get(`/audit-events?resourceId=${id}`)).body.data as Array<{
        action: string;
        changes?: Record<string, unknown>;
      }>;
    const a = await create({ isDefault: true });
    const b = await create({ isDefault: true }); // POST takes the default from a
    expect((await audit(a.id))[0]).toMatchObject({
      action: 'escalation_policy.updated',
      changes: { isDefault: { from: true, to: false } },
    });
    const patched = await api(w.tokens.admin).patch(`/escalation-policies/${a.id}`, { isDefault: true });
    expect(patched.status).toBe(200);
    const lost = (await api(w.tokens.viewer).get(`/escalation-policies/${b.id}`)).body.data;
    expect([lost.isDefault, lost.version]).toEqual([false, b.version + 1]);
    const events = await audit(b.id);
    expect(events.map((e) => e.action)).toEqual(['escalation_policy.updated', 'escalation_policy.created']);
    expect(events[0]!.changes).toEqual({ isDefault: { from: true, to: false } });
    // A stale If-Match on the policy that lost the default now fails, as for any other change of it.
    const stale = await request(h.app)
      .patch(`/api/v1/escalation-policies/${b.id}`)
      .set(bearer(w.tokens.admin))
      .set('If-Match', `"${b.version}"`)
      .send({ name: 'Renamed' });
    expect(stale.status).toBe(412);
  });

  it('PATCH changes only the given fields; steps replace all, and an open incident keeps the ladder it pinned', async () => {
    const p = await create();
    const monitor = await api(w.tokens.admin).post('/monitors', makeMonitorInput());
    await api(w.tokens.admin).patch(`/monitors/${monitor.body.data.id}`, { escalationPolicyId: p.id });
    const incident = await h.prisma.incident.create({
      data: {
        workspaceId: w.ws.id,
        monitorId: monitor.body.data.id,
        openMonitorId: monitor.body.data.id,
        title: 'down',
      },
    });
    expect(incident.escalationPolicyId).toBe(p.id);

    const renamed = await api(w.tokens.admin).patch(`/escalation-policies/${p.id}`, {
      name: 'Renamed',
      repeatCount: 2,
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({
      name: 'Renamed',
      repeatCount: 2,
      runbook: 'https://wiki.example.test/rb',
    });
    expect(renamed.body.data.steps).toEqual(p.steps);

    const res = await api(w.tokens.admin).patch(`/escalation-policies/${p.id}`, {
      steps: [{ delayMinutes: 3, targets: [{ channel: 'email', target: 'new@example.test' }] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(p.id);
    expect(res.body.data.steps).toHaveLength(1);
    expect(res.body.data.steps[0]).toMatchObject({ position: 0, delayMinutes: 3 });
    expect(res.body.data.steps[0].targets.map((t: { display: string }) => t.display)).toEqual(['new@example.test']);

    // The incident is pinned to an archived copy that holds the old steps (same ids): its ladder never changes.
    const pinned = await h.prisma.incident.findUniqueOrThrow({ where: { id: incident.id } });
    expect(pinned.escalationPolicyId).not.toBe(p.id);
    const copy = await h.prisma.escalationPolicy.findUniqueOrThrow({
      where: { id: pinned.escalationPolicyId! },
      include: { steps: { orderBy: { position: 'asc' } } },
    });
    expect(copy.archivedAt).not.toBeNull();
    expect(copy.steps.map((s) => s.id)).toEqual(p.steps.map((s) => s.id));
    const escalation = await api(w.tokens.viewer).get(`/incidents/${incident.id}/escalation`);
    expect(escalation.body.data.steps.map((s: { stepId: string }) => s.stepId)).toEqual(p.steps.map((s) => s.id));
    // The archived copy is nobody's to list, get or assign.
    const ids = (await api(w.tokens.viewer).get('/escalation-policies?perPage=250')).body.data.map(
      (x: { id: string }) => x.id,
    );
    expect(ids).not.toContain(copy.id);
    expect((await api(w.tokens.viewer).get(`/escalation-policies/${copy.id}`)).status).toBe(404);
    const assign = await api(w.tokens.admin).patch(`/monitors/${monitor.body.data.id}`, {
      escalationPolicyId: copy.id,
    });
    expect([assign.status, pathsOf(assign)]).toEqual([400, ['escalationPolicyId']]);
    // With a schema error beside it, one 400 names both (the policy is judged before the write, not only in it), and
    // a dependsOn naming no monitor of the workspace with them.
    const both = await api(w.tokens.admin).patch(`/monitors/${monitor.body.data.id}`, {
      escalationPolicyId: copy.id,
      timeoutMs: -1,
      dependsOn: [copy.id],
    });
    expect([both.status, pathsOf(both)]).toEqual([400, ['timeoutMs', 'escalationPolicyId', 'dependsOn[0]']]);

    // A refused PATCH writes nothing.
    const bad = await api(w.tokens.admin).patch(`/escalation-policies/${p.id}`, { name: 'x', steps: [] });
    expect([bad.status, pathsOf(bad)]).toEqual([400, ['steps']]);
    expect((await api(w.tokens.viewer).get(`/escalation-policies/${p.id}`)).body.data).toEqual(res.body.data);
  });

  it('DELETE: monitors fall back to the default, the default is cleared, pinned incidents keep their ladder', async () => {
    const fallback = await create();
    const p = await create({ isDefault: true });
    const monitor = await api(w.tokens.admin).post('/monitors', makeMonitorInput());
    const monitorId = monitor.body.data.id as string;
    const assigned = await api(w.tokens.admin).patch(`/monitors/${monitorId}`, { escalationPolicyId: p.id });
    const incident = await h.prisma.incident.create({
      data: { workspaceId: w.ws.id, monitorId, openMonitorId: monitorId, title: 'down' },
    });
    const res = await api(w.tokens.admin).delete(`/escalation-policies/${p.id}`);
    expect(res.status).toBe(204);
    expect((await api(w.tokens.viewer).get(`/escalation-policies/${p.id}`)).status).toBe(404);
    expect((await api(w.tokens.admin).delete(`/escalation-policies/${p.id}`)).status).toBe(404);
    // The monitor's escalationPolicyId changed with the delete: a new version.
    const fellBack = (await api(w.tokens.viewer).get(`/monitors/${monitorId}`)).body.data;
    expect([fellBack.escalationPolicyId, fellBack.version]).toEqual([null, assigned.body.data.version + 1]);
    expect((await h.prisma.workspace.findUniqueOrThrow({ where: { id: w.ws.id } })).defaultEscalationPolicyId).toBe(
      null,
    );
    expect((await h.prisma.incident.findUniqueOrThrow({ where: { id: incident.id } })).escalationPolicyId).toBe(p.id);
    const escalation = await api(w.tokens.viewer).get(`/incidents/${incident.id}/escalation`);
    expect(escalation.body.data.policy).toMatchObject({ id: p.id });

    // Unpinned: removed outright, with its steps and targets (its monitors versioned as well).
    const free = await create();
    const user = await api(w.tokens.admin).patch(`/monitors/${monitorId}`, { escalationPolicyId: free.id });
    expect((await api(w.tokens.owner).delete(`/escalation-policies/${free.id}`)).status).toBe(204);
    expect(await h.prisma.escalationPolicy.findUnique({ where: { id: free.id } })).toBeNull();
    expect(await h.prisma.escalationStep.count({ where: { policyId: free.id } })).toBe(0);
    const freed = (await api(w.tokens.viewer).get(`/monitors/${monitorId}`)).body.data;
    expect([freed.escalationPolicyId, freed.version]).toEqual([null, user.body.data.version + 1]);
    expect((await api(w.tokens.viewer).get(`/escalation-policies/${fallback.id}`)).status).toBe(200);
  });

  it("another workspace's policy is 404 on every operation", async () => {
    const mine = await create();
    const o = api(other.tokens.owner);
    expect((await o.get(`/escalation-policies/${mine.id}`)).status).toBe(404);
    expect((await o.patch(`/escalation-policies/${mine.id}`, { name: 'x' })).status).toBe(404);
    expect((await o.delete(`/escalation-policies/${mine.id}`)).status).toBe(404);
    expect((await o.get('/escalation-policies?perPage=250')).body.data.map((x: { id: string }) => x.id)).not.toContain(
      mine.id,
    );
  });

  it('POST /{id}/test sends one test message to every target and answers per target, in ladder order', async () => {
    const routingKey = 'k'.repeat(32);
    const p = await create({
      name: 'Tested',
      steps: [
        {
          delayMinutes: 0,
          targets: [
            { channel: 'pagerduty', routingKey },
            { channel: 'opsgenie', apiKey: 'og-test-key-1234' },
            { channel: 'discord', target: `${fake.base}/discord/api/webhooks/1/discord-secret` },
            { channel: 'webhook', target: `${fake.base}/hook/secret-path?token=s3cret` },
          ],
        },
        {
          delayMinutes: 5,
          targets: [
            { channel: 'email', target: 'oncall@example.test' },
            { channel: 'slack', target: 'http://127.0.0.1:9/services/T0/B0/x' },
          ],
        },
      ],
    });
    const before = await h.prisma.escalationDelivery.count();
    for (const token of [w.tokens.member, w.tokens.viewer])
      expect((await api(token).post(`/escalation-policies/${p.id}/test`, undefined)).status).toBe(403);
    const res = await api(w.tokens.admin).post(`/escalation-policies/${p.id}/test`, undefined);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { step: 0, channel: 'pagerduty', display: 'routing key …kkkk', ok: true, status: 202 },
      { step: 0, channel: 'opsgenie', display: expect.stringContaining('1234'), ok: true, status: 202 },
      { step: 0, channel: 'discord', display: `${fake.base}/…`, ok: true, status: 204 },
      { step: 0, channel: 'webhook', display: `${fake.base}/…`, ok: false, status: 400, error: 'http_400' },
      { step: 1, channel: 'email', display: 'oncall@example.test', ok: false, error: 'email not configured' },
      { step: 1, channel: 'slack', display: 'http://127.0.0.1:9/…', ok: false, error: 'connection_refused' },
    ]);
    for (const secret of ['s3cret', 'discord-secret', routingKey, 'og-test-key-1234'])
      expect(res.text).not.toContain(secret);
    // Each provider got its own format, marked as a test; the webhook signed as pages are.
    // PagerDuty's test alert is resolved right after it is triggered (same dedup_key), so nobody is left paged.
    const pd = fake.to('/pd/', routingKey);
    expect(pd).toHaveLength(2);
    expect(pd.map((r) => r.problems)).toEqual([[], []]);
    expect(pd[0]!.json).toMatchObject({ event_action: 'trigger', payload: { severity: 'info' } });
    expect(pd[1]!.json).toMatchObject({
      event_action: 'resolve',
      dedup_key: (pd[0]!.json as { dedup_key: string }).dedup_key,
    });
    // Opsgenie's: created, then closed by the same alias.
    const og = fake.to('/og/');
    expect(og.map((r) => r.problems)).toEqual([[], []]);
    const alias = (og[0]!.json as { alias: string }).alias;
    expect(og[1]!.path).toContain(`/og/v2/alerts/${encodeURIComponent(alias)}/close`);
    const hook = fake.to('/hook/secret-path');
    expect(hook).toHaveLength(1);
    expect(hook[0]!.json).toMatchObject({ type: 'incident.escalation', test: true, policy: { id: p.id } });
    expect(hook[0]!.headers[SIGNATURE_HEADER.toLowerCase()]).toMatch(/v1=[0-9a-f]{64}/);
    expect(fake.to('/discord/', 'Tested')).toHaveLength(1);
    // Nothing is recorded as a page.
    expect(await h.prisma.escalationDelivery.count()).toBe(before);
    expect((await api(other.tokens.owner).post(`/escalation-policies/${p.id}/test`, undefined)).status).toBe(404);
  });

  it('carries version and ETag, honours If-Match, and records one audit event per write, targets never in clear', async () => {
    const p = await create();
    expect(p).toMatchObject({ version: 1 });
    const got = await api(w.tokens.viewer).get(`/escalation-policies/${p.id}`);
    expect(got.headers.etag).toBe('"1"');
    const patch = (body: object, ifMatch: string) =>
      request(h.app)
        .patch(`/api/v1/escalation-policies/${p.id}`)
        .set(bearer(w.tokens.admin))
        .set('If-Match', ifMatch)
        .send(body);
    const ok = await patch({ name: 'v2' }, '"1"');
    expect([ok.status, ok.headers.etag, ok.body.data.version]).toEqual([200, '"2"', 2]);
    const stale = await patch({ name: 'v3' }, '"1"');
    expect([stale.status, stale.body.error.code]).toEqual([412, 'precondition_failed']);
    const staleDelete = await request(h.app)
      .delete(`/api/v1/escalation-policies/${p.id}`)
      .set(bearer(w.tokens.admin))
      .set('If-Match', '"1"');
    expect(staleDelete.status).toBe(412);
    await api(w.tokens.admin).patch(`/escalation-policies/${p.id}`, {
      steps: [{ delayMinutes: 0, targets: [{ channel: 'slack', target: SECRET_URL }] }],
    });
    expect((await api(w.tokens.admin).delete(`/escalation-policies/${p.id}`)).status).toBe(204);
    const events = await h.prisma.auditEvent.findMany({ where: { resourceId: p.id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.action)).toEqual([
      'escalation_policy.created',
      'escalation_policy.updated',
      'escalation_policy.updated',
      'escalation_policy.deleted',
    ]);
    expect(events[1]!.changes).toEqual({ name: { from: 'On call', to: 'v2' }, version: undefined });
    for (const secret of ['s3cret', ROUTING_KEY])
      expect(JSON.stringify(events.map((e) => e.changes))).not.toContain(secret);
  });
});
