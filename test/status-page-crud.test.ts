import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
let other: Awaited<ReturnType<typeof makeWorkspace>>;
beforeAll(async () => {
  h = makeHarness();
  ws = await makeWorkspace(h.prisma);
  other = await makeWorkspace(h.prisma);
});
afterAll(async () => {
  await h.close();
});

const createPage = async (token = ws.tokens.owner) => {
  const res = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(token))
    .send({ vanityUrl: uniq('page'), name: 'Page' });
  expect(res.status).toBe(201);
  return res.body.data as { id: string; slug: string; url: string };
};
const component = async (token = ws.tokens.owner) =>
  (await request(h.app).post('/api/v1/monitors').set(bearer(token)).send(makeMonitorInput())).body.data
    .componentId as string;
const patch = (id: string, body: unknown, token = ws.tokens.admin) =>
  request(h.app)
    .patch(`/api/v1/status-pages/${id}`)
    .set(bearer(token))
    .send(body as object);
const publicPage = (slug: string) => request(h.app).get(`/status/${slug}`).set('Accept', 'application/json');

describe('status pages', () => {
  it('lists and gets the workspace pages as POST returned them', async () => {
    const a = await createPage();
    const b = await createPage();
    await createPage(other.tokens.owner);
    const list = await request(h.app).get('/api/v1/status-pages').set(bearer(ws.tokens.viewer));
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([a, b]);
    expect(list.body.pagination).toMatchObject({ total: 2 });
    const one = await request(h.app).get(`/api/v1/status-pages/${b.id.toUpperCase()}`).set(bearer(ws.tokens.viewer));
    expect(one.body.data).toEqual(b);
    expect(one.body.data.passwordProtected).toBe(false);
  });

  it('PATCH renames, moves the slug, arranges and protects, in one write; 409 on a taken or reserved slug', async () => {
    const page = await createPage();
    const taken = await createPage(other.tokens.owner);
    const [c1, c2] = [await component(), await component()];
    const foreignComponent = await component(other.tokens.owner);
    const newSlug = uniq('moved');

    const res = await patch(page.id, {
      name: 'Acme status',
      slug: `https://${newSlug.toUpperCase()}.example`,
      sections: [
        { name: 'API', componentIds: [c2] },
        { name: 'Web', componentIds: [c1] },
      ],
      password: 'correct horse',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Acme status', slug: `${newSlug}-example`, passwordProtected: true });
    expect(JSON.stringify(res.body)).not.toContain('correct horse');
    expect((await publicPage(page.slug)).status).toBe(404);
    const layout = await request(h.app).get(`/api/v1/status-pages/${page.id}/layout`).set(bearer(ws.tokens.viewer));
    expect(layout.body.data.sections.map((s: { name: string }) => s.name)).toEqual(['API', 'Web']);

    expect((await patch(page.id, { slug: taken.slug })).status).toBe(409);
    expect((await patch(page.id, { slug: 'api' })).body.error).toMatchObject({ code: 'conflict' });
    // A refused PATCH writes nothing, the layout included.
    const bad = await patch(page.id, {
      name: 'Not this',
      sections: [{ name: 'X', componentIds: [foreignComponent, c1, c1] }],
      password: 'short',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([
      'password',
      'sections[0].componentIds[0]',
      'sections[0].componentIds[2]',
    ]);
    const bad2 = await patch(page.id, {
      name: 'Not this',
      sections: [{ name: 'X', componentIds: [foreignComponent, c1, c1] }],
    });
    expect(bad2.status).toBe(400);
    expect(bad2.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual([
      'sections[0].componentIds[0]',
      'sections[0].componentIds[2]',
    ]);
    const row = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: page.id }, include: { sections: true } });
    expect(row.name).toBe('Acme status');
    expect(row.sections).toHaveLength(2);

    const cleared = await patch(page.id, { password: null, sections: [] });
    expect(cleared.body.data.passwordProtected).toBe(false);
    expect((await publicPage(cleared.body.data.slug)).status).toBe(200);
    expect(await h.prisma.statusPageSection.count({ where: { statusPageId: page.id } })).toBe(0);
    expect((await patch(page.id, { name: 'x' }, ws.tokens.member)).status).toBe(403);
    const domain = `${uniq('status')}.acme.test`;
    const set = await patch(page.id, { customDomain: ` ${domain.toUpperCase()} ` });
    expect(set.status).toBe(200);
    expect(set.body.data.customDomain).toBe(domain);
    expect(
      (await request(h.app).get(`/api/v1/status-pages/${page.id}`).set(bearer(ws.tokens.viewer))).body.data,
    ).toEqual(set.body.data);
    const theirs = await createPage(other.tokens.owner);
    const clash = await patch(theirs.id, { customDomain: domain }, other.tokens.owner);
    expect(clash.status).toBe(409);
    expect(clash.body.error.details).toEqual({ customDomain: domain, reason: 'taken' });
    expect((await patch(page.id, { customDomain: 'http://x.test/' })).status).toBe(400);
    expect((await patch(page.id, { customDomain: null })).body.data.customDomain).toBeNull();
  });

  it('DELETE removes the page for managers; its address is 404 at once and the slug is free again', async () => {
    const page = await createPage();
    expect((await publicPage(page.slug)).status).toBe(200);
    const del = (token: string) => request(h.app).delete(`/api/v1/status-pages/${page.id}`).set(bearer(token));
    expect((await del(ws.tokens.member)).status).toBe(403);
    const res = await del(ws.tokens.admin);
    expect(res.status).toBe(204);
    expect((await publicPage(page.slug)).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/status-pages/${page.id}`).set(bearer(ws.tokens.viewer))).status).toBe(
      404,
    );
    expect((await del(ws.tokens.admin)).status).toBe(404);
    const again = await request(h.app)
      .post('/api/v1/status-pages')
      .set(bearer(other.tokens.owner))
      .send({ vanityUrl: page.slug, name: 'Reused' });
    expect(again.status).toBe(201);
    expect(again.body.data.slug).toBe(page.slug);
  });
});
