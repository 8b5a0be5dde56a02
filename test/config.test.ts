/**
 * Monitoring as code (POST /config/plan, POST /config/apply, GET /config) against the real API, database and Redis:
 * plans write nothing, apply is all or nothing and idempotent, secrets compare by value and never show, planId
 * refuses a stale plan, prune deletes only managed resources.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { assignPolicy } from '../apps/api/src/admin/policy-commands.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { scheduledRegions } from './support/worker-harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
});
beforeEach(async () => {
  ws = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const plan = (doc: unknown, token = ws.tokens.admin) =>
  request(h.app)
    .post('/api/v1/config/plan')
    .set(bearer(token))
    .send(doc as object);
const apply = (doc: unknown, token = ws.tokens.admin) =>
  request(h.app)
    .post('/api/v1/config/apply')
    .set(bearer(token))
    .send(doc as object);
const monitors = async () =>
  (await request(h.app).get('/api/v1/monitors').set(bearer(ws.tokens.viewer))).body.data as Array<
    Record<string, unknown>
  >;

type Change = {
  action: string;
  resourceType: string;
  ref: string;
  id: string | null;
  fields?: Record<string, unknown>;
};
const actions = (res: request.Response) =>
  (res.body.data.changes as Change[]).map((c) => `${c.action} ${c.resourceType} ${c.ref}`);

function documentOf(slug: string) {
  return {
    version: 1,
    monitors: [
      {
        ref: 'api',
        name: 'API',
        type: 'http',
        target: 'https://93.184.215.14/health',
        method: 'POST',
        headers: { Authorization: 'Bearer s3cret-value' },
        body: '{"ping":true}',
      },
      { ref: 'db', name: 'Database', type: 'tcp', target: '93.184.215.14:5432', intervalSeconds: 120 },
      { ref: 'backup', name: 'Nightly backup', type: 'heartbeat', schedule: '0 3 * * *', graceSeconds: 900 },
    ],
    statusPages: [{ ref: 'public', name: 'Acme status', slug, sections: [{ name: 'Core', monitors: ['api', 'db'] }] }],
  };
}

describe('config plan and apply', () => {
  it('plans without writing, applies all of it, and a second apply is only noop', async () => {
    const slug = uniq('acme');
    const doc = documentOf(slug);
    const planned = await plan(doc);
    expect(planned.status).toBe(200);
    expect(actions(planned)).toEqual([
      'create monitor api',
      'create monitor db',
      'create monitor backup',
      'create status_page public',
    ]);
    expect(planned.body.data.summary).toEqual({ create: 4, update: 0, delete: 0, noop: 0 });
    // Secrets show redacted, everywhere in the answer.
    expect(JSON.stringify(planned.body)).not.toContain('s3cret-value');
    expect(planned.body.data.changes[0].fields.headers).toEqual({ from: null, to: { Authorization: '<redacted>' } });
    expect(await monitors()).toEqual([]);

    const applied = await apply(doc);
    expect(applied.status).toBe(200);
    expect(applied.body.data.summary).toEqual({ create: 4, update: 0, delete: 0, noop: 0 });
    const created = applied.body.data.changes as Change[];
    expect(created.every((c) => typeof c.id === 'string')).toBe(true);
    const list = await monitors();
    expect(list.map((m) => m.ref).sort()).toEqual(['api', 'backup', 'db']);
    const db = list.find((m) => m.ref === 'db')!;
    expect(db).toMatchObject({ name: 'Database', type: 'tcp', intervalSeconds: 120 });
    const page = await request(h.app).get(`/api/v1/status-pages/${created[3]!.id}`).set(bearer(ws.tokens.viewer));
    expect(page.body.data).toMatchObject({ ref: 'public', slug, name: 'Acme status' });
    const shown = await request(h.app).get(`/status/${slug}`).set('Accept', 'application/json');
    expect(JSON.stringify(shown.body)).toContain('Database');

    // Schedules follow after the commit, as a create's do.
    const region = h.config.checkRegions[0]!;
    for (const m of list) expect(await scheduledRegions(h, m.id as string)).toContain(region);

    const again = await apply(doc);
    expect(again.status).toBe(200);
    expect(again.body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 4 });
  });

  it('compares regions, quorum, confirmAfterSeconds and dependsOn; writes bump version and record audit events', async () => {
    const region = h.config.checkRegions[0]!;
    const base = await apply({
      version: 1,
      monitors: [{ ref: 'base', name: 'Base', type: 'tcp', target: '93.184.215.14:22' }],
    });
    expect(base.status).toBe(200);
    const baseId = (base.body.data.changes as Change[])[0]!.id!;
    const entry = { ref: 'base', name: 'Base', type: 'tcp', target: '93.184.215.14:22' };
    const dependent = {
      ref: 'dep',
      name: 'Dependent',
      type: 'tcp',
      target: '93.184.215.14:23',
      regions: [region],
      quorum: 1,
      confirmAfterSeconds: 30,
      dependsOn: [baseId],
    };
    const doc = { version: 1, monitors: [entry, dependent] };
    expect((await apply(doc)).body.data.summary).toEqual({ create: 1, update: 0, delete: 0, noop: 1 });
    const dep = (await monitors()).find((m) => m.ref === 'dep')!;
    expect(dep).toMatchObject({
      regions: [region],
      quorum: 1,
      confirmAfterSeconds: 30,
      dependsOn: [baseId],
      version: 1,
    });
    expect((await apply(doc)).body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 2 });

    const changed = await apply({ version: 1, monitors: [entry, { ...dependent, confirmAfterSeconds: 60 }] });
    expect(actions(changed)).toContain('update monitor dep');
    expect((await monitors()).find((m) => m.ref === 'dep')).toMatchObject({ confirmAfterSeconds: 60, version: 2 });
    const events = await h.prisma.auditEvent.findMany({
      where: { workspaceId: ws.ws.id, resourceId: dep.id as string },
      orderBy: { at: 'asc' },
    });
    expect(events.map((e) => e.action)).toEqual(['monitor.created', 'monitor.updated']);
    expect(events[1]!.changes).toEqual({ confirmAfterSeconds: { from: 30, to: 60 } });

    // An id that is no monitor of the workspace is refused as POST /monitors refuses it, at its path in the
    // document, by plan as by apply, and nothing is written.
    const badDoc = { version: 1, monitors: [entry, { ...dependent, dependsOn: [ws.ws.id] }] };
    for (const res of [await plan(badDoc), await apply(badDoc)]) {
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues).toEqual([
        { path: 'monitors[1].dependsOn[0]', message: 'is not a monitor of this workspace' },
      ]);
    }
    // A monitor the same document prunes cannot be depended on (apply deletes first).
    const pruning = await plan({
      version: 1,
      prune: true,
      monitors: [{ ...dependent, ref: 'dep2', target: '93.184.215.14:24', dependsOn: [baseId] }, dependent],
    });
    expect(pruning.status).toBe(400);
    expect(pruning.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([
      'monitors[0].dependsOn[0]',
    ]);
    expect((await monitors()).find((m) => m.ref === 'dep')).toMatchObject({ confirmAfterSeconds: 60, version: 2 });
  });

  it('exports the managed resources, secrets redacted, and planning the export back is only noop', async () => {
    await apply(documentOf(uniq('acme'))).expect(200);
    // An unmanaged monitor is not part of the document.
    await request(h.app).post('/api/v1/monitors').set(bearer(ws.tokens.admin)).send(makeMonitorInput()).expect(201);
    const exported = await request(h.app).get('/api/v1/config').set(bearer(ws.tokens.viewer));
    expect(exported.status).toBe(200);
    const doc = exported.body.data;
    expect(doc.monitors.map((m: { ref: string }) => m.ref)).toEqual(['api', 'backup', 'db']);
    expect(doc.monitors[0]).toMatchObject({ headers: { Authorization: '<redacted>' }, body: '<redacted>' });
    expect(JSON.stringify(doc)).not.toContain('s3cret-value');
    const back = await plan(doc);
    expect(back.status).toBe(200);
    // The accounting policy is always in the export (its defaults until changed): one more noop.
    expect(back.body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 5 });
  });

  it('shows each changed field from and to, compares secrets by value, and takes YAML', async () => {
    const slug = uniq('acme');
    await apply(documentOf(slug)).expect(200);
    const yaml = [
      'version: 1',
      'monitors:',
      '  - ref: api',
      '    name: API',
      '    type: http',
      '    target: https://93.184.215.14/health',
      '    method: POST',
      '    headers: { Authorization: "Bearer other-value" }',
      '    body: <redacted>',
      '    intervalSeconds: 300',
    ].join('\n');
    const res = await request(h.app)
      .post('/api/v1/config/plan')
      .set(bearer(ws.tokens.admin))
      .set('Content-Type', 'application/yaml')
      .send(yaml);
    expect(res.status).toBe(200);
    expect(res.body.data.changes).toEqual([
      {
        action: 'update',
        resourceType: 'monitor',
        ref: 'api',
        id: expect.any(String),
        fields: {
          intervalSeconds: { from: 60, to: 300 },
          headers: { from: { Authorization: '<redacted>' }, to: { Authorization: '<redacted>' } },
        },
      },
    ]);
    const applied = await request(h.app)
      .post('/api/v1/config/apply')
      .set(bearer(ws.tokens.admin))
      .set('Content-Type', 'application/yaml')
      .send(yaml);
    expect(applied.status).toBe(200);
    const stored = await h.prisma.monitor.findFirstOrThrow({ where: { workspaceId: ws.ws.id, ref: 'api' } });
    expect(stored.intervalSeconds).toBe(300);
    // Not pruned: the monitors and the page the YAML leaves out stay.
    expect((await monitors()).length).toBe(3);
    const same = await request(h.app)
      .post('/api/v1/config/plan')
      .set(bearer(ws.tokens.admin))
      .set('Content-Type', 'application/yaml')
      .send(yaml.replace('Bearer other-value', '<redacted>'));
    expect(same.body.data.summary).toMatchObject({ update: 0, noop: 1 });
  });

  it('refuses a bad document with one 400 naming every problem at its path, and writes nothing', async () => {
    const res = await apply({
      version: 1,
      monitors: [
        { ref: 'a', name: 'A', type: 'http', target: 'ftp://x.example' },
        { ref: 'a', name: 'B', type: 'tcp', target: '93.184.215.14:80', colour: 'red' },
        { ref: 'Bad Ref', name: 'C', type: 'heartbeat' },
        { ref: 'local', name: 'D', type: 'http', target: 'http://127.0.0.1/' },
      ],
      statusPages: [{ ref: 'p', name: 'P', slug: 'admin', sections: [{ name: 'S', monitors: ['nope'] }] }],
    });
    expect(res.status).toBe(400);
    const paths = (res.body.error.details.issues as Array<{ path: string }>).map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'monitors[0].target',
        'monitors[1].ref',
        'monitors[1].colour',
        'monitors[2].ref',
        'statusPages[0].slug',
        'statusPages[0].sections[0].monitors[0]',
      ]),
    );
    expect(await monitors()).toEqual([]);
    // The SSRF guard is judged too, after the document is well-formed.
    const guarded = await apply({ version: 1, monitors: [{ ref: 'local', name: 'D', target: 'http://127.0.0.1/' }] });
    expect(guarded.status).toBe(400);
    expect(guarded.body.error.details.issues[0].path).toBe('monitors[0].target');
    expect(await monitors()).toEqual([]);

    // A planId that is no plan's id is a 400 on it, named with the document's own problems.
    const notAPlanId = await apply({ version: 1, planId: 42 });
    expect([notAPlanId.status, notAPlanId.body.error.details.issues.map((i: { path: string }) => i.path)]).toEqual([
      400,
      ['planId'],
    ]);
    const both = await apply({ version: 2, planId: { id: 'x' } });
    expect(both.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['planId', 'version']);

    const top = await plan({ monitors: {}, extra: 1 });
    expect(top.status).toBe(400);
    expect(top.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'extra',
      'monitors',
      'version',
    ]);
    const badYaml = await request(h.app)
      .post('/api/v1/config/plan')
      .set(bearer(ws.tokens.admin))
      .set('Content-Type', 'application/yaml')
      .send('version: 1\nmonitors: [\n');
    expect(badYaml.status).toBe(400);
    // YAML only where the operation takes it: elsewhere it is refused unread (malformed or not).
    for (const yamlText of ['name: x\ntarget: https://93.184.215.14/\n', 'name: [\n']) {
      const elsewhere = await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(ws.tokens.admin))
        .set('Content-Type', 'application/yaml')
        .send(yamlText);
      expect([elsewhere.status, elsewhere.body.error.message]).toEqual([
        400,
        'Send a JSON body with Content-Type: application/json',
      ]);
    }
  });

  it('refuses to change a monitor type, and a "<redacted>" secret with nothing stored', async () => {
    await apply(documentOf(uniq('acme'))).expect(200);
    const res = await plan({
      version: 1,
      monitors: [
        { ref: 'db', name: 'Database', type: 'http', target: 'https://93.184.215.14/' },
        { ref: 'new', name: 'New', type: 'http', target: 'https://93.184.215.14/', headers: { 'X-Key': '<redacted>' } },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'monitors[0].type',
      'monitors[1].headers.X-Key',
    ]);
  });

  it('apply with a planId is 409 when a compared resource changed since, and nothing is written', async () => {
    const doc = documentOf(uniq('acme'));
    await apply(doc).expect(200);
    const changed = {
      ...doc,
      monitors: doc.monitors.map((m) => (m.ref === 'db' ? { ...m, intervalSeconds: 600 } : m)),
    };
    const planned = await plan(changed);
    const { planId } = planned.body.data as { planId: string };
    expect(planId).toMatch(/^[0-9a-f]{32}$/);
    // The same plan twice has the same id; another document has another.
    expect((await plan(changed)).body.data.planId).toBe(planId);

    const db = (await monitors()).find((m) => m.ref === 'db')!;
    await request(h.app)
      .patch(`/api/v1/monitors/${db.id as string}`)
      .set(bearer(ws.tokens.admin))
      .send({ name: 'Renamed meanwhile' })
      .expect(200);
    const stale = await apply({ ...changed, planId });
    expect(stale.status).toBe(409);
    expect(stale.body.error.message).toMatch(/changed since plan/);
    expect((await monitors()).find((m) => m.ref === 'db')).toMatchObject({
      intervalSeconds: 120,
      name: 'Renamed meanwhile',
    });
    const otherDoc = await apply({ ...doc, planId });
    expect(otherDoc.status).toBe(409);

    const fresh = await plan(changed);
    const ok = await apply({ ...changed, planId: fresh.body.data.planId });
    expect(ok.status).toBe(200);
    expect(ok.body.data.changes.find((c: Change) => c.ref === 'db').fields).toEqual({
      name: { from: 'Renamed meanwhile', to: 'Database' },
      intervalSeconds: { from: 120, to: 600 },
    });
  });

  it('what checks and pings write between plan and apply is no conflict: the planId stays, apply goes through', async () => {
    const doc = { ...documentOf(uniq('acme')), prune: true };
    await apply(doc).expect(200);
    const changed = {
      ...doc,
      monitors: doc.monitors.map((m) => (m.ref === 'db' ? { ...m, intervalSeconds: 600 } : m)),
    };
    const { planId } = (await plan(changed)).body.data as { planId: string };
    const byRef = new Map((await monitors()).map((m) => [m.ref as string, m]));
    const versions = () =>
      // In ref order: the UPDATE below moves the rows, and with them an unordered read's order.
      h.prisma.monitor.findMany({
        where: { workspaceId: ws.ws.id },
        select: { ref: true, version: true },
        orderBy: { ref: 'asc' },
      });
    const versionsBefore = await versions();

    // A check of each probe, as the worker stores it: status, lastCheckedAt and (https) the certificate.
    await h.prisma.$executeRaw`
      UPDATE monitors SET status = 'down', "lastCheckedAt" = now(), "updatedAt" = now(),
        certificate = '{"subject":"CN=api","issuer":"CN=ca","validFrom":"2026-01-01T00:00:00.000Z","validTo":"2027-01-01T00:00:00.000Z","daysRemaining":30}'::jsonb
       WHERE "workspaceId" = ${ws.ws.id}::uuid AND type <> 'heartbeat'`;
    // A heartbeat's ping and its failure, through the ping receiver.
    const pingPath = new URL(byRef.get('backup')!.pingUrl as string).pathname;
    expect((await request(h.app).post(pingPath)).status).toBe(200);
    expect((await request(h.app).post(`${pingPath}/fail`)).status).toBe(200);
    const observed = await h.prisma.monitor.findMany({
      where: { workspaceId: ws.ws.id },
      select: { ref: true, status: true, lastCheckedAt: true, lastPingAt: true, lastPingFailAt: true },
    });
    expect(observed.find((m) => m.ref === 'db')).toMatchObject({ status: 'down', lastCheckedAt: expect.any(Date) });
    expect(observed.find((m) => m.ref === 'backup')).toMatchObject({
      lastPingAt: expect.any(Date),
      lastPingFailAt: expect.any(Date),
    });
    expect(await versions()).toEqual(versionsBefore);

    expect((await plan(changed)).body.data.planId).toBe(planId);
    const applied = await apply({ ...changed, planId });
    expect(applied.status).toBe(200);
    expect(actions(applied)).toEqual([
      'noop monitor api',
      'update monitor db',
      'noop monitor backup',
      'noop status_page public',
    ]);
  });

  it('records monitor.created, monitor.updated and monitor.deleted in the event log (GET /events), as the API does', async () => {
    // The log shows an event once every transaction older than its own has ended, anywhere on the server (other
    // suites run alongside): a read right after a write may come early, so poll until `count` events are there.
    const events = async (after: string, count = 0) => {
      const end = Date.now() + 10_000;
      for (;;) {
        const res = await request(h.app).get(`/api/v1/events?after=${after}`).set(bearer(ws.tokens.viewer)).expect(200);
        const page = res.body as {
          data: Array<{ type: string; subject: string; data: { monitor: Record<string, unknown> } }>;
          nextCursor: string;
        };
        if (page.data.length >= count || Date.now() > end) return page;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const start = (await events('0'.repeat(32))).nextCursor;
    const doc = documentOf(uniq('acme'));
    const created = await apply(doc).expect(200);
    const ids = Object.fromEntries((created.body.data.changes as Change[]).map((c) => [c.ref, c.id]));
    const first = await events(start, 3);
    expect(first.data.map((e) => `${e.type} ${e.subject}`).sort()).toEqual(
      ['api', 'backup', 'db'].map((ref) => `com.statusvane.monitor.created monitors/${ids[ref]}`).sort(),
    );
    // The record as the API shows it.
    const api = first.data.find((e) => e.subject === `monitors/${ids.api}`)!;
    const shown = (await request(h.app).get(`/api/v1/monitors/${ids.api}`).set(bearer(ws.tokens.viewer))).body.data;
    expect(api.data.monitor).toEqual(shown);

    const changed = {
      ...doc,
      prune: true,
      monitors: doc.monitors.filter((m) => m.ref !== 'backup').map((m) => (m.ref === 'db' ? { ...m, name: 'DB' } : m)),
    };
    await apply(changed).expect(200);
    const second = await events(first.nextCursor, 2);
    expect(second.data.map((e) => `${e.type} ${e.subject}`).sort()).toEqual([
      `com.statusvane.monitor.deleted monitors/${ids.backup}`,
      `com.statusvane.monitor.updated monitors/${ids.db}`,
    ]);
    expect(second.data.find((e) => e.type.endsWith('updated'))!.data.monitor).toMatchObject({ name: 'DB', version: 2 });

    // The admin CLI's `policy assign` is a monitor change too.
    const policy = await request(h.app)
      .post('/api/v1/escalation-policies')
      .set(bearer(ws.tokens.admin))
      .send({ name: 'Ops', steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'ops@example.com' }] }] })
      .expect(201);
    await assignPolicy(h.prisma, { monitor: ids.api, policy: policy.body.data.id }, h.config);
    const third = await events(second.nextCursor, 1);
    expect(third.data.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `com.statusvane.monitor.updated monitors/${ids.api}`,
    ]);
    expect(third.data[0]!.data.monitor).toMatchObject({ escalationPolicyId: policy.body.data.id, version: 2 });

    // That policy is not the document's: the export leaves it out and plans back to no change, a document without
    // `escalationPolicy` leaves it alone, and `escalationPolicy: null` takes the monitor off it.
    const exported = (await request(h.app).get('/api/v1/config').set(bearer(ws.tokens.viewer))).body.data;
    expect(exported.monitors.find((m: { ref: string }) => m.ref === 'api')).not.toHaveProperty('escalationPolicy');
    expect((await plan(exported)).body.data.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    expect((await plan(changed)).body.data.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    const detach = {
      ...changed,
      monitors: changed.monitors.map((m) => (m.ref === 'api' ? { ...m, escalationPolicy: null } : m)),
    };
    const detaching = await plan(detach);
    expect((detaching.body.data.changes as Change[]).find((c) => c.ref === 'api')).toMatchObject({
      action: 'update',
      fields: { escalationPolicy: { from: `(unmanaged policy ${policy.body.data.id})`, to: null } },
    });
    await apply(detach).expect(200);
    const api2 = (await request(h.app).get(`/api/v1/monitors/${ids.api}`).set(bearer(ws.tokens.viewer))).body.data;
    expect(api2).toMatchObject({ escalationPolicyId: null, version: 3 });
  });

  it('prune deletes the managed resources the document no longer names, never unmanaged ones', async () => {
    const slug = uniq('acme');
    await apply(documentOf(slug)).expect(200);
    const unmanaged = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(ws.tokens.admin))
      .send(makeMonitorInput({ name: 'Hand-made' }))
      .expect(201);
    const doc = documentOf(slug);
    const smaller = { ...doc, monitors: doc.monitors.filter((m) => m.ref !== 'backup') };
    // Without prune, leaving a resource out leaves it alone.
    expect((await plan(smaller)).body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 3 });
    const pruned = await apply({ ...smaller, prune: true, statusPages: [] });
    expect(pruned.status).toBe(200);
    expect(actions(pruned).filter((a) => a.startsWith('delete'))).toEqual([
      'delete monitor backup',
      'delete status_page public',
    ]);
    const left = await monitors();
    expect(left.map((m) => m.ref ?? m.name).sort()).toEqual(['Hand-made', 'api', 'db']);
    expect(left.find((m) => m.id === unmanaged.body.data.id)).toBeDefined();
    await request(h.app).get(`/status/${slug}`).expect(404);
  });

  it('manages escalation policies: secrets by value and redacted, monitors name them by ref, prune archives or deletes', async () => {
    const slack = 'https://hooks.slack.com/services/T0/B0/secret-path';
    const doc = {
      version: 1,
      escalationPolicies: [
        {
          ref: 'on-call',
          name: 'On-call',
          isDefault: true,
          steps: [
            { delayMinutes: 0, targets: [{ channel: 'slack', target: slack }] },
            { delayMinutes: 10, minImpact: 'major', targets: [{ channel: 'pagerduty', routingKey: 'A'.repeat(32) }] },
          ],
        },
        {
          ref: 'quiet',
          name: 'Quiet',
          steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'ops@example.com' }] }],
        },
      ],
      monitors: [{ ref: 'api', name: 'API', target: 'https://93.184.215.14/', escalationPolicy: 'on-call' }],
    };
    const applied = await apply(doc);
    expect(applied.status).toBe(200);
    expect(actions(applied)).toEqual([
      'create escalation_policy on-call',
      'create escalation_policy quiet',
      'create monitor api',
    ]);
    expect(JSON.stringify(applied.body)).not.toContain('secret-path');
    const policies = await request(h.app).get('/api/v1/escalation-policies').set(bearer(ws.tokens.admin));
    const onCall = policies.body.data.find((p: { ref: string }) => p.ref === 'on-call');
    expect(onCall).toMatchObject({ name: 'On-call', isDefault: true });
    expect((await monitors())[0]).toMatchObject({ ref: 'api', escalationPolicyId: onCall.id });
    expect((await apply(doc)).body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 3 });

    // The export redacts the URL and the key, and plans back to no change.
    const exported = (await request(h.app).get('/api/v1/config').set(bearer(ws.tokens.viewer))).body.data;
    expect(exported.escalationPolicies[0]).toEqual({
      ref: 'on-call',
      name: 'On-call',
      isDefault: true,
      steps: [
        { delayMinutes: 0, targets: [{ channel: 'slack', target: '<redacted>' }] },
        { delayMinutes: 10, minImpact: 'major', targets: [{ channel: 'pagerduty', routingKey: '<redacted>' }] },
      ],
    });
    expect((await plan(exported)).body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 4 });

    // A new webhook URL is a change (compared by value), shown redacted; the monitor moves to another policy.
    const changed = structuredClone(doc);
    changed.escalationPolicies[0]!.steps[0]!.targets[0] = {
      channel: 'slack',
      target: 'https://hooks.slack.com/services/T0/B0/other',
    };
    changed.monitors[0]!.escalationPolicy = 'quiet';
    const res = await apply(changed);
    expect(res.status).toBe(200);
    const [policyChange, , monitorChange] = res.body.data.changes as Change[];
    expect(policyChange).toMatchObject({ action: 'update', ref: 'on-call' });
    expect(Object.keys(policyChange!.fields!)).toEqual(['steps']);
    expect(JSON.stringify(policyChange)).not.toContain('other');
    expect(monitorChange!.fields).toEqual({ escalationPolicy: { from: 'on-call', to: 'quiet' } });

    // Prune: the policy the document no longer names goes; the monitor keeps the one it names.
    const pruned = await apply({ ...changed, prune: true, escalationPolicies: [changed.escalationPolicies[1]] });
    expect(actions(pruned)).toContain('delete escalation_policy on-call');
    const left = await request(h.app).get('/api/v1/escalation-policies').set(bearer(ws.tokens.admin));
    expect(left.body.data.map((p: { ref: string }) => p.ref)).toEqual(['quiet']);

    // A bad policy: its issues at their path in the document.
    const bad = await plan({
      version: 1,
      escalationPolicies: [
        { ref: 'x', name: 'X', steps: [{ delayMinutes: 0, targets: [{ channel: 'slack', target: 'not a url' }] }] },
        {
          ref: 'y',
          name: 'Y',
          isDefault: true,
          steps: [{ delayMinutes: 5, targets: [{ channel: 'email', target: 'a@b.co' }] }],
        },
        {
          ref: 'z',
          name: 'Z',
          isDefault: true,
          steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'a@b.co' }] }],
        },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([
      'escalationPolicies[0].steps[0].targets[0].target',
      'escalationPolicies[2].isDefault',
    ]);
    // "<redacted>" where nothing is stored: judged against the workspace, at its path.
    const unknown = await plan({
      version: 1,
      escalationPolicies: [
        {
          ref: 'y',
          name: 'Y',
          steps: [{ delayMinutes: 0, targets: [{ channel: 'pagerduty', routingKey: '<redacted>' }] }],
        },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([
      'escalationPolicies[0].steps[0].targets[0]',
    ]);
  });

  it('taking the default from another policy shows and records its change, and never touches an unmanaged one', async () => {
    const policy = (ref: string, isDefault?: boolean) => ({
      ref,
      name: ref,
      ...(isDefault === undefined ? {} : { isDefault }),
      steps: [{ delayMinutes: 0, targets: [{ channel: 'email', target: 'ops@example.com' }] }],
    });
    const getPolicy = async (id: string) =>
      (await request(h.app).get(`/api/v1/escalation-policies/${id}`).set(bearer(ws.tokens.admin))).body.data;

    // An unmanaged default (created over the API): plan and apply refuse to take the default from it.
    const unmanaged = await request(h.app)
      .post('/api/v1/escalation-policies')
      .set(bearer(ws.tokens.admin))
      .send({ ...policy('by-hand', true), ref: undefined });
    expect(unmanaged.status).toBe(201);
    const takeover = { version: 1, escalationPolicies: [policy('primary', true)] };
    for (const res of [await plan(takeover), await apply(takeover)]) {
      expect(res.status).toBe(409);
      expect(res.body.error.message).toContain(unmanaged.body.data.id);
    }
    const untouched = await getPolicy(unmanaged.body.data.id);
    expect([untouched.isDefault, untouched.version]).toEqual([true, 1]);
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: ws.ws.id, ref: 'primary' } })).toBe(0);
    // Without isDefault the document leaves the default where it is.
    expect((await apply({ version: 1, escalationPolicies: [policy('primary')] })).status).toBe(200);
    expect((await getPolicy(unmanaged.body.data.id)).version).toBe(1);

    // A managed default the document does not name: plan shows its update, apply records it.
    await request(h.app)
      .patch(`/api/v1/escalation-policies/${unmanaged.body.data.id}`)
      .set(bearer(ws.tokens.admin))
      .send({ isDefault: false });
    expect((await apply({ version: 1, escalationPolicies: [policy('primary', true)] })).status).toBe(200);
    const primary = (await plan({ version: 1, escalationPolicies: [policy('primary', true)] })).body.data.changes[0];
    const before = await getPolicy(primary.id);
    const next = { version: 1, escalationPolicies: [policy('secondary', true)] };
    const planned = await plan(next);
    expect(planned.body.data.changes).toEqual([
      expect.objectContaining({ action: 'create', resourceType: 'escalation_policy', ref: 'secondary' }),
      {
        action: 'update',
        resourceType: 'escalation_policy',
        ref: 'primary',
        id: primary.id,
        fields: { isDefault: { from: true, to: false } },
      },
    ]);
    const applied = await apply(next);
    expect(applied.body.data.changes).toEqual(
      planned.body.data.changes.map((c: Change) => ({ ...c, id: expect.any(String) })),
    );
    const after = await getPolicy(primary.id);
    expect([after.isDefault, after.version]).toEqual([false, before.version + 1]);
    const events = (
      await request(h.app).get(`/api/v1/audit-events?resourceId=${primary.id}`).set(bearer(ws.tokens.admin))
    ).body.data;
    expect(events[0]).toMatchObject({
      action: 'escalation_policy.updated',
      changes: { isDefault: { from: true, to: false } },
    });
    // One event for the lost default (the document's own update of primary, earlier, made it the default).
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'escalation_policy.updated',
      'escalation_policy.updated',
      'escalation_policy.created',
    ]);
    expect((await apply(next)).body.data.summary).toEqual({ create: 0, update: 0, delete: 0, noop: 1 });
  });

  it('lets only owners and admins plan and apply; any role exports', async () => {
    const doc = documentOf(uniq('acme'));
    expect((await plan(doc, ws.tokens.member)).status).toBe(403);
    expect((await apply(doc, ws.tokens.viewer)).status).toBe(403);
    expect((await apply(doc, ws.tokens.owner)).status).toBe(200);
    expect((await request(h.app).get('/api/v1/config').set(bearer(ws.tokens.viewer))).status).toBe(200);
  });

  it('a slug another workspace holds is 409 at plan and apply', async () => {
    const other = await makeWorkspace(h.prisma);
    const slug = uniq('taken');
    await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(other.tokens.owner))
      .send({ vanityUrl: slug, name: 'Theirs' })
      .expect(201);
    const doc = documentOf(slug);
    expect((await plan(doc)).status).toBe(409);
    const res = await apply(doc);
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ slug, reason: 'taken' });
    expect(await monitors()).toEqual([]);
  });
});
