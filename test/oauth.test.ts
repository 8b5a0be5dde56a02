// Connected apps (beyond-the-seed §11): the OAuth 2.1 authorization server (metadata, dynamic registration, the
// consent page over the console's session, PKCE S256 codes, rotating refresh tokens with reuse detection,
// revocation, resources and scopes) and the connected apps list, over HTTP against real PostgreSQL and Redis.
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { bearer, makeHarness, makeUser, makeWorkspace, type Harness } from './support/harness.js';
import { csrfOf } from './support/console.js';
import {
  authorizeAs,
  authorizePath,
  connectedApp,
  exchangeCode,
  listeningSuite,
  OAUTH_REDIRECT,
  pkce,
  redirectParams,
  registerClient,
  signedInOAuthUser,
  tokenRequest,
  type OAuthSession as Session,
} from './support/oauth.js';
import { createToken } from '../apps/api/src/admin/admin-commands.js';

const suite = listeningSuite();
let h: Harness;
let base: string;
beforeAll(() => {
  ({ h, base } = suite);
});

const REDIRECT = OAUTH_REDIRECT;
const register = (uris?: string[]) => registerClient(h, uris);
const signedInUser = () => signedInOAuthUser(h);
const authorize = (s: Session, clientId: string, opts: Parameters<typeof authorizeAs>[2]) =>
  authorizeAs(s, clientId, opts);
const exchange = (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
  exchangeCode(h, clientId, code, verifier, extra);
const token = (form: Record<string, string>) => tokenRequest(h, form);
const connected = (opts: { scope?: string; resource?: string } = {}) => connectedApp(h, opts);

const monitors = (accessToken: string) => request(h.app).get('/api/v1/monitors').set(bearer(accessToken));

describe('metadata', () => {
  it('publishes RFC 8414 authorization server metadata and RFC 9728 metadata of both resources', async () => {
    const as = await request(h.app).get('/.well-known/oauth-authorization-server').expect(200);
    expect(as.body).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      scopes_supported: ['read', 'write'],
    });
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource/mcp', `${base}/mcp`],
      ['/.well-known/oauth-protected-resource/api/v1', `${base}/api/v1`],
    ]) {
      const prm = await request(h.app).get(path!).expect(200);
      expect(prm.body).toMatchObject({
        resource,
        authorization_servers: [base],
        scopes_supported: ['read', 'write'],
        bearer_methods_supported: ['header'],
      });
    }
  });
});

