// customDomain: a request whose Host is a page's custom domain gets that page at `/`, with its feeds, badges,
// JSON, subscriptions and login beside it; the rules of PATCH /status-pages/{id} that sets the domain.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { setStatusPagePassword } from '../apps/api/src/admin/status-page-commands.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, uniq, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

type Role = 'owner' | 'admin' | 'member' | 'viewer';
type Scope = { tokens: Record<Role, string>; statusPageId: string; role?: Role };
/** PATCH /status-pages/{id} with `body` (its `customDomain`), as a token of the scope's workspace (admin by default). */
const setCustomDomain = (scope: Scope, body: unknown) =>
  request(h.app)
    .patch(`/api/v1/status-pages/${scope.statusPageId}`)
    .set(bearer(scope.tokens[scope.role ?? 'admin']))
    .send(body as object);

async function pageWithDomain() {
  const w = await makeWorkspace(h.prisma);
  const mon = await request(h.app)
    .post('/api/v1/monitors')
    .set(bearer(w.tokens.owner))
    .send(makeMonitorInput({ name: 'API' }));
  expect(mon.status).toBe(201);
  const created = await request(h.app)
    .post('/api/v1/status-pages')
    .set(bearer(w.tokens.owner))
    .send({ vanityUrl: uniq('dom'), name: 'Acme Cloud' });
  const page = created.body.data as { id: string; slug: string };
  const domain = `${uniq('status')}.acme.test`;
  const scope: Scope = { tokens: w.tokens, statusPageId: page.id };
  const set = await setCustomDomain(scope, { customDomain: ` ${domain.toUpperCase()} ` });
  expect([set.status, set.body.data]).toEqual([200, expect.objectContaining({ id: page.id, customDomain: domain })]);
  return { w, page, domain, scope, componentId: mon.body.data.componentId as string };
}

describe('serving a page on its custom domain', () => {
  it('serves the page at / and everything beside it, with links relative to the root', async () => {
    const { domain, componentId } = await pageWithDomain();
    const home = await request(h.app).get('/').set('Host', domain);
    expect([home.status, home.type]).toEqual([200, 'text/html']);
    expect(home.text).toContain('<h1>Acme Cloud</h1>');
    expect(home.text).toContain('<form method="post" action="/subscribe">');
    expect(home.text).toContain('href="/feed.atom"');
    const json = await request(h.app).get('/').set('Host', `${domain}:8443`).set('Accept', 'application/json');
    expect(json.body.data.page.name).toBe('Acme Cloud');
    for (const [path, type] of [
      ['/feed.atom', 'application/atom+xml'],
      ['/feed.rss', 'application/rss+xml'],
      ['/badge.svg', 'image/svg+xml'],
      [`/components/${componentId}/badge.svg`, 'image/svg+xml'],
      ['/api/v2/summary.json', 'application/json'],
      ['/api/v2/status.json', 'application/json'],
    ]) {
      const res = await request(h.app).get(path!).set('Host', domain);
      expect([path, res.status, res.type]).toEqual([path, 200, type]);
    }
    const sub = await request(h.app)
      .post('/subscribe')
      .set('Host', domain)
      .send({ email: `${uniq('r')}@example.test` });
    expect(sub.status).toBe(202);
  });

  it('other hosts and other paths are untouched: unknown host 404, the API still answers on the custom domain', async () => {
    const { domain } = await pageWithDomain();
    expect((await request(h.app).get('/').set('Host', 'unknown.acme.test')).status).toBe(404);
    expect((await request(h.app).get('/feed.atom').set('Host', 'localhost')).status).toBe(404);
    expect((await request(h.app).get('/nothing-here').set('Host', domain)).status).toBe(404);
    expect((await request(h.app).get('/api/v1/monitors').set('Host', domain)).status).toBe(401);
  });

  it('a page that is no longer public is not served on its domain', async () => {
    const { domain, page } = await pageWithDomain();
    await h.prisma.statusPage.update({ where: { id: page.id }, data: { isPublic: false } });
    expect((await request(h.app).get('/').set('Host', domain)).status).toBe(404);
  });

  it('a password-protected page: the form posts to /login, the cookie covers the whole domain', async () => {
    const { domain, page } = await pageWithDomain();
    await setStatusPagePassword(
      h.prisma,
      { id: page.id, password: 'members only!' },
      { publicBaseUrl: h.config.publicBaseUrl },
    );
    const form = await request(h.app).get('/').set('Host', domain);
    expect(form.status).toBe(401);
    expect(form.text).toContain('<form method="post" action="/login">');
    expect((await request(h.app).get('/api/v2/summary.json').set('Host', domain)).status).toBe(401);
    const login = await request(h.app)
      .post('/login')
      .set('Host', domain)
      .type('form')
      .send({ password: 'members only!' });
    expect([login.status, login.headers.location]).toEqual([303, '/']);
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0]!;
    expect(cookie).toMatch(/; Path=\//);
    const value = cookie.split(';')[0]!;
    expect((await request(h.app).get('/').set('Host', domain).set('Cookie', value)).status).toBe(200);
    expect((await request(h.app).get('/feed.atom').set('Host', domain).set('Cookie', value)).status).toBe(200);
  });
});

describe('customDomain of PATCH /status-pages/{id}', () => {
  it('400 for what is not a host name or is our own; 409 when taken; 404 for a foreign page; null clears', async () => {
    const a = await pageWithDomain();
    const b = await pageWithDomain();
    const paths = (res: request.Response) => res.body.error?.details?.issues?.map((i: { path: string }) => i.path);
    for (const bad of [
      'https://status.acme.test',
      'status.acme.test:443',
      'status.acme.test/',
      '127.0.0.1',
      'localhost',
      'a..b.test',
      '',
      5,
      new URL(h.config.publicBaseUrl).hostname,
    ]) {
      const res = await setCustomDomain(a.scope, { customDomain: bad });
      expect([bad, res.status, paths(res)]).toEqual([bad, 400, ['customDomain']]);
    }
    const other = await setCustomDomain(a.scope, { customDomain: 'x.test', other: 1 });
    expect([other.status, paths(other)]).toEqual([400, ['other']]);
    expect((await setCustomDomain({ ...a.scope, role: 'member' }, { customDomain: 'x.test' })).status).toBe(403);
    const taken = await setCustomDomain(a.scope, { customDomain: b.domain });
    expect([taken.status, taken.body.error.details]).toEqual([409, { customDomain: b.domain, reason: 'taken' }]);
    const foreign = await setCustomDomain({ ...a.scope, statusPageId: b.page.id }, { customDomain: 'mine.acme.test' });
    expect(foreign.status).toBe(404);
    expect((await setCustomDomain({ ...a.scope, statusPageId: 'not-a-uuid' }, { customDomain: null })).status).toBe(
      404,
    );
    const cleared = await setCustomDomain(a.scope, { customDomain: null });
    expect([cleared.status, cleared.body.data.customDomain]).toEqual([200, null]);
    expect((await request(h.app).get('/').set('Host', a.domain)).status).toBe(404);
  });
});
