import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addMember as adminAddMember,
  createToken as adminCreateToken,
  removeMember as adminRemoveMember,
} from '../apps/api/src/admin/admin-commands.js';
import { bearer, makeHarness, makeUser, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

const api = (token: string) => ({
  get: (path: string) => request(h.app).get(`/api/v1${path}`).set(bearer(token)),
  post: (path: string, body: unknown) =>
    request(h.app)
      .post(`/api/v1${path}`)
      .set(bearer(token))
      .send(body as object),
  patch: (path: string, body: unknown) =>
    request(h.app)
      .patch(`/api/v1${path}`)
      .set(bearer(token))
      .send(body as object),
  delete: (path: string) => request(h.app).delete(`/api/v1${path}`).set(bearer(token)),
});
const pathsOf = (res: request.Response) =>
  (res.body.error?.details?.issues as Array<{ path: string }> | undefined)?.map((i) => i.path);

describe('tokens over HTTP', () => {
  it('creates a token shown once that works at once, lists it by prefix, and a deleted token answers 401 at once', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const created = await api(tokens.admin).post('/tokens', { name: 'CI', role: 'member', expiresInDays: 30 });
    expect(created.status).toBe(201);
    const t = created.body.data;
    expect(t).toMatchObject({ name: 'CI', role: 'member', lastUsedAt: null });
    expect(t.token).toMatch(/^sv_[A-Za-z0-9_-]{43}$/);
    expect(t.prefix).toBe(t.token.slice(0, 7));
    expect(Date.parse(t.expiresAt) - Date.parse(t.createdAt)).toBeGreaterThan(29.9 * 86_400_000);
    // Only its hash is stored.
    const row = await h.prisma.apiToken.findUniqueOrThrow({ where: { id: t.id } });
    expect(JSON.stringify(row)).not.toContain(t.token.slice(7));

    expect((await api(t.token).get('/monitors')).status).toBe(200);
    expect((await api(t.token).post('/monitors', { name: 'x' })).status).toBe(400); // a member writes (bad body)
    // lastUsedAt: written in the background, to the minute.
    for (let i = 0; i < 50; i++) {
      const used = await h.prisma.apiToken.findUniqueOrThrow({ where: { id: t.id } });
      if (used.lastUsedAt) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const list = await api(tokens.owner).get('/tokens');
    expect(list.status).toBe(200);
    const listed = list.body.data.find((x: { id: string }) => x.id === t.id);
    expect(listed).toEqual({ ...t, token: undefined, lastUsedAt: expect.any(String) });
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(t.createdAt));
    expect(JSON.stringify(list.body)).not.toContain(t.token);
    expect(list.body.data.map((x: { role: string }) => x.role).sort()).toEqual(
      ['admin', 'member', 'member', 'owner', 'viewer'].sort(),
    );

    expect((await api(tokens.admin).delete(`/tokens/${t.id}`)).status).toBe(204);
    const after = await api(t.token).get('/monitors');
    expect([after.status, after.body.error.code]).toEqual([401, 'unauthorized']);
    expect((await api(tokens.admin).delete(`/tokens/${t.id}`)).status).toBe(404);
    expect((await api(tokens.owner).get('/tokens')).body.data.map((x: { id: string }) => x.id)).not.toContain(t.id);
    expect(await h.prisma.apiToken.count({ where: { workspaceId: ws.id, revokedAt: { not: null } } })).toBe(1);
  });

  it('only managers see or make tokens; an admin cannot mint or delete an owner token (403)', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    for (const token of [tokens.member, tokens.viewer]) {
      expect((await api(token).get('/tokens')).status).toBe(403);
      expect((await api(token).post('/tokens', { name: 'x', role: 'viewer' })).status).toBe(403);
    }
    const before = await h.prisma.apiToken.count();
    const refused = await api(tokens.admin).post('/tokens', { name: 'root', role: 'owner' });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
    expect(await h.prisma.apiToken.count()).toBe(before);
    const ownerToken = await api(tokens.owner).post('/tokens', { name: 'root', role: 'owner' });
    expect(ownerToken.status).toBe(201);
    expect((await api(tokens.admin).delete(`/tokens/${ownerToken.body.data.id}`)).status).toBe(403);
    expect((await api(ownerToken.body.data.token).get('/tokens')).status).toBe(200);
    expect((await api(tokens.owner).delete(`/tokens/${ownerToken.body.data.id}`)).status).toBe(204);
  });

  it('400 names every bad field; a replay with the same Idempotency-Key does not show the secret again', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const bad = await api(tokens.owner).post('/tokens', { name: '', role: 'root', expiresInDays: 0, kind: 'org' });
    expect([bad.status, pathsOf(bad)?.sort()]).toEqual([400, ['expiresInDays', 'kind', 'name', 'role']]);
    const send = () =>
      request(h.app)
        .post('/api/v1/tokens')
        .set(bearer(tokens.owner))
        .set('Idempotency-Key', uniq('tok'))
        .send({ name: 'once', role: 'viewer' });
    const key = uniq('tok');
    const first = await send().set('Idempotency-Key', key);
    const again = await send().set('Idempotency-Key', key);
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(first.body.data.token).toMatch(/^sv_/);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual({ ...first.body.data, token: null });
    const stored = await h.prisma.idempotencyRecord.findMany({ where: { workspaceId: ws.id } });
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(first.body.data.token);
    expect(await h.prisma.apiToken.count({ where: { workspaceId: ws.id, name: 'once' } })).toBe(1);
  });

  it("another workspace's token is 404", async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const t = await api(a.tokens.owner).post('/tokens', { name: 'A', role: 'viewer' });
    expect((await api(b.tokens.owner).delete(`/tokens/${t.body.data.id}`)).status).toBe(404);
    expect((await api(b.tokens.owner).get('/tokens')).body.data.map((x: { id: string }) => x.id)).not.toContain(
      t.body.data.id,
    );
    expect((await api(t.body.data.token).get('/monitors')).status).toBe(200);
  });
});

