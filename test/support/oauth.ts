// What the OAuth and MCP suites share: a signed-in user, a registered client, the consent page driven as a browser
// would, and the token endpoint.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from '@jest/globals';
import request from 'supertest';
import { consoleBrowser, csrfOf, setUserPassword, TEST_PASSWORD } from './console.js';
import { makeHarness, makeUser, makeWorkspace, type Harness } from './harness.js';

/** A suite's listening harness (below), opened before its tests and closed after: read `h` and `base` in tests. */
export function listeningSuite() {
  const suite = {} as { h: Harness; base: string };
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const served = await listeningHarness();
    Object.assign(suite, { h: served.h, base: served.base });
    close = served.close;
  });
  afterAll(() => close());
  return suite;
}

/**
 * The app listening on 127.0.0.1 with PUBLIC_BASE_URL its own address (the issuer and the resources are named by
 * it, and a real MCP client checks them): the server listens first, then the app is built for that address.
 */
async function listeningHarness() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // These suites register many clients and ask for many tokens from 127.0.0.1: the per-address limits have a test
  // of their own (oauth.test.ts, "limits").
  const h = makeHarness({
    PUBLIC_BASE_URL: base,
    OAUTH_REGISTER_PER_HOUR: '1000000',
    OAUTH_TOKEN_PER_MINUTE: '1000000',
  });
  server.on('request', h.app);
  return {
    h,
    base,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await h.close();
    },
  };
}

/** The redirect URI the tests' clients register (a loopback one: its port may differ at /oauth/authorize). */
export const OAUTH_REDIRECT = 'http://127.0.0.1:43123/callback';
const REDIRECT = OAUTH_REDIRECT;

/** A PKCE pair (RFC 7636 S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a client named `Test assistant` (RFC 7591): its client_id. */
export async function registerClient(h: Harness, redirectUris: string[] = [REDIRECT]) {
  const res = await request(h.app)
    .post('/oauth/register')
    .send({ client_name: 'Test assistant', redirect_uris: redirectUris });
  expect(res.status).toBe(201);
  return res.body.client_id as string;
}

/** A user who is owner of one workspace and viewer of another, signed in to the console. */
export async function signedInOAuthUser(h: Harness) {
  const a = await makeWorkspace(h.prisma);
  const b = await makeWorkspace(h.prisma);
  const user = await makeUser(h.prisma, [
    { workspace: a.ws.slug, role: 'owner' },
    { workspace: b.ws.slug, role: 'viewer' },
  ]);
  await setUserPassword(h.prisma, user.email, TEST_PASSWORD);
  const browser = consoleBrowser(h);
  await browser.signIn(user.email, TEST_PASSWORD);
  return { a, b, user, browser };
}
export type OAuthSession = Awaited<ReturnType<typeof signedInOAuthUser>>;

export function authorizePath(params: Record<string, string | undefined>) {
  const q = new URLSearchParams(
    Object.entries({ response_type: 'code', code_challenge_method: 'S256', ...params }).filter(
      (e): e is [string, string] => e[1] !== undefined,
    ),
  );
  return `/oauth/authorize?${q}`;
}

/** The query of a redirect back to the client. */
export const redirectParams = (location: string) => Object.fromEntries(new URL(location).searchParams);

/**
 * Runs the authorization request as the signed-in browser: the consent page when one is shown (allowing the
 * workspaces ticked, `primary` first), else the direct redirect. The code.
 */
export async function authorizeAs(
  s: OAuthSession,
  clientId: string,
  opts: { scope?: string; resource?: string; redirectUri?: string; challenge: string; workspaces?: string[] },
) {
  const path = authorizePath({
    client_id: clientId,
    redirect_uri: opts.redirectUri ?? REDIRECT,
    code_challenge: opts.challenge,
    scope: opts.scope,
    resource: opts.resource,
    state: 'st-1',
  });
  let res = await s.browser.get(path);
  if (res.status === 200) {
    const hidden = Object.fromEntries(
      [...res.text.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/&amp;/g, '&'),
      ]),
    );
    const workspaces = opts.workspaces ?? [s.a.ws.id];
    res = await s.browser.post('/oauth/authorize', {
      ...hidden,
      _csrf: csrfOf(res.text),
      workspace: workspaces,
      primary: workspaces[0]!,
      decision: 'allow',
    });
  }
  expect(res.status).toBe(303);
  const params = redirectParams(res.headers.location as string);
  expect(params.state).toBe('st-1');
  expect(params.iss).toBe(s.browser.origin);
  expect(params.code).toBeDefined();
  return params.code!;
}

/** POST /oauth/token, form-encoded. */
export function tokenRequest(h: Harness, form: Record<string, string>) {
  return request(h.app).post('/oauth/token').type('form').send(form);
}

/** The authorization_code grant for `code`. */
export async function exchangeCode(
  h: Harness,
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) {
  return tokenRequest(h, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    ...extra,
  });
}

/** Signed in, registered, authorized and exchanged: the token answer. */
export async function connectedApp(h: Harness, opts: { scope?: string; resource?: string } = {}) {
  const s = await signedInOAuthUser(h);
  const clientId = await registerClient(h);
  const { verifier, challenge } = pkce();
  const code = await authorizeAs(s, clientId, { ...opts, challenge });
  const res = await exchangeCode(h, clientId, code, verifier, opts.resource ? { resource: opts.resource } : {});
  expect(res.status).toBe(200);
  return { s, clientId, tokens: res.body as { access_token: string; refresh_token: string; scope: string } };
}
