/**
 * What an integrator does first: generate types from the served document (openapi-typescript), write a client with
 * openapi-fetch, compile it with strict TypeScript, and run it. The client reads every `details` key the Error
 * schema declares, each from a real answer of the API, with the type the document gives it: a details shape the
 * API sends but the document does not declare fails here (at compile time in the client, at run time in the
 * strict parse below).
 */
import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import request from 'supertest';
import { errorDetailsSchema } from '../apps/api/src/openapi/envelopes.js';
import { createToken } from '../apps/api/src/services/admin/admin-commands.js';
import { makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

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
const reason: 'reserved' | 'taken' | 'last_owner' | 'already_member' | undefined = details(page.error).reason;
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

seen.raw = [bad, ambiguous, refused, edited, page, stale, lastOwner].map((r) => r.error?.error.details);
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
  expect(declared).toEqual(['action', 'issues', 'reason', 'slug', 'status', 'version', 'workspaces']);
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
  });
  // Every details object the API sent is one the document declares, with no key beyond it.
  for (const details of seen.raw as unknown[])
    expect(errorDetailsSchema.strict().safeParse(details).error).toBeUndefined();
}, 60_000);
