/**
 * The statusvane CLI end to end: the real binary (packages/cli/bin/statusvane.mjs, as `npx statusvane` runs it) in
 * its own process, over HTTP, against the API listening on 127.0.0.1 with the real database and Redis.
 */
import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { connect, createServer, type AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse as parseYaml } from 'yaml';
import request from 'supertest';
import { bearer, makeHarness, makeUser, makeWorkspace, uniq, type Harness } from './support/harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'packages/cli/bin/statusvane.mjs');

/**
 * The same bin, built once: bin/statusvane.mjs bundled with the CLI's and the SDK's sources (dependencies stay
 * imports of node_modules), tsx's register() left out. Each run then skips tsx transpiling the import graph, about
 * half a second of the ~50 runs of this suite. The first plan and the example script (npx) run the real bin.
 */
async function buildBin(outfile: string): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    absWorkingDir: root,
    entryPoints: [BIN],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    alias: { '@statusvane/sdk': './packages/sdk/src/index.ts' },
    plugins: [
      {
        name: 'without-tsx',
        setup(b) {
          b.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: 'tsx', namespace: 'without-tsx' }));
          b.onLoad({ filter: /.*/, namespace: 'without-tsx' }, () => ({
            contents: 'export const register = () => {};',
          }));
        },
      },
    ],
    logLevel: 'warning',
  });
}
let builtBin: string;

let h: Harness;
let server: Server;
let url: string;
let dir: string;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  server = h.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ws = await makeWorkspace(h.prisma);
  await mkdir(join(root, 'test-artifacts'), { recursive: true });
  dir = await mkdtemp(join(root, 'test-artifacts', 'cli-'));
  // Inside the checkout, so that the bundle's imports of commander, yaml and openapi-fetch resolve.
  builtBin = join(dir, 'statusvane.mjs');
  await buildBin(builtBin);
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * A TCP proxy to `target` that passes the first connection's request on and then cuts that connection as the answer
 * starts to come back (the answer is lost, the work was done); later connections pass both ways.
 */
async function answerLosingProxy(target: string) {
  const { port } = new URL(target);
  let dropped = 0;
  const proxy = createServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1');
    client.pipe(upstream);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
    if (dropped === 0) {
      dropped++;
      upstream.once('data', () => {
        client.destroy();
        upstream.destroy();
      });
    } else upstream.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI (the built bin unless `bin` says otherwise) with the given arguments and environment (STATUSVANE_URL
 * and an admin token unless overridden).
 */
function cli(args: string[], env: Record<string, string | undefined> = {}, cwd = root, bin = builtBin): Promise<Run> {
  const base = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    STATUSVANE_URL: url,
    STATUSVANE_TOKEN: ws.tokens.admin,
  };
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd, env: { ...base, ...env } as NodeJS.ProcessEnv, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({
          code: err ? ((err as { code?: number }).code ?? 1) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
        }),
    );
    child.stdin?.end();
  });
}

const yamlDoc = (slug: string, interval = 60) =>
  [
    'version: 1',
    'monitors:',
    '  - ref: web',
    '    name: Web',
    '    target: https://93.184.215.14/',
    `    intervalSeconds: ${interval}`,
    '    headers: { Authorization: "Bearer ${WEB_TOKEN}" }',
    '  - ref: db',
    '    name: Database',
    '    type: tcp',
    '    target: 93.184.215.14:5432',
    'statusPages:',
    '  - ref: public',
    '    name: Status',
    `    slug: ${slug}`,
    '    sections: [{ name: Core, monitors: [web, db] }]',
    '',
  ].join('\n');

