/**
 * Monitoring as code when a stored secret cannot be decrypted (its key was retired before `secrets rotate` moved it):
 * secrets are written under key A, then the API runs with key B alone. GET /config still answers and shows each such
 * field `"<unreadable>"`; plan and apply refuse to keep what they cannot read (`"<redacted>"` or `"<unreadable>"`
 * there is a 400 at its path, nothing written), and take a value the document gives as the new one, as PATCH does.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { decryptSecret, keyId, openTarget } from '@statusvane/shared';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const idA = keyId(keyA);

/** Key A alone (it writes the secrets), then key B alone (A retired too early). */
let before: Harness;
let after: Harness;
beforeAll(async () => {
  before = makeHarness({ ENCRYPTION_KEY: keyA.toString('base64'), ENCRYPTION_OLD_KEYS: '' });
  after = makeHarness({ ENCRYPTION_KEY: keyB.toString('base64'), ENCRYPTION_OLD_KEYS: '' });
});
afterAll(async () => {
  await before.close();
  await after.close();
});

const slack = 'https://hooks.slack.com/services/T0/B0/secret-path';
const document = {
  version: 1,
  escalationPolicies: [
    {
      ref: 'on-call',
      name: 'On-call',
      steps: [
        {
          delayMinutes: 0,
          targets: [
            { channel: 'slack', target: slack },
            { channel: 'pagerduty', routingKey: 'S'.repeat(32) },
            { channel: 'telegram', botToken: '123456:secretsecretsecretsecret', chatId: '-1001' },
            { channel: 'email', target: 'ops@example.com' },
          ],
        },
      ],
    },
  ],
  monitors: [
    {
      ref: 'api',
      name: 'API',
      type: 'http',
      target: 'https://93.184.215.14/health',
      method: 'POST',
      headers: { Authorization: 'Bearer s3cret-value' },
      body: '{"token":"s3cret-body"}',
      escalationPolicy: 'on-call',
    },
    { ref: 'db', name: 'Database', type: 'tcp', target: '93.184.215.14:5432' },
  ],
};

const call = (h: Harness, token: string, path: string, doc: unknown) =>
  request(h.app)
    .post(`/api/v1/config/${path}`)
    .set(bearer(token))
    .send(doc as object);
const paths = (res: request.Response) =>
  (res.body.error.details.issues as Array<{ path: string }>).map((i) => i.path).sort();

