// Wall view links: POST/GET/DELETE /wall-tokens (managers, audited, token shown once and stored hashed), and the
// view at /app/wall/<token>: no sign-in, read-only, worst first, refreshing itself, never indexed, and 404 on the
// very next request after its token is deleted.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { hashToken } from '@statusvane/shared';
import request from 'supertest';
import {
  bearer,
  createMonitorNamed,
  makeHarness,
  makeWorkspace,
  monitorShowing,
  type Harness,
} from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(() => h.close());

/** The wall's tiles, in page order: [name, status]. */
const tilesOf = (html: string) =>
  [
    ...html.matchAll(
      /<li class="wall-tile tile-[a-z]+" id="monitor-[^"]+" data-status="([a-z]+)">.*?<p class="wall-tile-name">([^<]*)<\/p>/g,
    ),
  ].map((m) => [m[2], m[1]]);

describe('wall tokens over the API', () => {
  it('creates a link shown once, lists it without the secret, audits both writes, and deletes it', async () => {
    const w = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/wall-tokens')
      .set(bearer(w.tokens.admin))
      .set('Idempotency-Key', 'wall-1')
      .send({ name: 'Office screen' });
    expect(created.status).toBe(201);
    const { id, token, url } = created.body.data;
    expect(created.body.data).toEqual({
      id: expect.any(String),
      version: 1,
      name: 'Office screen',
      createdAt: expect.any(String),
      lastUsedAt: null,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      url: `${h.config.publicBaseUrl}/app/wall/${token}`,
    });
    expect(url).toContain(token);
    // Stored hashed only.
    const row = await h.prisma.wallToken.findUniqueOrThrow({ where: { id } });
    expect(row.tokenHash).toBe(hashToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    // A replay answers the record without the secret.
    const replay = await request(h.app)
      .post('/api/v1/wall-tokens')
      .set(bearer(w.tokens.admin))
      .set('Idempotency-Key', 'wall-1')
      .send({ name: 'Office screen' });
    expect(replay.status).toBe(201);
    expect(replay.body.data).toMatchObject({ id, token: null, url: null });

    const list = await request(h.app).get('/api/v1/wall-tokens').set(bearer(w.tokens.owner));
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { id, version: 1, name: 'Office screen', createdAt: expect.any(String), lastUsedAt: null },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(token);

    const del = await request(h.app).delete(`/api/v1/wall-tokens/${id}`).set(bearer(w.tokens.owner));
    expect(del.status).toBe(204);
    expect(await h.prisma.wallToken.count({ where: { id } })).toBe(0);
    const events = await h.prisma.auditEvent.findMany({
      where: { workspaceId: w.ws.id, resourceId: id },
      orderBy: { at: 'asc' },
    });
    expect(events.map((e) => [e.action, e.actorType])).toEqual([
      ['wall_token.created', 'token'],
      ['wall_token.deleted', 'token'],
    ]);
    expect(JSON.stringify(events.map((e) => e.changes))).not.toContain(token);
  });

  it('is for managers only; names are judged; another workspace’s link is 404', async () => {
    const w = await makeWorkspace(h.prisma);
    for (const role of ['member', 'viewer'] as const) {
      expect((await request(h.app).get('/api/v1/wall-tokens').set(bearer(w.tokens[role]))).status).toBe(403);
      const post = await request(h.app).post('/api/v1/wall-tokens').set(bearer(w.tokens[role])).send({ name: 'x' });
      expect(post.status).toBe(403);
    }
    const bad = await request(h.app).post('/api/v1/wall-tokens').set(bearer(w.tokens.owner)).send({ name: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('name');
    const extra = await request(h.app)
      .post('/api/v1/wall-tokens')
      .set(bearer(w.tokens.owner))
      .send({ name: 'x', role: 'owner' });
    expect(extra.status).toBe(400);
    const other = await makeWorkspace(h.prisma);
    const theirs = await request(h.app)
      .post('/api/v1/wall-tokens')
      .set(bearer(other.tokens.owner))
      .send({ name: 'Theirs' });
    const res = await request(h.app).delete(`/api/v1/wall-tokens/${theirs.body.data.id}`).set(bearer(w.tokens.owner));
    expect(res.status).toBe(404);
  });
});

describe('the wall view', () => {
  it('shows the monitors worst first without signing in, never indexed, refreshing; 404 at once after DELETE', async () => {
    const w = await makeWorkspace(h.prisma);
    await h.prisma.workspace.update({ where: { id: w.ws.id }, data: { name: 'Acme <Production>' } });
    await monitorShowing(h, w, 'Public API', 'up');
    await monitorShowing(h, w, 'Checkout', 'down');
    await monitorShowing(h, w, 'Search', 'degraded');
    await createMonitorNamed(h, w, 'New thing');
    const paused = await monitorShowing(h, w, 'Old job', 'down');
    await request(h.app).patch(`/api/v1/monitors/${paused.id}`).set(bearer(w.tokens.owner)).send({ enabled: false });
    const created = await request(h.app).post('/api/v1/wall-tokens').set(bearer(w.tokens.owner)).send({ name: 'NOC' });
    const { id, token } = created.body.data;

    const page = await request(h.app).get(`/app/wall/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<meta name="robots" content="noindex, nofollow"/>');
    // Redrawn in place by the script, or reloaded by a meta refresh where no script runs (and only there).
    expect(page.text).toMatch(/<noscript><meta http-equiv="refresh" content="\d+"\/><\/noscript>/);
    expect(page.text).toMatch(/<body class="wall" data-refresh="\d+">/);
    expect(page.text).toContain('<h1>Acme &lt;Production></h1>');
    expect(tilesOf(page.text)).toEqual([
      ['Checkout', 'down'],
      ['Search', 'degraded'],
      ['New thing', 'pending'],
      ['Public API', 'up'],
      ['Old job', 'paused'],
    ]);
    // Read-only: no form, no link into the console.
    expect(page.text).not.toContain('<form');
    expect(page.text).not.toContain(`/app/${w.ws.slug}`);
    // lastUsedAt is written (not awaited by the page: wait for it).
    for (let i = 0; i < 50 && !(await h.prisma.wallToken.findUniqueOrThrow({ where: { id } })).lastUsedAt; i++)
      await new Promise((r) => setTimeout(r, 20));
    const listed = await request(h.app).get('/api/v1/wall-tokens').set(bearer(w.tokens.owner));
    expect(listed.body.data[0].lastUsedAt).not.toBeNull();

    expect((await request(h.app).delete(`/api/v1/wall-tokens/${id}`).set(bearer(w.tokens.owner))).status).toBe(204);
    const gone = await request(h.app).get(`/app/wall/${token}`);
    expect(gone.status).toBe(404);
    expect(gone.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(gone.text).not.toContain('Checkout');
  });

  it('answers 404 for unknown and malformed tokens, never a 500', async () => {
    for (const t of ['x', 'A'.repeat(43), '%00', 'a'.repeat(500), '..%2F..%2Fetc'])
      expect([t, (await request(h.app).get(`/app/wall/${t}`)).status]).toEqual([t, 404]);
  });
});
