import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { addMember, createUser, createWorkspace } from '../apps/api/src/admin/admin-commands.js';
import { adminCli, adminProcess } from './support/admin-cli.js';
import { bearer, makeHarness, makeUser, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { consoleBrowser, setUserPassword } from './support/console.js';

/** The CLI in this process (test/support/admin-cli.ts); one test below runs it as a process, as the README does. */
const admin = (...args: string[]) => adminCli(args);
const adminWith = (env: Record<string, string>, ...args: string[]) => adminCli(args, env);

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

describe('admin CLI', () => {
  it('runs as a process: one JSON object on stdout and exit 0, or a message on stderr and a non-zero exit', async () => {
    const slug = uniq('proc');
    const [made, refused] = await Promise.all([
      adminProcess(['workspace', 'create', '--slug', slug, '--name', 'As a process']),
      adminProcess(['workspace', 'create', '--slug', slug]),
    ]);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ slug, name: 'As a process' });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/--name/);
  }, 90_000); // two tsx processes start from scratch: seconds each, more on a busy machine

  it('creates a workspace, a user, a membership and tokens of all three kinds that work against the API', async () => {
    const slug = uniq('cli');
    const ws = await admin('workspace', 'create', '--slug', slug, '--name', 'CLI test', '--plan', 'team');
    expect(ws.code).toBe(0);
    expect(JSON.parse(ws.stdout)).toMatchObject({ slug, name: 'CLI test', plan: 'team', id: expect.any(String) });

    const email = `${uniq('ada')}@example.test`;
    expect((await admin('user', 'create', '--email', email, '--name', 'Ada')).code).toBe(0);
    const member = await admin('member', 'add', '--workspace', slug, '--email', email, '--role', 'admin');
    expect(JSON.parse(member.stdout)).toMatchObject({ workspace: slug, email, role: 'admin' });

    const org = JSON.parse(
      (await admin('token', 'create', '--kind', 'org', '--workspace', slug, '--role', 'viewer', '--name', 'ci')).stdout,
    );
    expect(org).toMatchObject({ kind: 'org', role: 'viewer', name: 'ci' });
    expect(org.token).toMatch(/^sv_[A-Za-z0-9_-]{43}$/);
    const personal = JSON.parse((await admin('token', 'create', '--kind', 'personal', '--email', email)).stdout);
    expect(personal.token).toMatch(/^svu_/);
    const oauth = JSON.parse(
      (await admin('token', 'create', '--kind', 'oauth', '--email', email, '--workspaces', slug, '--expires-in', '600'))
        .stdout,
    );
    expect(oauth.token).toMatch(/^mcp_at_/);
    expect(oauth.primaryWorkspace).toBe(slug);

    for (const t of [org.token, personal.token, oauth.token]) {
      expect((await request(h.app).get('/api/v1/monitors').set(bearer(t))).status).toBe(200);
    }
    // Only a hash is stored.
    const row = await h.prisma.apiToken.findUniqueOrThrow({ where: { id: org.id } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(org.token.slice(3));

    const revoked = await admin('token', 'revoke', '--id', org.id);
    expect(revoked.code).toBe(0);
    expect((await request(h.app).get('/api/v1/monitors').set(bearer(org.token))).status).toBe(401);

    const removed = await admin('member', 'remove', '--workspace', slug, '--email', email);
    expect(JSON.parse(removed.stdout)).toMatchObject({ removed: true });
    expect((await request(h.app).get('/api/v1/monitors').set(bearer(personal.token))).status).toBe(403);
  }, 60_000);

  /** A failure as a user sees it: a non-zero exit, nothing on stdout, a readable message and no driver dump or stack. */
  function expectReadableFailure(args: string[], r: { code: number; stdout: string; stderr: string }) {
    expect([args.join(' '), r.code === 0, r.stdout]).toEqual([args.join(' '), false, '']);
    expect([args.join(' '), r.stderr]).toEqual([args.join(' '), expect.stringMatching(/\S/)]);
    expect([args.join(' '), r.stderr]).toEqual([
      args.join(' '),
      expect.not.stringMatching(/Invalid `|prisma\.|^\s+at |\{\s*$|node_modules/m),
    ]);
  }

  /** Everything the CLI could have written about these workspaces, users and their tokens and memberships. */
  async function written(slugs: string[], emails: string[]) {
    const workspaces = await h.prisma.workspace.findMany({ where: { slug: { in: slugs } }, select: { id: true } });
    const users = await h.prisma.user.findMany({ where: { email: { in: emails } }, select: { id: true } });
    const wsIds = workspaces.map((w) => w.id);
    const userIds = users.map((u) => u.id);
    return {
      workspaces: workspaces.length,
      users: users.length,
      tokens: await h.prisma.apiToken.count({
        where: { OR: [{ workspaceId: { in: wsIds } }, { userId: { in: userIds } }] },
      }),
      memberships: await h.prisma.membership.count({
        where: { OR: [{ workspaceId: { in: wsIds } }, { userId: { in: userIds } }] },
      }),
      grants: await h.prisma.oAuthGrant.count({ where: { workspaceId: { in: wsIds } } }),
    };
  }

  it('refuses bad arguments on stderr with a non-zero exit and writes nothing', async () => {
    // An existing workspace and user, so that refused token and membership commands had something to write to.
    const slug = uniq('kept');
    const email = `${uniq('kept')}@example.test`;
    // (Set up in-process: the CLI's own create commands are covered above.)
    await createWorkspace(h.prisma, { slug, name: 'Kept' });
    await createUser(h.prisma, { email });
    const other = uniq('other');
    await createWorkspace(h.prisma, { slug: other, name: 'Other' });
    const before = await written([slug, other], [email]);
    expect(before).toEqual({ workspaces: 2, users: 1, tokens: 0, memberships: 0, grants: 0 });

    const fresh = [uniq('ok'), uniq('ok')];
    const cases: string[][] = [
      ['workspace', 'create', '--slug', 'Bad Slug!', '--name', 'x'],
      ['workspace', 'create', '--slug', fresh[0]!],
      ['workspace', 'create', '--slug', fresh[1]!, '--name', 'x', '--plan', 'platinum'],
      ['token', 'create', '--kind', 'org', '--workspace', 'no-such-workspace', '--role', 'admin'],
      ['token', 'create', '--kind', 'org', '--workspace', slug, '--role', 'superuser'],
      ['token', 'create', '--kind', 'bogus'],
      ['token', 'create', '--kind', 'oauth', '--email', 'nobody@example.test', '--workspaces', 'x'],
      ['token', 'create', '--kind', 'oauth', '--email', email, '--workspaces', slug, '--expires-in', '10'],
      ['token', 'create', '--kind', 'oauth', '--email', email, '--workspaces', slug, '--primary', other],
      ['token', 'create', '--kind', 'personal', '--email', email, '--workspace', slug],
      ['token', 'revoke', '--id', 'not-a-uuid'],
      ['member', 'add', '--workspace', 'x', '--email', 'not-an-email', '--role', 'owner'],
      ['member', 'add', '--workspace', slug, '--email', email, '--role', 'god'],
      ['frobnicate'],
    ];
    for (const args of cases) expectReadableFailure(args, await admin(...args));
    expect(
      await written([slug, other, 'Bad Slug!', 'bad-slug', ...fresh], [email, 'nobody@example.test', 'not-an-email']),
    ).toEqual(before);
  }, 90_000);

  it('names options as they are typed (--expires-in), not as they are parsed', async () => {
    const slug = uniq('flags');
    const email = `${uniq('flags')}@example.test`;
    await createWorkspace(h.prisma, { slug, name: 'Flags' });
    await createUser(h.prisma, { email });
    await addMember(h.prisma, { workspace: slug, email, role: 'owner' });
    for (const value of ['abc', '10', '99999999999']) {
      const args = [
        'token',
        'create',
        '--kind',
        'oauth',
        '--email',
        email,
        '--workspaces',
        slug,
        '--expires-in',
        value,
      ];
      const r = await admin(...args);
      expectReadableFailure(args, r);
      expect(r.stderr).toMatch(/^error: invalid arguments: --expires-in\n {2}--expires-in: .+\n$/);
      expect(r.stderr).not.toContain('expiresIn');
    }
    expect((await written([slug], [email])).tokens).toBe(0);
  }, 60_000);

  it("org tokens are created and revoked by the API's token services: the same rules and audit events", async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const created = await admin(
      'token',
      'create',
      '--kind',
      'org',
      '--workspace',
      ws.slug,
      '--role',
      'admin',
      '--expires-in-days',
      '30',
    );
    expect([created.code, created.stderr]).toEqual([0, '']);
    const org = JSON.parse(created.stdout);
    expect(org).toMatchObject({ kind: 'org', role: 'admin', name: 'admin CLI', workspace: ws.slug });
    expect(Math.abs(Date.parse(org.expiresAt) - Date.now() - 30 * 86_400_000)).toBeLessThan(600_000);
    // The API shows it as one of its own (POST /tokens).
    const listed = await request(h.app).get('/api/v1/tokens').set(bearer(tokens.owner));
    expect(listed.body.data).toContainEqual(
      expect.objectContaining({ id: org.id, name: 'admin CLI', role: 'admin', version: 1, expiresAt: org.expiresAt }),
    );
    // The API's rules: expiresInDays 1..3650, a name of 1..200 characters.
    for (const [flag, value] of [
      ['--expires-in-days', '0'],
      ['--expires-in-days', 'abc'],
      ['--name', ' '],
    ] as const) {
      const args = ['token', 'create', '--kind', 'org', '--workspace', ws.slug, '--role', 'viewer', flag, value];
      const r = await admin(...args);
      expectReadableFailure(args, r);
      expect(r.stderr).toContain(`${flag}: `);
    }
    expect(await h.prisma.apiToken.count({ where: { workspaceId: ws.id } })).toBe(5);

    const revoked = await admin('token', 'revoke', '--id', org.id);
    expect([revoked.code, revoked.stderr]).toEqual([0, '']);
    expect((await request(h.app).get('/api/v1/monitors').set(bearer(org.token))).status).toBe(401);
    // Again: nothing changes, and it says when it was revoked.
    const again = await admin('token', 'revoke', '--id', org.id);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(revoked.stdout));

    const eventsOf = (resourceId: string) =>
      h.prisma.auditEvent.findMany({ where: { resourceId }, orderBy: { seq: 'asc' } });
    const cli = await eventsOf(org.id);
    expect(cli.map((e) => [e.action, e.actorType])).toEqual([
      ['token.created', 'cli'],
      ['token.deleted', 'cli'],
    ]);
    // The same events as the API's create and delete of such a token.
    const viaApi = await request(h.app)
      .post('/api/v1/tokens')
      .set(bearer(tokens.owner))
      .send({ name: 'admin CLI', role: 'admin', expiresInDays: 30 });
    expect(viaApi.status).toBe(201);
    expect(
      (await request(h.app).delete(`/api/v1/tokens/${viaApi.body.data.id}`).set(bearer(tokens.owner))).status,
    ).toBe(204);
    const api = await eventsOf(viaApi.body.data.id);
    const shape = (events: typeof cli) =>
      events.map((e) => [e.action, Object.keys(e.changes as object).sort()] as const);
    expect(shape(cli)).toEqual(shape(api));
  }, 90_000);

  it('a failure of the database write itself (a duplicate grant) is one readable line, exits non-zero and writes nothing', async () => {
    const slug = uniq('dup');
    const email = `${uniq('dup')}@example.test`;
    const ws = await createWorkspace(h.prisma, { slug, name: 'Dup' });
    await createUser(h.prisma, { email });
    await addMember(h.prisma, { workspace: slug, email, role: 'admin' });
    // The same workspace by slug and by id: two grants of one workspace, refused by the unique index.
    const args = ['token', 'create', '--kind', 'oauth', '--email', email, '--workspaces', `${slug},${ws.id}`];
    const r = await admin(...args);
    expectReadableFailure(args, r);
    expect(r.stderr).toBe(
      'error: that would create a duplicate (the same value given twice, or created meanwhile by someone else); nothing was written\n',
    );
    expect(await written([slug], [email])).toEqual({ workspaces: 1, users: 1, tokens: 0, memberships: 1, grants: 0 });
  }, 60_000);

  it('two creates of one slug at once: one succeeds, the other says so in one line', async () => {
    const slug = uniq('race');
    const results = await Promise.all([
      admin('workspace', 'create', '--slug', slug, '--name', 'A'),
      admin('workspace', 'create', '--slug', slug, '--name', 'B'),
    ]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
    const loser = results.find((r) => r.code !== 0)!;
    expectReadableFailure(['workspace', 'create', '--slug', slug], loser);
    expect(loser.stderr.trim().split('\n')).toHaveLength(1);
    expect(await h.prisma.workspace.count({ where: { slug } })).toBe(1);
  }, 60_000);

  it('reads ALLOWED_TARGET_CIDRS with the configuration rules: a bad value is a readable error and nothing is written', async () => {
    const slug = uniq('cidr');
    const ws = await createWorkspace(h.prisma, { slug, name: 'CIDR' });
    const policy = JSON.stringify({
      name: 'p',
      steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: 'http://127.0.0.1:9/hook' }] }],
    });
    const args = ['policy', 'create', '--workspace', slug, '--json', policy];
    const bad = await adminWith({ ALLOWED_TARGET_CIDRS: '127.0.0.1/99' }, ...args);
    expectReadableFailure(args, bad);
    expect(bad.stderr).toMatch(/^error: Invalid configuration:\n {2}- ALLOWED_TARGET_CIDRS: /);
    // Blank counts as unset: the loopback target is then refused by the SSRF policy, not by the variable.
    const blank = await adminWith({ ALLOWED_TARGET_CIDRS: '' }, ...args);
    expectReadableFailure(args, blank);
    expect(blank.stderr).toMatch(/^error: invalid arguments: --json\.steps\[0\]\.targets\[0\]\.target\n/);
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: ws.id } })).toBe(0);
    const allowed = await adminWith({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' }, ...args);
    expect([allowed.code, allowed.stderr]).toEqual([0, '']);
    expect(await h.prisma.escalationPolicy.count({ where: { workspaceId: ws.id } })).toBe(1);
  }, 60_000);

  it('status-page set-password prints the URL the API gives the page: PUBLIC_BASE_URL by the configuration rules', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    // The same environment for the API and the CLI, as in a deployment's env file (blank = unset).
    const cases: Array<{ env: Record<string, string>; base: string }> = [
      { env: { PUBLIC_BASE_URL: 'https://status.example.test', PORT: '' }, base: 'https://status.example.test' },
      {
        env: { PUBLIC_BASE_URL: 'https://status.example.test/statusvane/', PORT: '8080' },
        base: 'https://status.example.test/statusvane',
      },
      { env: { PUBLIC_BASE_URL: '', PORT: '8080' }, base: 'http://localhost:8080' },
    ];
    for (const { env, base } of cases) {
      const api = makeHarness(env);
      try {
        const created = await request(api.app)
          .post('/api/v1/status-pages')
          .set(bearer(tokens.owner))
          .send({ vanityUrl: uniq('pw'), name: 'Password' });
        expect(created.status).toBe(201);
        const page = created.body.data as { id: string; slug: string; url: string };
        expect(page.url).toBe(`${base}/status/${page.slug}`);
        const out = await adminWith(env, 'status-page', 'set-password', '--id', page.id, '--password', 'long enough');
        expect([env, out.code, out.stderr]).toEqual([env, 0, '']);
        expect([env, JSON.parse(out.stdout)]).toEqual([env, { ...page, passwordProtected: true, version: 2 }]);
      } finally {
        await api.close();
      }
    }
  }, 120_000);
});

describe('admin CLI: console users', () => {
  it('user reset-link prints a link that sets a password (an invitation without one, a reset with one)', async () => {
    const w = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
    const base = h.config.publicBaseUrl;
    const first = await adminWith({ PUBLIC_BASE_URL: base }, 'user', 'reset-link', '--email', user.email.toUpperCase());
    expect([first.code, first.stderr]).toEqual([0, '']);
    const invite = JSON.parse(first.stdout);
    expect(invite).toEqual({
      email: user.email,
      purpose: 'invite',
      url: expect.stringMatching(new RegExp(`^${base}/app/invite/[A-Za-z0-9_-]{43}$`)),
      expiresAt: expect.any(String),
    });
    const b = consoleBrowser(h);
    const link = new URL(invite.url).pathname;
    const set = await b.submit(link, { password: 'a good long password', confirm: 'a good long password' });
    expect(set.status).toBe(303);
    await b.signIn(user.email, 'a good long password');

    // Now with a password: a reset link (1 h), and the older links are void.
    const second = JSON.parse(
      (await adminWith({ PUBLIC_BASE_URL: base }, 'user', 'reset-link', '--email', user.email)).stdout,
    );
    expect(second.purpose).toBe('reset');
    expect(second.url).toMatch(new RegExp(`^${base}/app/forgot/[A-Za-z0-9_-]{43}$`));
    const reset = await consoleBrowser(h).submit(new URL(second.url).pathname, {
      password: 'another long password',
      confirm: 'another long password',
    });
    expect(reset.status).toBe(303);
    await consoleBrowser(h).signIn(user.email, 'another long password');

    const unknown = await admin('user', 'reset-link', '--email', 'nobody@example.test');
    expect([unknown.code, unknown.stdout]).toEqual([1, '']);
    expect(unknown.stderr).toBe('error: user was not found\n');
  }, 60_000);

  it('user reset-2fa turns the second factor off, deletes recovery codes, ends sessions and is audited', async () => {
    const w = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: w.ws.id, role: 'member' }]);
    await setUserPassword(h.prisma, user.email, 'correct horse battery staple');
    const b = consoleBrowser(h);
    await b.signIn(user.email, 'correct horse battery staple');
    expect((await b.get(`/app/${w.ws.slug}/monitors`)).status).toBe(200);
    await h.prisma.user.update({ where: { id: user.id }, data: { totpSecretEnc: 'sealed-secret', totpLastStep: 1n } });
    await h.prisma.recoveryCode.create({ data: { userId: user.id, codeHash: 'a'.repeat(64) } });

    const out = await admin('user', 'reset-2fa', '--email', user.email);
    expect([out.code, out.stderr]).toEqual([0, '']);
    expect(JSON.parse(out.stdout)).toEqual({ email: user.email, twoFactor: false, reset: true });
    const row = await h.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect([row.totpSecretEnc, row.totpPendingSecretEnc, row.totpLastStep]).toEqual([null, null, null]);
    expect(await h.prisma.recoveryCode.count({ where: { userId: user.id } })).toBe(0);
    expect(await h.prisma.consoleSession.count({ where: { userId: user.id } })).toBe(0);
    expect((await b.get(`/app/${w.ws.slug}/monitors`)).status).toBe(303);
    const event = await h.prisma.auditEvent.findFirstOrThrow({
      where: { workspaceId: w.ws.id, resourceId: user.id, action: 'user.two_factor_reset' },
    });
    expect(event.actorType).toBe('cli');
    // Nothing to reset: says so, changes nothing.
    const again = await admin('user', 'reset-2fa', '--email', user.email);
    expect(JSON.parse(again.stdout)).toEqual({ email: user.email, twoFactor: false, reset: false });
  }, 60_000);
});
