// Status page branding: logoUrl, faviconUrl, brandColor and websiteUrl through the API, config as code and the
// console's form, and what the public page makes of them (logo, favicon, readable colours, CSP).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { setStatusPagePassword } from '../apps/api/src/admin/status-page-commands.js';
import { brandPalettes } from '../apps/api/src/views/status-page/brand-colours.js';
import { signedInAs } from './support/console.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

type Workspace = Awaited<ReturnType<typeof makeWorkspace>>;

const BRAND = {
  logoUrl: 'https://cdn.acme.test/logo.png',
  faviconUrl: 'https://cdn.acme.test/favicon.ico',
  brandColor: '#ffd400',
  websiteUrl: 'http://www.acme.test/',
};

const create = (w: Workspace, body: Record<string, unknown>) =>
  request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('brand'), name: 'Acme', ...body });
const patch = (w: Workspace, id: string, body: Record<string, unknown>) =>
  request(h.app).patch(`/api/v1/status-pages/${id}`).set(bearer(w.tokens.owner)).send(body);
const issuePaths = (res: request.Response) =>
  (res.body.error?.details?.issues ?? []).map((i: { path: string }) => i.path).sort();

describe('branding through the API', () => {
  it('POST, GET and PATCH take the four fields (normalised), and null removes each', async () => {
    const w = await makeWorkspace(h.prisma);
    const res = await create(w, { ...BRAND, brandColor: '#FFD400', logoUrl: ' HTTPS://CDN.Acme.test/logo.png ' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ ...BRAND, logoUrl: 'https://cdn.acme.test/logo.png' });
    const id = res.body.data.id as string;
    const got = await request(h.app).get(`/api/v1/status-pages/${id}`).set(bearer(w.tokens.viewer));
    expect(got.body.data).toMatchObject(BRAND);
    const cleared = await patch(w, id, { logoUrl: null, brandColor: '#1d5fc4' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ ...BRAND, logoUrl: null, brandColor: '#1d5fc4' });
    // Without branding, a page's record says null for each.
    const plain = await create(w, {});
    expect(plain.body.data).toMatchObject({ logoUrl: null, faviconUrl: null, brandColor: null, websiteUrl: null });
  });

  it('400 naming each bad field: an http logo or favicon, a colour not #rrggbb, a website not http(s), credentials', async () => {
    const w = await makeWorkspace(h.prisma);
    const bad = {
      logoUrl: 'http://cdn.acme.test/logo.png',
      faviconUrl: 'javascript:alert(1)',
      brandColor: '#fff',
      websiteUrl: 'ftp://acme.test/',
    };
    const res = await create(w, bad);
    expect(res.status).toBe(400);
    expect(issuePaths(res)).toEqual(['brandColor', 'faviconUrl', 'logoUrl', 'websiteUrl']);
    const page = (await create(w, {})).body.data as { id: string };
    for (const [field, value] of [
      ['brandColor', 'red'],
      ['brandColor', '#12345g'],
      ['brandColor', '1d5fc4'],
      ['logoUrl', 'not a url'],
      ['logoUrl', 'https://user:pw@cdn.acme.test/logo.png'],
      ['logoUrl', `https://cdn.acme.test/${'x'.repeat(2100)}`],
      ['websiteUrl', 'data:text/html,hi'],
      ['faviconUrl', 42],
    ] as const) {
      const r = await patch(w, page.id, { [field]: value });
      expect([field, value, r.status, issuePaths(r)]).toEqual([field, value, 400, [field]]);
    }
  });
});