describe('config with secrets no configured key opens', () => {
  let token: string;
  let viewer: string;
  let workspaceId: string;
  beforeAll(async () => {
    const ws = await makeWorkspace(before.prisma);
    token = ws.tokens.admin;
    viewer = ws.tokens.viewer;
    workspaceId = ws.ws.id;
    expect((await call(before, token, 'apply', document)).status).toBe(200);
  });

  it('GET /config answers, each unreadable secret shown "<unreadable>", the rest as ever', async () => {
    const res = await request(after.app).get('/api/v1/config').set(bearer(viewer));
    expect(res.status).toBe(200);
    const doc = res.body.data;
    expect(doc.monitors).toEqual([
      {
        ref: 'api',
        name: 'API',
        type: 'http',
        target: 'https://93.184.215.14/health',
        method: 'POST',
        headers: '<unreadable>',
        body: '<unreadable>',
        escalationPolicy: 'on-call',
      },
      { ref: 'db', name: 'Database', type: 'tcp', target: '93.184.215.14:5432' },
    ]);
    expect(doc.escalationPolicies[0].steps[0].targets).toEqual([
      { channel: 'slack', target: '<unreadable>' },
      { channel: 'pagerduty', routingKey: '<unreadable>' },
      { channel: 'telegram', botToken: '<unreadable>', chatId: '<unreadable>' },
      { channel: 'email', target: '<unreadable>' },
    ]);
    expect(JSON.stringify(doc)).not.toMatch(/s3cret|secret-path|SSSS|ops@/);
  });

  it('plan and apply refuse to keep what they cannot read: a 400 at each path, naming the key, nothing written', async () => {
    const exported = (await request(after.app).get('/api/v1/config').set(bearer(viewer))).body.data;
    const versions = async () =>
      (await after.prisma.monitor.findMany({ where: { workspaceId }, select: { version: true } })).map(
        (m) => m.version,
      );
    const was = await versions();
    for (const verb of ['plan', 'apply']) {
      const res = await call(after, token, verb, exported);
      expect(res.status).toBe(400);
      expect(paths(res)).toEqual([
        'escalationPolicies[0].steps[0].targets[0]',
        'escalationPolicies[0].steps[0].targets[1]',
        'escalationPolicies[0].steps[0].targets[2]',
        'escalationPolicies[0].steps[0].targets[3]',
        'monitors[0].body',
        'monitors[0].headers',
      ]);
      const headers = res.body.error.details.issues.find((i: { path: string }) => i.path === 'monitors[0].headers');
      expect(headers.message).toContain('is "<unreadable>" but the stored headers cannot be decrypted');
      expect(headers.message).toContain(`key "${idA}"`);
    }
    // "<redacted>", the form a document written before the key went away has, is refused the same way.
    const redacted = structuredClone(document) as typeof document;
    redacted.monitors[0]!.headers = { Authorization: '<redacted>' };
    redacted.monitors[0]!.body = '<redacted>';
    redacted.escalationPolicies[0]!.steps[0]!.targets[1] = { channel: 'pagerduty', routingKey: '<redacted>' };
    const res = await call(after, token, 'apply', redacted);
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual([
      'escalationPolicies[0].steps[0].targets[1]',
      'monitors[0].body',
      'monitors[0].headers.Authorization',
    ]);
    expect(res.body.error.details.issues[0].message).toContain('is "<redacted>" but the stored pagerduty target');
    expect(await versions()).toEqual(was);
    // A document without them asks for none: the plan shows what would go.
    const without = await call(after, token, 'plan', {
      version: 1,
      monitors: [{ ref: 'api', name: 'API', type: 'http', target: 'https://93.184.215.14/health' }],
    });
    expect(without.status).toBe(200);
    expect(without.body.data.changes[0].fields).toEqual({
      method: { from: 'POST', to: 'GET' },
      headers: { from: '<unreadable>', to: {} },
      body: { from: '<unreadable>', to: null },
    });
  });

  it('as the other endpoints do: reads never decrypt, a PATCH takes a sent secret as new, a policy test says why', async () => {
    const monitor = await request(before.app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .send({ name: 'Unmanaged', target: 'https://93.184.215.14/', headers: { 'X-Key': 'k1' } });
    const webhook = await request(before.app)
      .post('/api/v1/webhooks')
      .set(bearer(token))
      .send({ url: 'https://93.184.215.14/hook?token=t1' });
    expect([monitor.status, webhook.status]).toEqual([201, 201]);
    const policy = await after.prisma.escalationPolicy.findFirstOrThrow({ where: { workspaceId, ref: 'on-call' } });

    expect((await request(after.app).get('/api/v1/monitors').set(bearer(viewer))).status).toBe(200);
    expect((await request(after.app).get(`/api/v1/escalation-policies/${policy.id}`).set(bearer(viewer))).status).toBe(
      200,
    );
    expect((await request(after.app).get(`/api/v1/webhooks/${webhook.body.data.id}`).set(bearer(token))).status).toBe(
      200,
    );
    const tested = await request(after.app).post(`/api/v1/escalation-policies/${policy.id}/test`).set(bearer(token));
    expect(tested.status).toBe(200);
    expect(tested.body.data.map((r: { ok: boolean; error: string }) => [r.ok, r.error])).toEqual(
      Array(4).fill([false, 'target_unreadable']),
    );
    const patched = await request(after.app)
      .patch(`/api/v1/monitors/${monitor.body.data.id}`)
      .set(bearer(token))
      .send({ headers: { 'X-Key': 'k1' } });
    expect([patched.status, patched.body.data.version]).toEqual([200, 2]);
    const hook = await request(after.app)
      .patch(`/api/v1/webhooks/${webhook.body.data.id}`)
      .set(bearer(token))
      .send({ url: 'https://93.184.215.14/hook?token=t1' });
    expect([hook.status, hook.body.data.version]).toEqual([200, 2]);
  });

  it('a value the document gives replaces the unreadable one: plan shows it, apply seals it under the current key', async () => {
    const planned = await call(after, token, 'plan', document);
    expect(planned.status).toBe(200);
    expect(planned.body.data.summary).toEqual({ create: 0, update: 2, delete: 0, noop: 1 });
    const api = planned.body.data.changes.find((c: { ref: string }) => c.ref === 'api');
    expect(api.fields).toEqual({
      headers: { from: '<unreadable>', to: { Authorization: '<redacted>' } },
      body: { from: '<unreadable>', to: '<redacted>' },
    });
    const policy = planned.body.data.changes.find((c: { ref: string }) => c.ref === 'on-call');
    expect(policy.fields.steps.from[0].targets).toEqual([
      { channel: 'slack', target: '<unreadable>' },
      { channel: 'pagerduty', routingKey: '<unreadable>' },
      { channel: 'telegram', botToken: '<unreadable>', chatId: '<unreadable>' },
      { channel: 'email', target: '<unreadable>' },
    ]);
    expect(policy.fields.steps.to[0].targets[3]).toEqual({ channel: 'email', target: 'ops@example.com' });
    expect(JSON.stringify(planned.body)).not.toMatch(/s3cret|secret-path|SSSS/);

    const applied = await call(after, token, 'apply', { ...document, planId: planned.body.data.planId });
    expect(applied.status).toBe(200);
    const ring = after.config.encryption;
    const row = await after.prisma.monitor.findFirstOrThrow({ where: { workspaceId, ref: 'api' } });
    expect(JSON.parse(decryptSecret(row.headersEnc!, row.encKeyId, ring))).toEqual({
      Authorization: 'Bearer s3cret-value',
    });
    expect(decryptSecret(row.bodyEnc!, row.encKeyId, ring)).toBe('{"token":"s3cret-body"}');
    const targets = await after.prisma.escalationTarget.findMany({
      where: { step: { policy: { workspaceId, ref: 'on-call' } } },
      orderBy: { position: 'asc' },
    });
    expect(targets.map((t) => openTarget(t, ring))).toEqual([
      slack,
      'S'.repeat(32),
      JSON.stringify({ botToken: '123456:secretsecretsecretsecret', chatId: '-1001' }),
      'ops@example.com',
    ]);
    // Readable again: the export is redacted as ever and plans back to no change (noop: the two monitors, the policy,
    // and the accounting policy, which the export always carries).
    const exported = (await request(after.app).get('/api/v1/config').set(bearer(viewer))).body.data;
    expect(exported.monitors[0]).toMatchObject({ headers: { Authorization: '<redacted>' }, body: '<redacted>' });
    expect((await call(after, token, 'plan', exported)).body.data.summary).toEqual({
      create: 0,
      update: 0,
      delete: 0,
      noop: 4,
    });
  });
});