describe('members over HTTP', () => {
  it('adds (creating the user), lists, changes roles and removes; the member feels it on the next request', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const email = `${uniq('new')}@Example.test`;
    const added = await api(tokens.admin).post('/members', { email, role: 'viewer' });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ email: email.toLowerCase(), role: 'viewer', name: null });
    const userId = added.body.data.userId as string;
    const personal = (await adminCreateToken(h.prisma, { kind: 'personal', email: email.toLowerCase() })).token;
    expect((await api(personal).post('/monitors', { name: 'x' })).status).toBe(403);

    const again = await api(tokens.admin).post('/members', { email: email.toUpperCase(), role: 'member' });
    expect([again.status, again.body.error.details]).toEqual([409, { reason: 'already_member' }]);

    const list = await api(tokens.viewer).get('/members');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([added.body.data]);

    const promoted = await api(tokens.admin).patch(`/members/${userId.toUpperCase()}`, { role: 'member' });
    expect([promoted.status, promoted.body.data.role]).toEqual([200, 'member']);
    expect((await api(personal).post('/monitors', { name: 'x' })).status).toBe(400);

    expect((await api(tokens.admin).delete(`/members/${userId}`)).status).toBe(204);
    expect((await api(personal).get('/monitors')).status).toBe(403);
    expect((await api(tokens.admin).delete(`/members/${userId}`)).status).toBe(404);
    expect(await h.prisma.membership.count({ where: { workspaceId: ws.id } })).toBe(0);
  });

  it('only an owner grants or removes owner (403); the last owner can be neither demoted nor removed (409)', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const first = await makeUser(h.prisma, [{ workspace: ws.id, role: 'owner' }]);
    const refused = await api(tokens.admin).post('/members', { email: `${uniq('o')}@example.test`, role: 'owner' });
    expect(refused.status).toBe(403);
    expect((await api(tokens.admin).patch(`/members/${first.id}`, { role: 'admin' })).status).toBe(403);
    expect((await api(tokens.admin).delete(`/members/${first.id}`)).status).toBe(403);

    const demote = await api(tokens.owner).patch(`/members/${first.id}`, { role: 'admin' });
    expect([demote.status, demote.body.error.details]).toEqual([409, { reason: 'last_owner' }]);
    const remove = await api(tokens.owner).delete(`/members/${first.id}`);
    expect([remove.status, remove.body.error.code]).toEqual([409, 'conflict']);
    // Keeping the owner role is no demotion.
    expect((await api(tokens.owner).patch(`/members/${first.id}`, { role: 'owner' })).status).toBe(200);

    const second = await api(tokens.owner).post('/members', { email: `${uniq('o2')}@example.test`, role: 'owner' });
    expect(second.status).toBe(201);
    const viewerMember = await makeUser(h.prisma, [{ workspace: ws.id, role: 'viewer' }]);
    expect((await api(tokens.admin).patch(`/members/${viewerMember.id}`, { role: 'owner' })).status).toBe(403);

    // Two owners demoting each other at once: exactly one succeeds, one owner is left.
    const results = await Promise.all([
      api(tokens.owner).patch(`/members/${first.id}`, { role: 'member' }),
      api(tokens.owner).patch(`/members/${second.body.data.userId}`, { role: 'member' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await h.prisma.membership.count({ where: { workspaceId: ws.id, role: 'owner' } })).toBe(1);
  });

  it('roles, 400s naming fields, and 404 across workspaces', async () => {
    const a = await makeWorkspace(h.prisma);
    const b = await makeWorkspace(h.prisma);
    const user = await makeUser(h.prisma, [{ workspace: a.ws.id, role: 'member' }]);
    for (const token of [a.tokens.member, a.tokens.viewer]) {
      expect((await api(token).post('/members', { email: `${uniq('m')}@example.test`, role: 'viewer' })).status).toBe(
        403,
      );
      expect((await api(token).patch(`/members/${user.id}`, { role: 'viewer' })).status).toBe(403);
      expect((await api(token).delete(`/members/${user.id}`)).status).toBe(403);
    }
    const bad = await api(a.tokens.admin).post('/members', { email: 'nope', role: 'boss', extra: true });
    expect([bad.status, pathsOf(bad)?.sort()]).toEqual([400, ['email', 'extra', 'role']]);
    const badPatch = await api(a.tokens.admin).patch(`/members/${user.id}`, {});
    expect([badPatch.status, pathsOf(badPatch)]).toEqual([400, ['role']]);
    expect((await api(b.tokens.owner).patch(`/members/${user.id}`, { role: 'viewer' })).status).toBe(404);
    expect((await api(b.tokens.owner).delete(`/members/${user.id}`)).status).toBe(404);
    expect((await api(b.tokens.owner).patch('/members/not-a-uuid', { role: 'viewer' })).status).toBe(404);
    expect((await h.prisma.membership.findFirstOrThrow({ where: { userId: user.id } })).role).toBe('member');
  });

  it('the admin CLI goes through the same services: it cannot remove or demote the last owner either', async () => {
    const { ws } = await makeWorkspace(h.prisma);
    const owner = await makeUser(h.prisma, [{ workspace: ws.id, role: 'owner' }]);
    await expect(adminRemoveMember(h.prisma, { workspace: ws.slug, email: owner.email })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(
      adminAddMember(h.prisma, { workspace: ws.slug, email: owner.email, role: 'admin' }),
    ).rejects.toMatchObject({ code: 'conflict' });
    const second = await makeUser(h.prisma, []);
    const added = await adminAddMember(h.prisma, { workspace: ws.slug, email: second.email, role: 'owner' });
    expect(added).toMatchObject({ workspaceId: ws.id, userId: second.id, role: 'owner' });
    expect(await adminRemoveMember(h.prisma, { workspace: ws.slug, email: owner.email })).toMatchObject({
      removed: true,
    });
  });

  it('versions, If-Match and one audit event per write, for tokens and members', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const t = await api(tokens.owner).post('/tokens', { name: 'audited', role: 'viewer' });
    expect(t.body.data.version).toBe(1);
    const staleToken = await request(h.app)
      .delete(`/api/v1/tokens/${t.body.data.id}`)
      .set(bearer(tokens.owner))
      .set('If-Match', '"9"');
    expect(staleToken.status).toBe(412);
    expect((await api(t.body.data.token).get('/monitors')).status).toBe(200);
    expect((await api(tokens.owner).delete(`/tokens/${t.body.data.id}`)).status).toBe(204);

    const m = await api(tokens.owner).post('/members', { email: `${uniq('v')}@example.test`, role: 'viewer' });
    const userId = m.body.data.userId as string;
    const patch = (role: string, ifMatch: string) =>
      request(h.app)
        .patch(`/api/v1/members/${userId}`)
        .set(bearer(tokens.admin))
        .set('If-Match', ifMatch)
        .send({ role });
    const ok = await patch('member', '"1"');
    expect([ok.status, ok.headers.etag, ok.body.data.version]).toEqual([200, '"2"', 2]);
    expect((await patch('admin', '"1"')).status).toBe(412);
    expect((await api(tokens.admin).delete(`/members/${userId}`)).status).toBe(204);

    // The events of these writes (setting the workspace up recorded its own: its creation and its tokens).
    const events = await h.prisma.auditEvent.findMany({
      where: { workspaceId: ws.id, resourceId: { in: [t.body.data.id, userId] } },
      orderBy: { seq: 'asc' },
    });
    expect(events.map((e) => [e.action, e.resourceId])).toEqual([
      ['token.created', t.body.data.id],
      ['token.deleted', t.body.data.id],
      ['member.created', userId],
      ['member.updated', userId],
      ['member.deleted', userId],
    ]);
    expect(events[3]!.changes).toEqual({ role: { from: 'viewer', to: 'member' } });
    expect(JSON.stringify(events.map((e) => e.changes))).not.toContain(t.body.data.token);
  });
});
