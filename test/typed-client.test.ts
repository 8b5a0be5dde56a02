/**
 * What an integrator does first: generate types from the served document (openapi-typescript), write a client with
 * openapi-fetch, compile it with strict TypeScript, and run it. The client reads every `details` key the Error
 * schema declares, each from a real answer of the API, with the type the document gives it: a details shape the
 * API sends but the document does not declare fails here (at compile time in the client, at run time in the
 * strict parse below). It also calls every operation of beyond-the-seed section 1 (monitors with every list filter,
 * `metadata` included, incidents, maintenance, status pages, components, escalation policies, tokens, members, audit
 * events, ETag and If-Match) and checks the answers it reads with their documented types.
 */
import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import request from 'supertest';
import { EVENT_TYPE_PREFIX, EVENT_TYPES } from '@statusvane/shared';
import { errorDetailsSchema } from '../apps/api/src/schemas/envelopes.js';
import { EVENT_SCHEMAS } from '../apps/api/src/services/events/event-record.js';
import { createToken } from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

let h: Harness;
let server: Server;
let dir: string;
beforeAll(async () => {
  h = makeHarness();
  server = h.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  // Inside the checkout, so that the client resolves openapi-fetch from its node_modules.
  await mkdir(join(root, 'test-artifacts'), { recursive: true });
  dir = await mkdtemp(join(root, 'test-artifacts', 'typed-client-'));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${args.join(' ')}\n${stdout}${stderr}`)) : resolve(stdout),
    ),
  );
}

/** Reads each declared details key with its documented type; a key missing from the document does not compile. */
const CLIENT = String.raw`
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type Details = components['schemas']['ErrorDetails'];
type MaintenanceStatus = 'scheduled' | 'in_progress' | 'completed' | 'cancelled';

const [baseUrl, owner, personal, ownerUserId] = process.argv.slice(2) as [string, string, string, string];
const as = (token: string) => createClient<paths>({ baseUrl, headers: { Authorization: 'Bearer ' + token } });
const api = as(owner);
const seen: Record<string, unknown> = {};
const details = (error: { error: { details?: Details } } | undefined): Details => {
  if (!error?.error.details) throw new Error('no details');
  return error.error.details;
};

// issues: a 400 on an invalid body
const bad = await api.POST('/maintenance', {
  body: { title: '', startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-01T01:00:00Z' },
});
const issues: Array<{ path: string; message: string }> | undefined = details(bad.error).issues;
seen.issues = issues?.map((i) => i.path);

// workspaces: a personal token of two workspaces that names none
const ambiguous = await as(personal).GET('/monitors', {});
const workspaces: Array<{ id: string; slug: string; name: string }> | undefined = details(ambiguous.error).workspaces;
seen.workspaces = workspaces?.length;

// status and action: completing a window that has not started
const created = await api.POST('/maintenance', {
  body: { title: 'Later', startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-01T01:00:00Z' },
});
if (!created.data) throw new Error('no window');
const id = created.data.data.id;
const refused = await api.PATCH('/maintenance/{id}', { params: { path: { id } }, body: { status: 'complete' } });
const status: MaintenanceStatus | undefined = details(refused.error).status;
const action: 'start' | 'complete' | 'cancel' | undefined = details(refused.error).action;
seen.action = { status, action };

// status alone: editing a cancelled window
await api.PATCH('/maintenance/{id}', { params: { path: { id } }, body: { status: 'cancel' } });
const edited = await api.PATCH('/maintenance/{id}', { params: { path: { id } }, body: { title: 'x' } });
seen.edit = details(edited.error).status;

// slug and reason: a reserved slug
const page = await api.POST('/status-pages', { body: { vanityUrl: 'api', name: 'API', isPublic: true } });
const slug: string | undefined = details(page.error).slug;
const reason: 'reserved' | 'taken' | 'last_owner' | 'already_member' | 'password_set' | 'mail_not_configured' | undefined = details(page.error).reason;
seen.slug = { slug, reason };

// version: a PATCH whose If-Match names a version the page no longer has (412); the ETag of its answer is the version
const made = await api.POST('/status-pages', { body: { vanityUrl: 'etag-' + Date.now(), name: 'E', isPublic: true } });
if (!made.data) throw new Error('no page');
const pageId = made.data.data.id;
const renamed = await api.PATCH('/status-pages/{id}', {
  params: { path: { id: pageId }, header: { 'If-Match': '"' + made.data.data.version + '"' } },
  body: { name: 'E2' },
});
const stale = await api.PATCH('/status-pages/{id}', {
  params: { path: { id: pageId }, header: { 'If-Match': '"1"' } },
  body: { name: 'E3' },
});
const version: number | undefined = details(stale.error).version;
seen.version = { etag: renamed.response.headers.get('etag'), status: stale.response.status, version };

// An http body may omit 'type'; a tcp record nulls what only http has (method, content type).
const http = await api.POST('/monitors', { body: { name: 'no type', target: 'https://93.184.215.14/' } });
const tcp = await api.POST('/monitors', { body: { type: 'tcp', name: 'db', target: '93.184.215.14:5432' } });
if (!http.data || !tcp.data) throw new Error('no monitor');
const method: 'GET' | 'HEAD' | 'POST' | null = tcp.data.data.method;
const contentType: string | null = tcp.data.data.contentType;
// Detection fields (issue 15): the regions checking it, the quorum, fast confirmation and dependencies.
const regions: string[] = tcp.data.data.regions;
const quorum: number = tcp.data.data.quorum;
const confirmAfterSeconds: number = tcp.data.data.confirmAfterSeconds;
const dependsOn: string[] = tcp.data.data.dependsOn;
seen.monitors = {
  httpType: http.data.data.type,
  tcpMethod: method,
  tcpContentType: contentType,
  detection: { regions, quorum, confirmAfterSeconds, dependsOn },
};

// An incident record carries its reason, evidence and suppressedBy (empty and null for a manual incident).
const manual = await api.POST('/incidents', { body: { title: 'Manual' } });
if (!manual.data) throw new Error('no incident');
const evidence: Array<{ region: string; failing: boolean; lastResult: { totalMs: number | null } | null }> =
  manual.data.data.evidence;
const incidentReason: string | null = manual.data.data.reason;
const suppressedBy: string | null = manual.data.data.suppressedBy;
seen.incident = { evidence, reason: incidentReason, suppressedBy };

// Escalation policies, tokens, members and check results (issue 14).
const policy = await api.POST('/escalation-policies', {
  body: {
    name: 'On call',
    repeatCount: 0,
    silent: false,
    runbook: '',
    isDefault: false,
    steps: [{ delayMinutes: 0, minImpact: 'none', targets: [{ channel: 'email', target: 'oncall@example.com' }] }],
  },
});
if (!policy.data) throw new Error('no policy');
const display: string = policy.data.data.steps[0]!.targets[0]!.display;
const policies = await api.GET('/escalation-policies', { params: { query: { perPage: 10 } } });
const renamedPolicy = await api.PATCH('/escalation-policies/{id}', {
  params: { path: { id: policy.data.data.id } },
  body: { name: 'Primary', isDefault: true },
});
const minted = await api.POST('/tokens', { body: { name: 'CI', role: 'viewer', expiresInDays: 7 } });
if (!minted.data?.data.token) throw new Error('no token');
const secret: string = minted.data.data.token;
const results = await as(secret).GET('/monitors/{id}/results', {
  params: { path: { id: http.data.data.id }, query: { status: 'down,degraded' } },
});
await api.DELETE('/tokens/{id}', { params: { path: { id: minted.data.data.id } } });
const revoked = await as(secret).GET('/members', {});
const members = await api.GET('/members', {});
const lastOwner = await api.PATCH('/members/{userId}', { params: { path: { userId: ownerUserId } }, body: { role: 'admin' } });
seen.resources = {
  display,
  policies: policies.data?.data.length,
  renamed: [renamedPolicy.data?.data.name, renamedPolicy.data?.data.isDefault],
  results: results.data?.pagination.total,
  revoked: revoked.response.status,
  members: members.data?.data.map((m) => m.role),
  lastOwner: details(lastOwner.error).reason,
};

// Every other operation of section 1 (issue 14), each answer read with the type the document gives it.
const tag = Date.now().toString(36);
// Monitors: the list filters (metadata as the deepObject the document declares), escalationPolicyId on a PATCH under
// If-Match, DELETE.
const tagged = await api.POST('/monitors', {
  body: { name: 'Tagged ' + tag, target: 'https://93.184.215.14/', environment: 'prod', metadata: { team: 'web' } },
});
if (!tagged.data) throw new Error('no tagged monitor');
const monitor = tagged.data.data;
const componentId: string = monitor.componentId;
const filtered = await api.GET('/monitors', {
  params: {
    query: {
      status: 'pending',
      type: 'http',
      enabled: 'true',
      environment: 'prod',
      componentId,
      q: 'TAGGED',
      metadata: { team: 'web' },
    },
  },
});
const unmatched = await api.GET('/monitors', { params: { query: { metadata: { team: 'data' }, q: tag } } });
const gotMonitor = await api.GET('/monitors/{id}', { params: { path: { id: monitor.id } } });
const monitorTag = gotMonitor.response.headers.get('etag') ?? '';
const assigned = await api.PATCH('/monitors/{id}', {
  params: { path: { id: monitor.id }, header: { 'If-Match': monitorTag } },
  body: { escalationPolicyId: policy.data.data.id },
});
const assignedPolicy: string | null = assigned.data?.data.escalationPolicyId ?? null;

// Incidents: one by id, and the list filters.
const incidentId = manual.data.data.id;
const gotIncident = await api.GET('/incidents/{id}', { params: { path: { id: incidentId } } });
const incidents = await api.GET('/incidents', {
  params: {
    query: { status: 'open,acknowledged', startedAfter: '2000-01-01T00:00:00Z', startedBefore: '2100-01-01T00:00:00Z' },
  },
});
const byMonitor = await api.GET('/incidents', { params: { query: { monitorId: monitor.id } } });

// Maintenance: the list filters.
const window = await api.POST('/maintenance', {
  body: {
    title: 'Window ' + tag,
    startsAt: '2030-02-01T00:00:00Z',
    endsAt: '2030-02-01T01:00:00Z',
    componentIds: [componentId],
  },
});
const scheduled = await api.GET('/maintenance', { params: { query: { state: 'scheduled', componentId } } });
const activeThen = await api.GET('/maintenance', { params: { query: { activeAt: '2030-02-01T00:30:00Z' } } });
const doneThen = await api.GET('/maintenance', { params: { query: { state: 'completed,cancelled', componentId } } });

// Components: list, get, PATCH.
const componentList = await api.GET('/components', { params: { query: { perPage: 100 } } });
const gotComponent = await api.GET('/components/{id}', { params: { path: { id: componentId } } });
const patchedComponent = await api.PATCH('/components/{id}', {
  params: { path: { id: componentId } },
  body: { name: 'Storefront', description: 'The shop' },
});

// Status pages: list, get, PATCH (sections, password, customDomain), DELETE.
const pageList = await api.GET('/status-pages', { params: { query: { perPage: 100 } } });
const gotPage = await api.GET('/status-pages/{id}', { params: { path: { id: pageId } } });
const arranged = await api.PATCH('/status-pages/{id}', {
  params: { path: { id: pageId } },
  body: {
    sections: [{ name: 'Shop', componentIds: [componentId] }],
    password: 'correct horse',
    customDomain: 'status-' + tag + '.example.test',
  },
});
const passwordProtected: boolean | undefined = arranged.data?.data.passwordProtected;
const customDomain: string | null | undefined = arranged.data?.data.customDomain;
const pageGone = await api.DELETE('/status-pages/{id}', { params: { path: { id: pageId } } });
const pageAfter = await api.GET('/status-pages/{id}', { params: { path: { id: pageId } } });

// Escalation policies: get, test send, PATCH, DELETE.
const gotPolicy = await api.GET('/escalation-policies/{id}', { params: { path: { id: policy.data.data.id } } });
const tested = await api.POST('/escalation-policies/{id}/test', { params: { path: { id: policy.data.data.id } } });
const spare = await api.POST('/escalation-policies', {
  body: {
    name: 'Spare',
    repeatCount: 1,
    silent: true,
    runbook: '',
    isDefault: false,
    steps: [{ delayMinutes: 5, minImpact: 'major', targets: [{ channel: 'email', target: 'spare@example.com' }] }],
  },
});
if (!spare.data) throw new Error('no spare policy');
const spareId = spare.data.data.id;
const sparePatched = await api.PATCH('/escalation-policies/{id}', {
  params: { path: { id: spareId } },
  body: {
    silent: false,
    steps: [{ delayMinutes: 1, minImpact: 'none', targets: [{ channel: 'email', target: 'two@example.com' }] }],
  },
});
const spareGone = await api.DELETE('/escalation-policies/{id}', { params: { path: { id: spareId } } });
const spareAfter = await api.GET('/escalation-policies/{id}', { params: { path: { id: spareId } } });

// Tokens: the list (no secret in it).
const tokenList = await api.GET('/tokens', { params: { query: { perPage: 100 } } });

// Members: add (a new user), change the role, remove.
const email = 'new-' + tag + '@example.com';
const added = await api.POST('/members', { body: { email, role: 'member' } });
if (!added.data) throw new Error('no member');
const memberId = added.data.data.userId;
const demoted = await api.PATCH('/members/{userId}', { params: { path: { userId: memberId } }, body: { role: 'viewer' } });
const removed = await api.DELETE('/members/{userId}', { params: { path: { userId: memberId } } });
const membersAfter = await api.GET('/members', { params: { query: { perPage: 100 } } });

// Monitors: DELETE under If-Match (a stale version: 412, nothing deleted), then gone.
const staleDelete = await api.DELETE('/monitors/{id}', {
  params: { path: { id: monitor.id }, header: { 'If-Match': monitorTag } },
});
const deleted = await api.DELETE('/monitors/{id}', { params: { path: { id: monitor.id } } });
const monitorAfter = await api.GET('/monitors/{id}', { params: { path: { id: monitor.id } } });

// Audit events: the filters, newest first.
const trail = await api.GET('/audit-events', {
  params: { query: { resourceType: 'monitor', resourceId: monitor.id, perPage: 100 } },
});
const actorId = trail.data?.data[0]?.actor.id ?? '';
const byAction = await api.GET('/audit-events', {
  params: { query: { action: 'status_page.deleted', actorId, resourceId: pageId } },
});

seen.operations = {
  monitors: {
    filtered: filtered.data?.data.map((x) => x.name),
    unmatched: unmatched.data?.pagination.total,
    etag: monitorTag,
    assigned: [assigned.response.status, assignedPolicy === policy.data.data.id, assigned.data?.data.version],
    staleDelete: [staleDelete.response.status, details(staleDelete.error).version],
    deleted: [deleted.response.status, monitorAfter.response.status],
  },
  incidents: {
    get: [gotIncident.data?.data.id === incidentId, gotIncident.data?.data.source, gotIncident.data?.data.title],
    listed: incidents.data?.data.some((i) => i.id === incidentId),
    byMonitor: byMonitor.data?.pagination.total,
  },
  maintenance: {
    scheduled: scheduled.data?.data.map((w) => w.title),
    activeThen: activeThen.data?.data.some((w) => w.id === window.data?.data.id),
    // The cancelled window of all components (none named) covers this one too.
    doneThen: doneThen.data?.data.map((w) => [w.title, w.status]),
  },
  components: {
    listed: componentList.data?.data.some((c) => c.id === componentId),
    get: [gotComponent.data?.data.monitorId === monitor.id, gotComponent.data?.data.status],
    patched: [patchedComponent.data?.data.name, patchedComponent.data?.data.description],
  },
  statusPages: {
    listed: pageList.data?.data.some((p) => p.id === pageId),
    get: gotPage.data?.data.name,
    patched: [passwordProtected, customDomain === 'status-' + tag + '.example.test'],
    deleted: [pageGone.response.status, pageAfter.response.status],
  },
  policies: {
    get: gotPolicy.data?.data.name,
    tested: tested.data?.data.map((r) => [r.step, r.channel, r.display, typeof r.ok]),
    patched: [sparePatched.data?.data.silent, sparePatched.data?.data.steps.map((x) => x.targets[0]?.display)],
    deleted: [spareGone.response.status, spareAfter.response.status],
  },
  tokens: {
    listed: (tokenList.data?.data.length ?? 0) > 0,
    shapes: tokenList.data?.data.every((t) => typeof t.prefix === 'string' && !('token' in t)),
  },
  members: {
    added: [added.response.status, added.data.data.email, added.data.data.role],
    demoted: demoted.data?.data.role,
    removed: [removed.response.status, membersAfter.data?.data.some((x) => x.userId === memberId)],
  },
  audit: {
    actions: trail.data?.data.map((e) => e.action),
    byAction: byAction.data?.data.map((e) => [e.action, e.actor.id === actorId, e.resourceType]),
  },
};

// What the document says beyond the bodies: HEAD answers the GET's status and headers, no body.
const headed = await api.HEAD('/monitors/{id}', { params: { path: { id: tcp.data.data.id } } });
// Events, typed by their type: each type's data read with the type the document gives it.
const typedEvents = await api.GET('/events', { params: { query: { types: 'monitor.created,maintenance.cancelled' } } });
const eventsRead = (typedEvents.data?.data ?? []).slice(0, 3).map((e) => {
  if (e.type === 'com.statusvane.monitor.created') {
    const type: 'http' | 'tcp' | 'heartbeat' | 'dns' | 'api' | 'domain' = e.data.monitor.type;
    const pingUrl: '<redacted>' | null = e.data.monitor.pingUrl;
    return [e.type, type, pingUrl];
  }
  if (e.type === 'com.statusvane.maintenance.cancelled') {
    const cancelledAt: string | null = e.data.maintenance.cancelledAt;
    return [e.type, typeof cancelledAt];
  }
  return [e.type];
});
seen.document = {
  headed: [headed.response.status, headed.response.headers.get('etag'), (await headed.response.text()).length],
  events: eventsRead,
};

seen.raw = [bad, ambiguous, refused, edited, page, stale, lastOwner, staleDelete].map((r) => r.error?.error.details);
// monitors: deleting a workspace secret that a monitor still names (last: its monitor is no part of the events above)
const secretName = 'TYPED_CLIENT_' + Date.now();
await api.POST('/secrets', { body: { name: secretName, value: 'x', allowedHosts: ['example.com'] } });
const naming = await api.POST('/monitors', {
  body: {
    type: 'http',
    name: 'names a secret',
    target: 'https://example.com/',
    headers: { Authorization: 'Bearer {{secrets.' + secretName + '}}' },
  },
});
const inUse = await api.DELETE('/secrets/{name}', { params: { path: { name: secretName } } });
const namingIds: string[] | undefined = details(inUse.error).monitors;
seen.secretInUse = namingIds?.length === 1 && namingIds[0] === naming.data?.data.id;

console.log(JSON.stringify(seen));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    lib: ['ES2023', 'DOM'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: true,
    outDir: 'out',
    types: ['node'],
    typeRoots: [join(root, 'node_modules/@types')],
  },
  files: ['client.ts'],
};

it('generates types from the served document, compiles a strict openapi-fetch client and reads every details key', async () => {
  const doc = await request(h.app).get('/api/v1/openapi.json');
  const declared = Object.keys(doc.body.components.schemas.ErrorDetails.properties).sort();
  expect(declared).toEqual(['action', 'issues', 'monitors', 'reason', 'slug', 'status', 'version', 'workspaces']);
  await writeFile(join(dir, 'openapi.json'), JSON.stringify(doc.body));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(join(dir, 'client.ts'), CLIENT);
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));

  await run([join(root, 'node_modules/openapi-typescript/bin/cli.js'), 'openapi.json', '-o', 'schema.d.ts']);
  await run([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);

  const { ws, tokens } = await makeWorkspace(h.prisma);
  const second = await makeWorkspace(h.prisma);
  const user = await makeUser(h.prisma, [
    { workspace: ws.id, role: 'owner' },
    { workspace: second.ws.id, role: 'owner' },
  ]);
  const personal = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  const seen = JSON.parse(await run(['out/client.js', base, tokens.owner, personal, user.id])) as Record<
    string,
    unknown
  >;

  expect(seen).toMatchObject({
    issues: ['title'],
    workspaces: 2,
    secretInUse: true,
    action: { status: 'scheduled', action: 'complete' },
    edit: 'cancelled',
    slug: { slug: 'api', reason: 'reserved' },
    version: { etag: '"2"', status: 412, version: 2 },
    monitors: {
      httpType: 'http',
      tcpMethod: null,
      tcpContentType: null,
      detection: { regions: ['local'], quorum: 1, confirmAfterSeconds: 15, dependsOn: [] },
    },
    incident: { evidence: [], reason: null, suppressedBy: null },
    resources: {
      display: 'oncall@example.com',
      policies: 1,
      renamed: ['Primary', true],
      results: 0,
      revoked: 401,
      members: ['owner'],
      lastOwner: 'last_owner',
    },
    operations: {
      monitors: {
        filtered: [expect.stringMatching(/^Tagged /)],
        unmatched: 0,
        etag: '"1"',
        assigned: [200, true, 2],
        staleDelete: [412, 2],
        deleted: [204, 404],
      },
      incidents: { get: [true, 'manual', 'Manual'], listed: true, byMonitor: 0 },
      maintenance: {
        scheduled: [expect.stringMatching(/^Window /)],
        activeThen: true,
        doneThen: [['Later', 'cancelled']],
      },
      components: { listed: true, get: [true, 'pending'], patched: ['Storefront', 'The shop'] },
      statusPages: { listed: true, get: 'E2', patched: [true, true], deleted: [204, 404] },
      policies: {
        get: 'Primary',
        tested: [[0, 'email', 'oncall@example.com', 'boolean']],
        patched: [false, ['two@example.com']],
        deleted: [204, 404],
      },
      tokens: { listed: true, shapes: true },
      members: { added: [201, expect.stringMatching(/^new-/), 'member'], demoted: 'viewer', removed: [204, false] },
      audit: {
        actions: ['monitor.deleted', 'monitor.updated', 'monitor.created'],
        byAction: [['status_page.deleted', true, 'status_page']],
      },
    },
  });
  expect(seen.document).toEqual({
    headed: [200, '"1"', 0],
    events: [
      ['com.statusvane.maintenance.cancelled', 'string'],
      ['com.statusvane.monitor.created', 'http', null],
      ['com.statusvane.monitor.created', 'tcp', null],
    ],
  });
  // A GET sent the ETag it answered is 304 with no body, as the document says. (Sent without a cache directive:
  // fetch adds `Cache-Control: no-cache` to a conditional request, which the API does not yet look past.)
  const monitorId = (await request(h.app).get('/api/v1/monitors').set(bearer(tokens.owner))).body.data[0].id as string;
  const first = await request(h.app).get(`/api/v1/monitors/${monitorId}`).set(bearer(tokens.owner));
  const again = await request(h.app)
    .get(`/api/v1/monitors/${monitorId}`)
    .set(bearer(tokens.owner))
    .set('If-None-Match', first.headers.etag!);
  expect([again.status, again.text, again.headers.etag]).toEqual([304, '', first.headers.etag]);
  await expectEveryEventTypeAsDocumented(ws.id, tokens.owner);
  // Every details object the API sent is one the document declares, with no key beyond it.
  for (const details of seen.raw as unknown[])
    expect(errorDetailsSchema.strict().safeParse(details).error).toBeUndefined();
}, 120_000);

/**
 * One real event of every type, read from GET /events, parses with the schema the document declares for its type
 * and holds nothing that schema leaves out (parsing drops unknown keys).
 */
async function expectEveryEventTypeAsDocumented(workspaceId: string, owner: string) {
  const api = (method: 'get' | 'post' | 'patch', path: string, body?: object) =>
    request(h.app)[method](`/api/v1${path}`).set(bearer(owner)).send(body);
  // The types the client's calls did not make: a status change (the worker's write), an incident's moves, a window
  // that started and completed, a heartbeat's pingUrl redacted.
  const heartbeat = await api('post', '/monitors', { type: 'heartbeat', name: 'Nightly', intervalSeconds: 3600 });
  await h.prisma.monitor.update({ where: { id: heartbeat.body.data.id }, data: { status: 'down' } });
  const incident = await api('post', '/incidents', { title: 'Events' });
  await api('post', `/incidents/${incident.body.data.id}/updates`, { status: 'identified', message: 'Found' }).expect(
    201,
  );
  await api('post', `/incidents/${incident.body.data.id}/acknowledge`).expect(200);
  await api('post', `/incidents/${incident.body.data.id}/resolve`).expect(200);
  const past = Date.now() - 3600_000;
  await api('post', '/maintenance', {
    title: 'Done',
    startsAt: new Date(past).toISOString(),
    endsAt: new Date(past + 60_000).toISOString(),
  }).expect(201);

  const byType = new Map<string, unknown[]>();
  for (let tries = 0; byType.size < EVENT_TYPES.length && tries < 50; tries++) {
    const events: Array<{ type: string }> = [];
    let after: string | undefined;
    for (;;) {
      const res = await request(h.app)
        .get('/api/v1/events')
        .query({ limit: 500, ...(after ? { after } : {}) })
        .set(bearer(owner));
      expect(res.status).toBe(200);
      events.push(...(res.body.data as Array<{ type: string }>));
      if (res.body.data.length < 500) break;
      after = res.body.nextCursor as string;
    }
    byType.clear();
    for (const e of events) byType.set(e.type, [...(byType.get(e.type) ?? []), e]);
    if (byType.size < EVENT_TYPES.length) await new Promise((r) => setTimeout(r, 200));
  }
  expect([...byType.keys()].sort()).toEqual(EVENT_TYPES.map((t) => `${EVENT_TYPE_PREFIX}${t}`).sort());
  for (const type of EVENT_TYPES) {
    for (const event of byType.get(`${EVENT_TYPE_PREFIX}${type}`)!) {
      const parsed = EVENT_SCHEMAS[type].safeParse(event);
      expect([type, parsed.error?.issues]).toEqual([type, undefined]);
      expect([type, parsed.data]).toEqual([type, event]);
      expect([type, (event as { source: string }).source]).toEqual([type, `/workspaces/${workspaceId}`]);
    }
  }
  const ping = byType
    .get(`${EVENT_TYPE_PREFIX}monitor.created`)!
    .find((e) => (e as { data: { monitor: { type: string } } }).data.monitor.type === 'heartbeat') as {
    data: { monitor: { pingUrl: string } };
  };
  expect(ping.data.monitor.pingUrl).toBe('<redacted>');
}
