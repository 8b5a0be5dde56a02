import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

/** Versions, ETag and If-Match (docs/decisions.md, "Versions and audit events"). */
let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const createPage = async () => {
  const res = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(ws.tokens.owner))
    .send({ vanityUrl: uniq('page'), name: 'Page' });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; version: number; name: string };
};
const patchPage = (id: string, body: object, ifMatch?: string) => {
  const req = request(h.app).patch(`/api/v1/status-pages/${id}`).set(bearer(ws.tokens.admin));
  return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send(body);
};
const eventsOf = (id: string) => h.prisma.auditEvent.findMany({ where: { resourceId: id }, orderBy: { seq: 'asc' } });

describe('version and ETag', () => {
  it('starts at 1, grows by one per write, and is answered as ETag by GET and PATCH (not by lists)', async () => {
    const page = await createPage();
    expect(page.version).toBe(1);
    const got = await request(h.app).get(`/api/v1/status-pages/${page.id}`).set(bearer(ws.tokens.viewer));
    expect([got.status, got.headers.etag, got.body.data.version]).toEqual([200, '"1"', 1]);

    const renamed = await patchPage(page.id, { name: 'Renamed' });
    expect([renamed.status, renamed.headers.etag, renamed.body.data.version]).toEqual([200, '"2"', 2]);
    const again = await patchPage(page.id, { isPublic: false });
    expect([again.headers.etag, again.body.data.version]).toEqual(['"3"', 3]);

    const list = await request(h.app).get('/api/v1/status-pages').set(bearer(ws.tokens.viewer));
    expect(list.headers.etag).toBeUndefined();
    expect(list.body.data.find((p: { id: string }) => p.id === page.id).version).toBe(3);
  });

  it('GET with If-None-Match of the current ETag answers 304', async () => {
    const page = await createPage();
    const res = await request(h.app)
      .get(`/api/v1/status-pages/${page.id}`)
      .set(bearer(ws.tokens.viewer))
      .set('If-None-Match', '"1"');
    expect(res.status).toBe(304);
  });
});

describe('If-Match', () => {
  it('PATCH with the current version writes; with a stale one: 412 precondition_failed and nothing written', async () => {
    const page = await createPage();
    const ok = await patchPage(page.id, { name: 'First' }, '"1"');
    expect([ok.status, ok.headers.etag]).toEqual([200, '"2"']);

    const stale = await patchPage(page.id, { name: 'Second' }, '"1"');
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({
      error: { code: 'precondition_failed', message: expect.stringContaining('version 2'), details: { version: 2 } },
    });
    const row = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } });
    expect([row.name, row.version]).toEqual(['First', 2]);
    expect((await eventsOf(page.id)).map((e) => e.action)).toEqual(['status_page.created', 'status_page.updated']);
  });

  it('takes a list of tags and `*`; a weak tag never matches; a malformed value is 400 naming the header', async () => {
    const page = await createPage();
    expect((await patchPage(page.id, { name: 'a' }, '"7", "1"')).status).toBe(200);
    expect((await patchPage(page.id, { name: 'b' }, '*')).status).toBe(200);
    expect((await patchPage(page.id, { name: 'c' }, 'W/"3"')).status).toBe(412);
    const bad = await patchPage(page.id, { name: 'd' }, '3');
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues).toEqual([{ path: 'If-Match', message: expect.any(String) }]);
    expect((await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } })).version).toBe(3);
  });

  it('DELETE with a stale version: 412 and the record stays; with the current one: 204', async () => {
    const page = await createPage();
    await patchPage(page.id, { name: 'moved on' });
    const del = (ifMatch: string) =>
      request(h.app).delete(`/api/v1/status-pages/${page.id}`).set(bearer(ws.tokens.admin)).set('If-Match', ifMatch);
    expect((await del('"1"')).status).toBe(412);
    expect(await h.prisma.statusPage.count({ where: { id: page.id } })).toBe(1);
    expect((await del('"2"')).status).toBe(204);
    expect(await h.prisma.statusPage.count({ where: { id: page.id } })).toBe(0);
    // A record that is gone is 404, whatever If-Match says.
    expect((await del('"2"')).status).toBe(404);
  });

  it('two writers holding the same version: exactly one succeeds, the other gets 412', async () => {
    const page = await createPage();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => patchPage(page.id, { name: `writer ${i}` }, '"1"')),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    const row = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id } });
    expect([row.name, row.version]).toEqual([winner.body.data.name, 2]);
    expect(await h.prisma.auditEvent.count({ where: { resourceId: page.id, action: 'status_page.updated' } })).toBe(1);
  });
});
