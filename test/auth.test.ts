import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createToken, removeMember, revokeToken, addMember } from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const list = (headers: Record<string, string>) => request(h.app).get('/api/v1/monitors').set(headers);

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe('org tokens', () => {
  it('authenticates and returns an empty page with the pagination object', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const res = await list(bearer(tokens.viewer));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagination: { page: 1, perPage: 25, total: 0, totalPages: 0 } });
    expect(res.headers['content-type']).toMatch(/^application\/json; charset=utf-8/);
  });

  it('accepts the header naming its own workspace by slug or id, and refuses another with 403', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    expect((await list({ ...bearer(a.tokens.owner), 'X-Statusvane-Workspace': a.ws.slug })).status).toBe(200);
    expect((await list({ ...bearer(a.tokens.owner), 'X-Statusvane-Workspace': a.ws.id })).status).toBe(200);
    expectEnvelope(await list({ ...bearer(a.tokens.owner), 'X-Statusvane-Workspace': b.ws.slug }), 403, 'forbidden');
  });

  it('answers 401 with WWW-Authenticate for missing, malformed, unknown and revoked tokens', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const missing = await request(h.app).get('/api/v1/monitors');
    expectEnvelope(missing, 401, 'unauthorized');
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expectEnvelope(await list({ Authorization: 'Basic abc' }), 401, 'unauthorized');
    expectEnvelope(await list({ Authorization: 'Bearer nope' }), 401, 'unauthorized');
    expectEnvelope(await list(bearer('sv_' + 'A'.repeat(43))), 401, 'unauthorized');
    expectEnvelope(await list(bearer('svu_' + 'x')), 401, 'unauthorized');

    const t = await createToken(h.prisma, { kind: 'org', workspace: ws.slug, role: 'admin' });
    expect((await list(bearer(t.token))).status).toBe(200);
    await revokeToken(h.prisma, { id: t.id });
    expectEnvelope(await list(bearer(t.token)), 401, 'unauthorized');
  });

  it('refuses a token whose prefix does not match its kind', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const t = await createToken(h.prisma, { kind: 'org', workspace: ws.slug, role: 'admin' });
    const swapped = 'svu_' + t.token.slice(3);
    expectEnvelope(await list(bearer(swapped)), 401, 'unauthorized');
  });
});

