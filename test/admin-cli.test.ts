import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, uniq, type Harness } from './support/harness.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');

/** The CLI exactly as the README runs it: a separate process through tsx. */
async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'apps/api/src/admin/main.ts', ...args], {
      cwd: root,
      env: process.env,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

describe('admin CLI', () => {
  it('creates a workspace, a user, a membership and tokens of all three kinds that work against the API', async () => {
    const slug = uniq('cli');
    const ws = await admin('workspace', 'create', '--slug', slug, '--name', 'CLI test', '--plan', 'team');
    expect(ws.code).toBe(0);
    expect(JSON.parse(ws.stdout)).toMatchObject({ slug, name: 'CLI test', plan: 'team', id: expect.any(String) });

    const email = `${uniq('ada')}@example.test`;
    expect((await admin('user', 'create', '--email', email, '--name', 'Ada')).code).toBe(0);
    const member = await admin('member', 'add', '--workspace', slug, '--email', email, '--role', 'admin');
    expect(JSON.parse(member.stdout)).toMatchObject({ workspace: slug, email, role: 'admin' });

    const org = JSON.parse((await admin('token', 'create', '--kind', 'org', '--workspace', slug, '--role', 'viewer', '--name', 'ci')).stdout);
    expect(org).toMatchObject({ kind: 'org', role: 'viewer', name: 'ci' });
    expect(org.token).toMatch(/^sv_[A-Za-z0-9_-]{43}$/);
    const personal = JSON.parse((await admin('token', 'create', '--kind', 'personal', '--email', email)).stdout);
    expect(personal.token).toMatch(/^svu_/);
    const oauth = JSON.parse((await admin('token', 'create', '--kind', 'oauth', '--email', email, '--workspaces', slug, '--expires-in', '600')).stdout);
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

  it('refuses bad arguments on stderr with a non-zero exit and writes nothing', async () => {
    const before = await h.prisma.workspace.count();
    const cases: string[][] = [
      ['workspace', 'create', '--slug', 'Bad Slug!', '--name', 'x'],
      ['workspace', 'create', '--slug', uniq('ok')],
      ['workspace', 'create', '--slug', uniq('ok'), '--name', 'x', '--plan', 'platinum'],
      ['token', 'create', '--kind', 'org', '--workspace', 'no-such-workspace', '--role', 'admin'],
      ['token', 'create', '--kind', 'bogus'],
      ['token', 'create', '--kind', 'oauth', '--email', 'nobody@example.test', '--workspaces', 'x'],
      ['token', 'revoke', '--id', 'not-a-uuid'],
      ['member', 'add', '--workspace', 'x', '--email', 'not-an-email', '--role', 'owner'],
      ['frobnicate'],
    ];
    for (const args of cases) {
      const r = await admin(...args);
      expect([args.join(' '), r.code === 0]).toEqual([args.join(' '), false]);
      expect(r.stdout).toBe('');
      expect(r.stderr.length).toBeGreaterThan(0);
    }
    expect(await h.prisma.workspace.count()).toBe(before);
  }, 60_000);
});