describe('statusvane CLI', () => {
  it('plans (exit 2 with --detailed-exitcode), applies with --yes, and then plans no change (exit 0)', async () => {
    const file = join(dir, 'statusvane.yaml');
    await writeFile(file, yamlDoc(uniq('cli')));
    const env = { WEB_TOKEN: 'tok-123' };

    // The real bin, through tsx, as `npx statusvane` runs it.
    const plan = await cli(['plan', '-f', file, '--detailed-exitcode'], env, root, BIN);
    expect(plan).toMatchObject({ code: 2, stderr: '' });
    expect(plan.stdout).toMatch(/^\+\s+monitor\s+web/m);
    expect(plan.stdout).toMatch(/^\+\s+status_page\s+public/m);
    expect(plan.stdout).toContain('Plan: 3 to create, 0 to update, 0 to delete, 0 unchanged.');
    expect(plan.stdout).not.toContain('tok-123');

    // Without --yes and without a terminal to ask on: nothing is applied.
    const refused = await cli(['apply', '-f', file], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--yes');
    expect(await h.prisma.monitor.count({ where: { workspaceId: ws.ws.id } })).toBe(0);

    const applied = await cli(['apply', '-f', file, '--yes'], env);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect(applied.stdout).toContain('Applied: 3 created, 0 updated, 0 deleted, 0 unchanged.');
    expect(await h.prisma.monitor.count({ where: { workspaceId: ws.ws.id } })).toBe(2);
    // Each created resource with its new id in the CHANGES column.
    const web = await h.prisma.monitor.findFirstOrThrow({ where: { workspaceId: ws.ws.id, ref: 'web' } });
    const page = await h.prisma.statusPage.findFirstOrThrow({ where: { workspaceId: ws.ws.id, ref: 'public' } });
    expect(applied.stdout).toMatch(new RegExp(`^\\+\\s+monitor\\s+web\\s+${web.id}$`, 'm'));
    expect(applied.stdout).toMatch(new RegExp(`^\\+\\s+status_page\\s+public\\s+${page.id}$`, 'm'));

    const again = await cli(['plan', '-f', file, '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Plan: 0 to create, 0 to update, 0 to delete, 3 unchanged.');

    // A change shows field by field; --json prints the API's plan.
    await writeFile(file, yamlDoc(await slugOf(), 120));
    const changed = await cli(['--json', 'plan', '-f', file], env);
    expect(changed.code).toBe(0);
    const json = JSON.parse(changed.stdout) as {
      summary: Record<string, number>;
      changes: Array<{ ref: string; fields?: object }>;
    };
    expect(json.summary).toEqual({ create: 0, update: 1, delete: 0, noop: 2 });
    expect(json.changes.find((c) => c.ref === 'web')!.fields).toEqual({ intervalSeconds: { from: 60, to: 120 } });
    const text = await cli(['plan', '-f', file], env);
    expect(text.stdout).toContain('~ monitor web.intervalSeconds: 60 -> 120');
  });

  it('exports YAML (and JSON) that plans back to no change', async () => {
    const exported = await cli(['export']);
    expect(exported.code).toBe(0);
    const doc = parseYaml(exported.stdout) as { monitors: Array<{ ref: string; headers?: object }> };
    expect(doc.monitors.map((m) => m.ref)).toEqual(['db', 'web']);
    expect(doc.monitors[1]!.headers).toEqual({ Authorization: '<redacted>' });
    const file = join(dir, 'exported.yaml');
    await writeFile(file, exported.stdout);
    const back = await cli(['plan', '-f', file, '--detailed-exitcode']);
    expect(back.code).toBe(0);
    const json = await cli(['--json', 'export']);
    expect(JSON.parse(json.stdout)).toEqual(doc);
  });

  it('lists monitors and incidents as tables, or JSON', async () => {
    const ls = await cli(['monitors', 'ls']);
    expect(ls.code).toBe(0);
    const [header, ...rows] = ls.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAME\s+TYPE\s+STATUS\s+REF\s+TARGET\s+ID$/);
    // Created in one statement: same createdAt, so the list's order between them is the ids'.
    expect(rows.map((r) => r.split(/\s{2,}/)[0]).sort()).toEqual(['Database', 'Web']);
    const json = JSON.parse((await cli(['monitors', 'ls', '--json'])).stdout) as Array<{ ref: string }>;
    expect(json.map((m) => m.ref).sort()).toEqual(['db', 'web']);

    const none = await cli(['incidents', 'ls']);
    expect(none).toMatchObject({ code: 0, stdout: 'No incidents.\n' });
    await request(h.app)
      .post('/api/v1/incidents')
      .set(bearer(ws.tokens.admin))
      .send({ title: 'Payments slow' })
      .expect(201);
    const some = await cli(['incidents', 'ls']);
    expect(some.stdout).toMatch(
      /^STATUS\s+IMPACT\s+STARTED\s+TITLE\s+ID\nopen\s+major\s+\S+\s+Payments slow\s+[0-9a-f-]{36}\n$/,
    );
  });

  it('shows who is on call now in every schedule', async () => {
    expect(await cli(['oncall'])).toMatchObject({ code: 0, stdout: 'No schedules.\n', stderr: '' });
    const ann = await makeUser(h.prisma, [{ workspace: ws.ws.slug, role: 'member' }]);
    const layer = { rotation: { every: 1, unit: 'weeks' }, handoffTime: '09:00', members: [ann.id] };
    for (const [name, startsAt] of [
      ['Primary', '2026-01-05T09:00:00+01:00'],
      ['Later', '2099-01-05T09:00:00+01:00'],
    ]) {
      await request(h.app)
        .post('/api/v1/schedules')
        .set(bearer(ws.tokens.admin))
        .send({ name, timezone: 'Europe/Berlin', layers: [{ name: 'Weekly', startsAt, ...layer }] })
        .expect(201);
    }
    const now = await cli(['oncall']);
    expect(now.code).toBe(0);
    const [header, ...rows] = now.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^SCHEDULE\s+ON CALL\s+BY\s+UNTIL\s+SCHEDULE ID$/);
    expect(rows.map((r) => r.split(/\s{2,}/).slice(0, 3))).toEqual([
      ['Primary', ann.email, 'Weekly'],
      ['Later', 'nobody (fallback is paged)', '-'],
    ]);
    const json = JSON.parse((await cli(['oncall', '--json'])).stdout) as Array<{ user: { id: string } | null }>;
    expect(json.map((o) => o.user?.id ?? null)).toEqual([ann.id, null]);
  });

  it('acknowledges an incident (acknowledgedBy: the CLI token) and resolves it', async () => {
    const opened = await request(h.app)
      .post('/api/v1/incidents')
      .set(bearer(ws.tokens.admin))
      .send({ title: 'Search down' })
      .expect(201);
    const id = opened.body.data.id as string;
    const tokenName = (await h.prisma.apiToken.findFirstOrThrow({ where: { workspaceId: ws.ws.id, role: 'admin' } }))
      .name;
    const ack = await cli(['incidents', 'ack', id]);
    expect(ack).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Acknowledged at \S+ by .+: Search down\n$/) });
    const stored = (await request(h.app).get(`/api/v1/incidents/${id}`).set(bearer(ws.tokens.viewer))).body.data;
    expect(stored.acknowledgedBy).toEqual({ type: 'token', id: expect.any(String), name: tokenName });
    const resolved = await cli(['--json', 'incidents', 'resolve', id]);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({
      id,
      status: 'resolved',
      acknowledgedBy: stored.acknowledgedBy,
    });
    expect((await cli(['incidents', 'ack', id])).code).toBe(1); // a resolved incident: 409
  });

  it('opens a maintenance window on a component by name for a duration, and completes it', async () => {
    const start = await cli([
      'maintenance',
      'start',
      '--component',
      'database',
      '--for',
      '45m',
      '--title',
      'Deploy v2',
    ]);
    expect(start.code).toBe(0);
    const id = start.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const window = (await request(h.app).get(`/api/v1/maintenance/${id}`).set(bearer(ws.tokens.viewer))).body.data;
    expect(window).toMatchObject({ title: 'Deploy v2', status: 'in_progress', components: [{ name: 'Database' }] });
    expect(new Date(window.endsAt).getTime() - new Date(window.startsAt).getTime()).toBe(45 * 60_000);
    const done = await cli(['maintenance', 'complete', id]);
    expect(done).toMatchObject({ code: 0, stdout: `completed ${id}\n` });
    const after = (await request(h.app).get(`/api/v1/maintenance/${id}`).set(bearer(ws.tokens.viewer))).body.data;
    expect(after.status).toBe('completed');

    // The answer of the first attempt lost on the way back: the retry, with the same Idempotency-Key, replays that
    // window instead of opening a second.
    const lossy = await answerLosingProxy(url);
    try {
      const title = uniq('lost-answer');
      const retried = await cli(['maintenance', 'start', '--all', '--title', title], { STATUSVANE_URL: lossy.url });
      expect(retried.code).toBe(0);
      expect(lossy.dropped()).toBe(1);
      const opened = await h.prisma.maintenanceWindow.findMany({ where: { workspaceId: ws.ws.id, title } });
      expect(opened.map((w) => w.id)).toEqual([retried.stdout.trim()]);
    } finally {
      await lossy.close();
    }

    // Neither --component nor --all: refused before anything is sent (a CI step that lost its --component must not
    // put the whole workspace into maintenance); both: refused too.
    const before = await h.prisma.maintenanceWindow.count({ where: { workspaceId: ws.ws.id } });
    const bare = await cli(['maintenance', 'start', '--title', 'Deploy']);
    expect(bare).toMatchObject({ code: 1, stdout: '' });
    expect(bare.stderr).toContain('--component');
    expect(bare.stderr).toContain('--all');
    const both = await cli(['maintenance', 'start', '--all', '--component', 'database', '--title', 'Deploy']);
    expect([both.code, both.stderr]).toEqual([1, 'statusvane: give --component or --all, not both\n']);
    expect(await h.prisma.maintenanceWindow.count({ where: { workspaceId: ws.ws.id } })).toBe(before);
    const all = await cli(['maintenance', 'start', '--all', '--for', '5m', '--title', 'Everything']);
    expect(all.code).toBe(0);
    const everything = (
      await request(h.app).get(`/api/v1/maintenance/${all.stdout.trim()}`).set(bearer(ws.tokens.viewer))
    ).body.data;
    expect(everything).toMatchObject({ title: 'Everything', components: [] });

    const unknown = await cli(['maintenance', 'start', '--component', 'nothing', '--title', 'x']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no component is named "nothing"');
    expect((await cli(['maintenance', 'start', '--all', '--for', 'soon', '--title', 'x'])).code).toBe(1);
  });

  it('examples/deploy-with-maintenance.sh wraps a deploy in a window and completes it, even when the deploy fails', async () => {
    const script = join(root, 'examples/deploy-with-maintenance.sh');
    const run = (deploy: string[], scope: Record<string, string> = { COMPONENTS: 'Web' }) =>
      new Promise<number>((resolve) =>
        execFile(
          script,
          ['Deploying v3', ...deploy],
          {
            cwd: root,
            env: {
              PATH: process.env.PATH,
              HOME: process.env.HOME,
              STATUSVANE_URL: url,
              STATUSVANE_TOKEN: ws.tokens.admin,
              ...scope,
            },
            timeout: 60_000,
          },
          (err) => resolve(err ? ((err as { code?: number }).code ?? 1) : 0),
        ),
      );
    expect(await run(['true'])).toBe(0);
    expect(await run(['false'])).toBe(1);
    // Neither COMPONENTS nor ALL_COMPONENTS=1: no window, and the deploy does not run.
    const marker = join(dir, 'deployed');
    expect(await run(['touch', marker], {})).toBe(1);
    await expect(readFile(marker)).rejects.toThrow();
    const windows = await h.prisma.maintenanceWindow.findMany({
      where: { workspaceId: ws.ws.id, title: 'Deploying v3' },
    });
    expect(windows).toHaveLength(2);
    const shown = await request(h.app).get(`/api/v1/maintenance/${windows[0]!.id}`).set(bearer(ws.tokens.viewer));
    expect(shown.body.data).toMatchObject({ status: 'completed', components: [{ name: 'Web' }] });
  });

  it('plans and applies examples/statusvane.yaml (secrets from the environment), then plans no change', async () => {
    const other = await makeWorkspace(h.prisma);
    const example = join(root, 'examples/statusvane.yaml');
    const env = {
      STATUSVANE_TOKEN: other.tokens.owner,
      SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX',
      PAGERDUTY_ROUTING_KEY: 'R0UTINGKEY0000000000000000000000',
      CHECKOUT_TOKEN: 'checkout-secret',
    };
    const plan = await cli(['--json', 'plan', '-f', example, '--detailed-exitcode'], env);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
    const summary = (JSON.parse(plan.stdout) as { summary: Record<string, number> }).summary;
    // Two policies, a dozen monitors, one status page.
    expect(summary).toEqual({ create: 15, update: 0, delete: 0, noop: 0 });
    const applied = await cli(['apply', '-f', example, '--yes'], env);
    expect(applied).toMatchObject({ code: 0, stderr: '' });
    expect((await cli(['plan', '-f', example, '--detailed-exitcode'], env)).code).toBe(0);
    // The example's slug is taken now: free it for other runs of this suite on the same database.
    await h.prisma.workspace.delete({ where: { id: other.ws.id } });
  });

  it('exits 1 with the reason: settings missing, API refusals with every issue, unreachable service', async () => {
    const unset = await cli(['monitors', 'ls'], { STATUSVANE_URL: undefined });
    expect(unset).toMatchObject({ code: 1 });
    expect(unset.stderr).toContain('STATUSVANE_URL is not set');
    const bad = join(dir, 'bad.yaml');
    await writeFile(
      bad,
      'version: 1\nmonitors:\n  - { ref: a, name: A, target: "ftp://x" }\n  - { ref: a, name: B, target: "https://93.184.215.14/", colour: red }\n',
    );
    const refused = await cli(['plan', '-f', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('monitors[0].target:');
    expect(refused.stderr).toContain('monitors[1].ref:');
    expect(refused.stderr).toContain('monitors[1].colour:');
    const viewer = await cli(['plan', '-f', bad], { STATUSVANE_TOKEN: ws.tokens.viewer });
    expect(viewer.stderr).toContain('HTTP 403');
    const unsetVar = await cli(['plan', '-f', join(dir, 'statusvane.yaml')]);
    expect(unsetVar.code).toBe(1);
    expect(unsetVar.stderr).toContain('WEB_TOKEN');
    const down = await cli(['monitors', 'ls'], { STATUSVANE_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^statusvane: /);
    expect((await cli(['nonsense'])).code).toBe(1);
    expect((await cli(['--help'])).code).toBe(0);
  });
});

/** The slug the first test's page was given. */
async function slugOf(): Promise<string> {
  const page = await h.prisma.statusPage.findFirstOrThrow({ where: { workspaceId: ws.ws.id } });
  return page.slug;
}

describe('statusvane import openapi', () => {
  it('plans, then applies, the monitors of an OpenAPI document; the import is named after the file', async () => {
    const file = join(root, 'test/fixtures/openapi/items-3.1.json');
    const args = ['import', 'openapi', file, '--base-url', 'https://items.example.com/v2'];
    const plan = await cli(args);
    expect([plan.code, plan.stderr]).toEqual([0, '']);
    expect(plan.stdout).toMatch(/\+\s+monitor\s+openapi\.items-3-1\.get-health/);
    expect(plan.stdout).toContain('Plan: 3 to create, 0 to update, 0 to delete, 0 unchanged.');
    expect(plan.stdout).toContain('skipped getItem: parameter itemId (path) is required and has no example');
    const applied = await cli([...args, '--apply', '--json']);
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout).summary).toEqual({ create: 3, update: 0, delete: 0, noop: 0 });
    expect(
      await h.prisma.monitor.count({ where: { workspaceId: ws.ws.id, ref: { startsWith: 'openapi.items-3-1.' } } }),
    ).toBe(3);
    const missing = await cli(['import', 'openapi', join(dir, 'nope.yaml'), '--base-url', 'https://x.example']);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('cannot read')]);
  });
});