describe('personal tokens', () => {
  it('uses the only workspace without a header', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: ws.slug, role: 'member' }]);
    const t = await createToken(h.prisma, { kind: 'personal', email: user.email });
    expect((await list(bearer(t.token))).status).toBe(200);
  });

  it('answers 400 listing the workspaces when the user has several and no header', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [
      { workspace: a.ws.slug, role: 'member' },
      { workspace: b.ws.slug, role: 'viewer' },
    ]);
    const t = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const res = await list(bearer(t.token));
    expectEnvelope(res, 400, 'invalid_request');
    const choices = (res.body.error.details.workspaces as Array<{ id: string; slug: string; name: string }>)
      .map((w) => w.slug)
      .sort();
    expect(choices).toEqual([a.ws.slug, b.ws.slug].sort());
    expect(res.body.error.details.workspaces[0]).toEqual({
      id: expect.any(String),
      slug: expect.any(String),
      name: 'Test workspace',
    });
    expect((await list({ ...bearer(t.token), 'X-Statusvane-Workspace': b.ws.slug })).status).toBe(200);
    expect((await list({ ...bearer(t.token), 'X-Statusvane-Workspace': a.ws.id })).status).toBe(200);
  });

  it('answers 403 for a workspace the user is not a member of, and for one that does not exist', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: a.ws.slug, role: 'owner' }]);
    const t = await createToken(h.prisma, { kind: 'personal', email: user.email });
    expectEnvelope(await list({ ...bearer(t.token), 'X-Statusvane-Workspace': b.ws.slug }), 403, 'forbidden');
    expectEnvelope(await list({ ...bearer(t.token), 'X-Statusvane-Workspace': 'no-such-workspace' }), 403, 'forbidden');
  });

  it('re-reads membership on every request: removal takes effect at once', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: ws.slug, role: 'member' }]);
    const t = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const headers = { ...bearer(t.token), 'X-Statusvane-Workspace': ws.slug };
    expect((await list(headers)).status).toBe(200);
    await removeMember(h.prisma, { workspace: ws.slug, email: user.email });
    expectEnvelope(await list(headers), 403, 'forbidden');
  });

  it('answers 403 for a user who is a member of no workspace, with or without a header', async () => {
    // Decided (docs/adr/0012): 403, as for "not a member" of a named workspace; a 400 would ask the caller to name
    // a workspace, and details.workspaces would be empty: there is none this token can use.
    const { ws } = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, []);
    const t = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const bare = await list(bearer(t.token));
    expectEnvelope(bare, 403, 'forbidden');
    expect(bare.body.error.message).toBe('You are not a member of any workspace');
    expectEnvelope(await list({ ...bearer(t.token), 'X-Statusvane-Workspace': ws.slug }), 403, 'forbidden');
    // Joining a workspace makes the same token work on the next request.
    await addMember(h.prisma, { workspace: ws.slug, email: user.email, role: 'viewer' });
    expect((await list(bearer(t.token))).status).toBe(200);
  });

  it('stops at once when the token is revoked (401)', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: ws.slug, role: 'owner' }]);
    const t = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const other = await createToken(h.prisma, { kind: 'personal', email: user.email });
    expect((await list(bearer(t.token))).status).toBe(200);
    await revokeToken(h.prisma, { id: t.id });
    expectEnvelope(await list(bearer(t.token)), 401, 'unauthorized');
    expectEnvelope(await list({ ...bearer(t.token), 'X-Statusvane-Workspace': ws.slug }), 401, 'unauthorized');
    // Only that token: the user's other tokens keep working.
    expect((await list(bearer(other.token))).status).toBe(200);
  });

  it('acts with the live role: a role change applies to the next request', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: ws.slug, role: 'viewer' }]);
    const t = await createToken(h.prisma, { kind: 'personal', email: user.email });
    const { authenticate } = await import('../apps/api/src/services/auth/authenticate.js');
    const ctx1 = await authenticate(h.deps, { authorization: `Bearer ${t.token}`, workspaceHeader: undefined });
    expect(ctx1.role).toBe('viewer');
    await addMember(h.prisma, { workspace: ws.slug, email: user.email, role: 'admin' });
    const ctx2 = await authenticate(h.deps, { authorization: `Bearer ${t.token}`, workspaceHeader: undefined });
    expect(ctx2.role).toBe('admin');
    expect(ctx2.principal).toBe(`user:${user.id}`);
  });
});