describe('POST /oauth/register', () => {
  it('registers a public client, ignoring unknown metadata', async () => {
    const res = await request(h.app)
      .post('/oauth/register')
      .send({
        client_name: 'Claude',
        redirect_uris: [REDIRECT, 'com.example.app:/cb'],
        logo_uri: 'x',
        foo: { bar: 1 },
      });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      client_name: 'Claude',
      redirect_uris: [REDIRECT, 'com.example.app:/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(res.body.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.foo).toBeUndefined();
  });

  it('refuses redirect URIs other than https, loopback http and private-use schemes (RFC 7591 §3.2.2)', async () => {
    for (const uris of [
      ['http://example.com/cb'],
      ['https://example.com/cb#frag'],
      ['javascript:alert(1)'],
      ['not a url'],
      [],
    ]) {
      const res = await request(h.app).post('/oauth/register').send({ redirect_uris: uris });
      expect([uris, res.status, res.body.error]).toEqual([uris, 400, 'invalid_redirect_uri']);
      expect(typeof res.body.error_description).toBe('string');
    }
    const bad = await request(h.app)
      .post('/oauth/register')
      .send({ redirect_uris: [REDIRECT], client_name: 5 });
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_client_metadata']);
    const notJson = await request(h.app).post('/oauth/register').type('json').send('{"redirect_uris": [');
    expect([notJson.status, notJson.body.error]).toEqual([400, 'invalid_client_metadata']);
  });
});

describe('limits', () => {
  it('answers 429 temporarily_unavailable with Retry-After past the per-address limits; another address is not held', async () => {
    const limited = makeHarness({ TRUST_PROXY: 'loopback', OAUTH_REGISTER_PER_HOUR: '3', OAUTH_TOKEN_PER_MINUTE: '2' });
    try {
      await limited.redisReady();
      // Addresses of the documentation range, new on every run (the limits' counts live in Redis for an hour).
      const address = () => `2001:db8::${randomInt(0x10000).toString(16)}:${randomInt(0x10000).toString(16)}`;
      const [one, two] = [address(), address()];
      const registerFrom = (ip: string) =>
        request(limited.app)
          .post('/oauth/register')
          .set('X-Forwarded-For', ip)
          .send({ client_name: 'Limited', redirect_uris: [REDIRECT] });
      for (let i = 0; i < 3; i++) expect((await registerFrom(one)).status).toBe(201);
      const refused = await registerFrom(one);
      expect([refused.status, refused.body.error, refused.headers['cache-control']]).toEqual([
        429,
        'temporarily_unavailable',
        'no-store',
      ]);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await registerFrom(two)).status).toBe(201);

      const tokenFrom = (ip: string) =>
        request(limited.app)
          .post('/oauth/token')
          .set('X-Forwarded-For', ip)
          .type('form')
          .send({ grant_type: 'refresh_token', refresh_token: 'mcp_rt_unknown', client_id: randomUUID() });
      for (let i = 0; i < 2; i++) expect((await tokenFrom(one)).status).toBe(400);
      expect((await tokenFrom(one)).status).toBe(429);
      expect((await tokenFrom(two)).status).toBe(400);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /oauth/authorize', () => {
  it('shows an error page, never a redirect, for an unknown client or a redirect URI one character off', async () => {
    const s = await signedInUser();
    const clientId = await register();
    const { challenge } = pkce();
    for (const params of [
      { client_id: '00000000-0000-4000-8000-000000000000', redirect_uri: REDIRECT },
      { client_id: 'nonsense', redirect_uri: REDIRECT },
      { client_id: clientId, redirect_uri: `${REDIRECT}x` },
      { client_id: clientId, redirect_uri: 'http://127.0.0.2:43123/callback' },
      { client_id: clientId, redirect_uri: 'https://evil.example/callback' },
    ]) {
      const res = await s.browser.get(authorizePath({ ...params, code_challenge: challenge }));
      expect([params, res.status, res.headers.location]).toEqual([params, 400, undefined]);
      expect(res.text).toContain('This app cannot connect');
    }
  });

  it('sends errors of the rest back to the client: plain PKCE, no PKCE, bad resource, bad scope', async () => {
    const s = await signedInUser();
    const clientId = await register();
    const { challenge } = pkce();
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ code_challenge_method: 'plain', code_challenge: challenge }, 'invalid_request'],
      [{ code_challenge_method: undefined, code_challenge: challenge }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge: challenge, resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
      [{ code_challenge: challenge, scope: 'admin' }, 'invalid_scope'],
      [{ code_challenge: challenge, response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [params, error] of cases) {
      const res = await s.browser.get(
        authorizePath({ client_id: clientId, redirect_uri: REDIRECT, state: 'z', ...params }),
      );
      expect([params, res.status]).toEqual([params, 303]);
      const back = redirectParams(res.headers.location as string);
      expect([params, back.error, back.state]).toEqual([params, error, 'z']);
      expect(res.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:43123\/callback\?/);
    }
  });

  it('asks a visitor to sign in first, then comes back to the request', async () => {
    const clientId = await register();
    const path = authorizePath({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
    const res = await request(h.app).get(path);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/app/login?next=${encodeURIComponent(path)}`);
  });

  it('shows the app as unverified with its redirect host, the scopes and the workspaces; a loopback port may differ', async () => {
    const s = await signedInUser();
    const clientId = await register();
    const res = await s.browser.get(
      authorizePath({
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:5999/callback',
        code_challenge: pkce().challenge,
        scope: 'read write',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain('Test assistant');
    expect(res.text).toContain('unverified');
    expect(res.text).toContain('127.0.0.1:5999');
    expect(res.text).toContain('scope: write');
    expect(res.text).toContain(s.a.ws.slug);
    expect(res.text).toContain(s.b.ws.slug);
    expect(res.headers['content-security-policy']).toContain("form-action 'self' http://127.0.0.1:5999");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('denies: access_denied back to the client; a forged consent (no CSRF token) writes nothing', async () => {
    const s = await signedInUser();
    const clientId = await register();
    const path = authorizePath({
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: pkce().challenge,
      state: 'q',
    });
    const page = await s.browser.get(path);
    const hidden = Object.fromEntries(
      [...page.text.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    delete hidden._csrf;
    const forged = await s.browser.post('/oauth/authorize', {
      ...hidden,
      workspace: s.a.ws.id,
      primary: s.a.ws.id,
      decision: 'allow',
    });
    expect(forged.status).toBe(403);
    const denied = await s.browser.post('/oauth/authorize', { ...hidden, _csrf: csrfOf(page.text), decision: 'deny' });
    expect(denied.status).toBe(303);
    expect(redirectParams(denied.headers.location as string)).toMatchObject({ error: 'access_denied', state: 'q' });
    expect(await h.prisma.oAuthConnection.count({ where: { clientId } })).toBe(0);
  });

  it('remembers consent: the same scope goes straight back; a new scope or a new workspace asks again', async () => {
    const s = await signedInUser();
    const clientId = await register();
    await authorize(s, clientId, { challenge: pkce().challenge });
    const path = (scope: string) =>
      authorizePath({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, scope });
    expect((await s.browser.get(path('read'))).status).toBe(303);
    expect((await s.browser.get(path('read write'))).status).toBe(200);
    await authorize(s, clientId, { challenge: pkce().challenge, scope: 'write' });
    expect((await s.browser.get(path('read write'))).status).toBe(303);
    const c = await makeWorkspace(h.prisma);
    await h.prisma.membership.create({ data: { userId: s.user.id, workspaceId: c.ws.id, role: 'member' } });
    expect((await s.browser.get(path('read'))).status).toBe(200);
  });
});

describe('POST /oauth/token', () => {
  it('exchanges a code for an mcp_at_ access token (1 h, no-store) that works at /api/v1, scope read by default', async () => {
    const { s, tokens } = await connected();
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });
    expect(tokens.access_token).toMatch(/^mcp_at_[A-Za-z0-9_-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^mcp_rt_[A-Za-z0-9_-]{43}$/);
    const res = await monitors(tokens.access_token);
    expect(res.status).toBe(200);
    // Stored hashed: neither secret is in the database.
    const hashes = await h.prisma.apiToken.findMany({ where: { userId: s.user.id }, select: { tokenHash: true } });
    expect(hashes.map((t) => t.tokenHash)).toEqual([createHash('sha256').update(tokens.access_token).digest('hex')]);
  });

  it('answers RFC 6749 §5.2 errors with no-store: wrong verifier, redirect URI off by one, expired code', async () => {
    const s = await signedInUser();
    const clientId = await register();
    const expectGrantError = async (res: request.Response, error = 'invalid_grant') => {
      expect([res.status, res.body.error]).toEqual([400, error]);
      expect(res.headers['cache-control']).toBe('no-store');
    };
    const p1 = pkce();
    const c1 = await authorize(s, clientId, { challenge: p1.challenge });
    await expectGrantError(await exchange(clientId, c1, pkce().verifier));
    const p2 = pkce();
    const c2 = await authorize(s, clientId, { challenge: p2.challenge });
    await expectGrantError(await exchange(clientId, c2, p2.verifier, { redirect_uri: `${REDIRECT}/` }));
    const p3 = pkce();
    const c3 = await authorize(s, clientId, { challenge: p3.challenge });
    await h.prisma.oAuthCode.updateMany({
      where: { codeHash: createHash('sha256').update(c3).digest('hex') },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    await expectGrantError(await exchange(clientId, c3, p3.verifier));
    const p4 = pkce();
    const c4 = await authorize(s, clientId, { challenge: p4.challenge });
    const other = await register();
    await expectGrantError(await exchange(other, c4, p4.verifier));
    await expectGrantError(await token({ grant_type: 'password', client_id: clientId }), 'unsupported_grant_type');
    await expectGrantError(await token({ grant_type: 'authorization_code', client_id: clientId }), 'invalid_request');
    const json = await request(h.app).post('/oauth/token').send({ grant_type: 'authorization_code' });
    await expectGrantError(json, 'invalid_request');
  });

  it("a code used twice is refused and revokes the grant: the first exchange's tokens stop working", async () => {
    const s = await signedInUser();
    const clientId = await register();
    const { verifier, challenge } = pkce();
    const code = await authorize(s, clientId, { challenge });
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    expect((await monitors(first.body.access_token)).status).toBe(200);
    const again = await exchange(clientId, code, verifier);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
    expect((await monitors(first.body.access_token)).status).toBe(401);
    const refresh = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: first.body.refresh_token,
    });
    expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('rotates refresh tokens; presenting a spent one revokes the grant', async () => {
    const { clientId, tokens } = await connected();
    const r1 = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token });
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await monitors(r1.body.access_token)).status).toBe(200);
    const reuse = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect((await monitors(r1.body.access_token)).status).toBe(401);
    expect((await monitors(tokens.access_token)).status).toBe(401);
    const r2 = await token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: r1.body.refresh_token });
    expect([r2.status, r2.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('binds tokens to their resource: an /mcp token at /api/v1 is 401 invalid_token, and the reverse', async () => {
    const { tokens } = await connected({ resource: `${base}/mcp` });
    const res = await monitors(tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    const api = await connected({ resource: `${base}/api/v1` });
    const mcp = await request(h.app)
      .post('/mcp')
      .set(bearer(api.tokens.access_token))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers['www-authenticate']).toContain('error="invalid_token"');
    const org = await makeWorkspace(h.prisma);
    const orgAtMcp = await request(h.app).post('/mcp').set(bearer(org.tokens.owner)).send({});
    expect(orgAtMcp.status).toBe(401);
  });

  it('a read token on a write is 403 insufficient_scope; a write token writes as the user, audited with its client', async () => {
    const read = await connected();
    const create = (t: string) =>
      request(h.app).post('/api/v1/incidents').set(bearer(t)).send({ title: 'Payments slow' });
    const refused = await create(read.tokens.access_token);
    expect(refused.status).toBe(403);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer error="insufficient_scope", scope="write"/);
    const write = await connected({ scope: 'read write' });
    expect(write.tokens.scope).toBe('read write');
    const made = await create(write.tokens.access_token);
    expect(made.status).toBe(201);
    const events = await request(h.app)
      .get(`/api/v1/audit-events?resourceId=${made.body.data.id}`)
      .set(bearer(write.s.a.tokens.owner));
    expect(events.body.data[0].actor).toEqual({
      type: 'user',
      id: write.s.user.id,
      name: write.s.user.email,
      clientId: write.clientId,
    });
  });
});

describe('POST /oauth/revoke', () => {
  it('revokes an access token alone, or with a refresh token the whole grant; unknown tokens are 200', async () => {
    const { clientId, tokens } = await connected();
    const revoke = (t: string, client = clientId) =>
      request(h.app).post('/oauth/revoke').type('form').send({ token: t, client_id: client });
    expect((await revoke('mcp_at_unknown')).status).toBe(200);
    // Another client's revocation changes nothing.
    expect((await revoke(tokens.access_token, await register())).status).toBe(200);
    expect((await monitors(tokens.access_token)).status).toBe(200);
    expect((await revoke(tokens.access_token)).status).toBe(200);
    expect((await monitors(tokens.access_token)).status).toBe(401);
    const fresh = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: tokens.refresh_token,
    });
    expect(fresh.status).toBe(200);
    expect((await revoke(fresh.body.refresh_token)).status).toBe(200);
    expect((await monitors(fresh.body.access_token)).status).toBe(401);
    const bad = await request(h.app).post('/oauth/revoke').type('form').send({ client_id: clientId });
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('connected apps', () => {
  it('lists and revokes over /me/connected-apps (personal token); an OAuth token may list, not revoke', async () => {
    const { s, clientId, tokens } = await connected();
    const personal = (await createToken(h.prisma, { kind: 'personal', email: s.user.email })).token;
    const list = await request(h.app).get('/api/v1/me/connected-apps').set(bearer(personal));
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        clientId,
        name: 'Test assistant',
        redirectHosts: ['127.0.0.1:43123'],
        scope: 'read',
        workspaces: [{ id: s.a.ws.id, slug: s.a.ws.slug, name: s.a.ws.name }],
        primaryWorkspaceId: s.a.ws.id,
      }),
    ]);
    const id = list.body.data[0].id as string;
    expect((await request(h.app).get('/api/v1/me/connected-apps').set(bearer(tokens.access_token))).status).toBe(200);
    const byOauth = await request(h.app).delete(`/api/v1/me/connected-apps/${id}`).set(bearer(tokens.access_token));
    expect(byOauth.status).toBe(403);
    const stranger = await makeUser(h.prisma, []);
    const theirs = (await createToken(h.prisma, { kind: 'personal', email: stranger.email })).token;
    expect((await request(h.app).delete(`/api/v1/me/connected-apps/${id}`).set(bearer(theirs))).status).toBe(404);
    expect((await request(h.app).delete(`/api/v1/me/connected-apps/${id}`).set(bearer(personal))).status).toBe(204);
    expect((await monitors(tokens.access_token)).status).toBe(401);
    expect((await request(h.app).get('/api/v1/me/connected-apps').set(bearer(personal))).body.data).toEqual([]);
  });

  it('the console lists them under the account and disconnects one', async () => {
    const { s, tokens } = await connected();
    const page = await s.browser.get('/app/account/connected-apps');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Test assistant');
    expect(page.text).toContain('(unverified)');
    const action = /action="(\/app\/account\/connected-apps\/[0-9a-f-]+\/revoke)"/.exec(page.text)![1]!;
    const res = await s.browser.submit('/app/account/connected-apps', {}, action);
    expect(res.status).toBe(303);
    expect((await monitors(tokens.access_token)).status).toBe(401);
  });
});