describe('the public page wears it', () => {
  it('the logo (alt: the name) links to the website, the favicon, the colours from brand.css, images allowed over https', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = (await create(w, BRAND)).body.data as { id: string; slug: string };
    const res = await request(h.app).get(`/status/${p.slug}`).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      `<h1><a class="page-name" href="http://www.acme.test/"><img class="logo" src="https://cdn.acme.test/logo.png" alt="Acme"/></a></h1>`,
    );
    expect(res.text).toContain('<link rel="icon" href="https://cdn.acme.test/favicon.ico"/>');
    expect(res.text).toContain(`<link rel="stylesheet" href="/status/${p.slug}/brand.css?v=ffd400"/>`);
    expect(res.text).toContain('>acme.test</a>');
    expect(res.headers['content-security-policy']).toContain("img-src 'self' data: https:;");
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe/);

    const css = await request(h.app).get(`/status/${p.slug}/brand.css?v=ffd400`);
    expect([css.status, css.type]).toEqual([200, 'text/css']);
    // Yellow on white reads at 1.4:1: links and buttons get the shade of it that reads at 4.5:1.
    const { light, dark } = brandPalettes('#ffd400');
    expect(light.accent).not.toBe('#ffd400');
    expect(css.text).toContain(`--link:${light.accent}`);
    expect(css.text).toContain(`--link:${dark.accent}`);

    // No branding: the page's own icon, no brand stylesheet, images from this origin only.
    const plain = (await create(w, {})).body.data as { slug: string };
    const p2 = await request(h.app).get(`/status/${plain.slug}`).set('Accept', 'text/html');
    expect(p2.text).toContain('<h1>Acme</h1>');
    expect(p2.text).not.toContain('brand.css');
    expect(p2.headers['content-security-policy']).toContain("img-src 'self' data:;");
    expect((await request(h.app).get(`/status/${plain.slug}/brand.css`)).status).toBe(404);
  });

  it('a protected page`s password form wears the colours too, and its brand.css needs no password', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = (await create(w, { brandColor: '#6b21a8' })).body.data as { id: string; slug: string };
    await setStatusPagePassword(
      h.prisma,
      { id: p.id, password: 'correct horse battery' },
      {
        publicBaseUrl: h.config.publicBaseUrl,
      },
    );
    const form = await request(h.app).get(`/status/${p.slug}`).set('Accept', 'text/html');
    expect(form.status).toBe(401);
    expect(form.text).toContain(`href="/status/${p.slug}/brand.css?v=6b21a8"`);
    expect((await request(h.app).get(`/status/${p.slug}/brand.css?v=6b21a8`)).status).toBe(200);
  });

  it('a changed brand shows at once (the page cache keys on it)', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = (await create(w, {})).body.data as { id: string; slug: string };
    const get = () => request(h.app).get(`/status/${p.slug}`).set('Accept', 'text/html');
    expect((await get()).text).not.toContain('logo.png');
    await patch(w, p.id, { logoUrl: BRAND.logoUrl });
    expect((await get()).text).toContain('src="https://cdn.acme.test/logo.png" alt="Acme"');
  });
});

describe('branding as code and in the console', () => {
  it('a document sets it; the export carries it; planning the export back changes nothing', async () => {
    const w = await makeWorkspace(h.prisma);
    const slug = uniq('brand-doc');
    const doc = {
      version: 1,
      statusPages: [{ ref: 'public', name: 'Acme', slug, ...BRAND, brandColor: '#FFD400' }],
    };
    const applied = await request(h.app).post('/api/v1/config/apply').set(bearer(w.tokens.admin)).send(doc);
    expect(applied.status).toBe(200);
    const stored = await h.prisma.statusPage.findFirstOrThrow({ where: { workspaceId: w.ws.id, ref: 'public' } });
    expect(stored).toMatchObject(BRAND);
    const exported = await request(h.app).get('/api/v1/config').set(bearer(w.tokens.viewer));
    expect(exported.body.data.statusPages[0]).toMatchObject({ ref: 'public', ...BRAND });
    const back = await request(h.app).post('/api/v1/config/plan').set(bearer(w.tokens.admin)).send(exported.body.data);
    expect(back.status).toBe(200);
    expect(back.body.data.summary).toMatchObject({ create: 0, update: 0, delete: 0 });
    // A document that leaves a field out removes it (null is its default), like any other field.
    const without = await request(h.app)
      .post('/api/v1/config/plan')
      .set(bearer(w.tokens.admin))
      .send({ version: 1, statusPages: [{ ref: 'public', name: 'Acme', slug, ...BRAND, logoUrl: undefined }] });
    expect(without.body.data.changes[0].fields.logoUrl).toEqual({ from: BRAND.logoUrl, to: null });
    // An http logo in a document is the same 400 as over the API, at its path.
    const bad = await request(h.app)
      .post('/api/v1/config/plan')
      .set(bearer(w.tokens.admin))
      .send({ version: 1, statusPages: [{ ref: 'public', name: 'Acme', slug, logoUrl: 'http://x.test/l.png' }] });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad)).toEqual(['statusPages[0].logoUrl']);
  });

  it('the console form saves it; a bad colour comes back beside its field with the typed values kept', async () => {
    const w = await makeWorkspace(h.prisma);
    const p = (await create(w, {})).body.data as { id: string; version: number };
    const { b } = await signedInAs(h, w.ws.id, 'admin');
    const page = `/app/${w.ws.slug}/status-pages/${p.id}`;
    const shown = await b.get(page);
    expect(shown.text).toContain('name="brandColor"');
    const bad = await b.submit(
      page,
      { version: String(p.version), ...BRAND, brandColor: 'yellow' },
      `${page}/branding`,
    );
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/id="f-brandColor-error" class="field-error">/);
    expect(bad.text).toContain('value="yellow"');
    expect(bad.text).toContain(`value="${BRAND.logoUrl}"`);
    const ok = await b.submit(page, { version: String(p.version), ...BRAND, faviconUrl: '' }, `${page}/branding`);
    expect([ok.status, ok.headers.location]).toEqual([303, `${page}?done=branding`]);
    const stored = await h.prisma.statusPage.findUniqueOrThrow({ where: { id: p.id } });
    expect(stored).toMatchObject({ ...BRAND, faviconUrl: null });
    expect((await b.get(page)).text).toContain(`value="${BRAND.websiteUrl}"`);
  });
});