describe('OAuth tokens', () => {
  async function setup() {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const c = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [
      { workspace: a.ws.slug, role: 'admin' },
      { workspace: b.ws.slug, role: 'viewer' },
      { workspace: c.ws.slug, role: 'owner' },
    ]);
    return { a, b, c, user };
  }

  it('falls back to the primary workspace and is limited to the grants', async () => {
    const { a, b, c, user } = await setup();
    const t = await createToken(h.prisma, {
      kind: 'oauth',
      email: user.email,
      workspaces: `${a.ws.slug},${b.ws.slug}`,
      primary: b.ws.slug,
    });
    expect(t.token.startsWith('mcp_at_')).toBe(true);
    const { authenticate } = await import('../apps/api/src/services/auth/authenticate.js');
    const ctx = await authenticate(h.deps, { authorization: `Bearer ${t.token}`, workspaceHeader: undefined });
    expect(ctx.workspace.slug).toBe(b.ws.slug);
    expect(ctx.role).toBe('viewer');
    expect((await list(bearer(t.token))).status).toBe(200);
    expect((await list({ ...bearer(t.token), 'X-Statusvane-Workspace': a.ws.slug })).status).toBe(200);
    expectEnvelope(await list({ ...bearer(t.token), 'X-Statusvane-Workspace': c.ws.slug }), 403, 'forbidden');
  });

  it('expires (401) and stops at once when the user leaves a granted workspace (403)', async () => {
    const { a, user } = await setup();
    const t = await createToken(h.prisma, { kind: 'oauth', email: user.email, workspaces: a.ws.slug, expiresIn: 60 });
    expect((await list(bearer(t.token))).status).toBe(200);
    await removeMember(h.prisma, { workspace: a.ws.slug, email: user.email });
    expectEnvelope(await list(bearer(t.token)), 403, 'forbidden');

    await h.prisma.apiToken.update({ where: { id: t.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectEnvelope(await list(bearer(t.token)), 401, 'unauthorized');
  });

  it('lives one hour by default: valid until the 3600th second, 401 from then on', async () => {
    const { a, user } = await setup();
    const issuedAt = new Date(Date.now() - 1000);
    const t = await createToken(h.prisma, { kind: 'oauth', email: user.email, workspaces: a.ws.slug }, issuedAt);
    const expiresAt = new Date(issuedAt.getTime() + 3600 * 1000);
    expect(t.expiresAt).toBe(expiresAt.toISOString());
    expect((await h.prisma.apiToken.findUniqueOrThrow({ where: { id: t.id } })).expiresAt).toEqual(expiresAt);
    const { authenticate } = await import('../apps/api/src/services/auth/authenticate.js');
    const at = (ms: number) =>
      authenticate(h.deps, {
        authorization: `Bearer ${t.token}`,
        workspaceHeader: undefined,
        now: new Date(expiresAt.getTime() + ms),
      });
    expect((await at(-1)).workspace.slug).toBe(a.ws.slug);
    await expect(at(0)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(at(60_000)).rejects.toMatchObject({ code: 'unauthorized' });
    expect((await list(bearer(t.token))).status).toBe(200);
  });

  it('stops at once when the token is revoked (401)', async () => {
    const { a, b, user } = await setup();
    const t = await createToken(h.prisma, {
      kind: 'oauth',
      email: user.email,
      workspaces: `${a.ws.slug},${b.ws.slug}`,
    });
    expect((await list(bearer(t.token))).status).toBe(200);
    await revokeToken(h.prisma, { id: t.id });
    expectEnvelope(await list(bearer(t.token)), 401, 'unauthorized');
    expectEnvelope(await list({ ...bearer(t.token), 'X-Statusvane-Workspace': b.ws.slug }), 401, 'unauthorized');
  });

  it('stops at once when a grant is revoked', async () => {
    const { a, b, user } = await setup();
    const t = await createToken(h.prisma, {
      kind: 'oauth',
      email: user.email,
      workspaces: `${a.ws.slug},${b.ws.slug}`,
    });
    const headers = { ...bearer(t.token), 'X-Statusvane-Workspace': b.ws.slug };
    expect((await list(headers)).status).toBe(200);
    await h.prisma.oAuthGrant.deleteMany({ where: { tokenId: t.id, workspaceId: b.ws.id } });
    expectEnvelope(await list(headers), 403, 'forbidden');
  });
});

describe('role matrix', () => {
  it('matches the decisions table', async () => {
    const { can } = await import('../apps/api/src/services/auth/permissions.js');
    const table = {
      'monitors:write': { owner: true, admin: true, member: true, viewer: false },
      'statusPages:manage': { owner: true, admin: true, member: false, viewer: false },
      'incidents:delete': { owner: true, admin: true, member: false, viewer: false },
    } as const;
    for (const [perm, roles] of Object.entries(table)) {
      for (const [role, allowed] of Object.entries(roles)) {
        expect([perm, role, can(role as 'owner', perm as 'monitors:write')]).toEqual([perm, role, allowed]);
      }
    }
  });
});
