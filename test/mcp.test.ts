// The MCP server at /mcp (beyond-the-seed §11), played by the official SDK's client: OAuth discovery from the 401,
// dynamic registration, authorization with PKCE through the console's consent page (signed in with the console form),
// the token exchange (all by the SDK's OAuth client provider), then tools/list, a read tool, a write tool allowed
// with `write` and refused with `read`, each tool audited as its REST call; the refresh token rotated by the SDK, its
// reuse revoking the grant, and a revoked token refused to the SDK's client.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  discoverAuthorizationServerMetadata,
  refreshAuthorization,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import request from 'supertest';
import { bearer, createMonitorNamed, type Harness } from './support/harness.js';
import { csrfOf } from './support/console.js';
import {
  connectedApp,
  listeningSuite,
  OAUTH_REDIRECT,
  redirectParams,
  signedInOAuthUser,
  type OAuthSession,
} from './support/oauth.js';

const suite = listeningSuite();
let h: Harness;
let base: string;
beforeAll(() => {
  ({ h, base } = suite);
});

/**
 * The SDK's OAuth client provider as an MCP client implements it, its "browser" being the signed-in console session:
 * redirectToAuthorization opens the consent page, allows, and keeps the code the redirect carries.
 */
class ConsoleProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  code: string | undefined;
  constructor(private readonly s: OAuthSession) {}
  get redirectUrl() {
    return OAUTH_REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test client',
      redirect_uris: [OAUTH_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    expect(url.origin).toBe(base);
    const page = await this.s.browser.get(`${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('SDK test client');
    const hidden = Object.fromEntries(
      [...page.text.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/&amp;/g, '&'),
      ]),
    );
    const res = await this.s.browser.post('/oauth/authorize', {
      ...hidden,
      _csrf: csrfOf(page.text),
      workspace: [this.s.a.ws.id, this.s.b.ws.id],
      primary: this.s.a.ws.id,
      decision: 'allow',
    });
    expect(res.status).toBe(303);
    this.code = redirectParams(res.headers.location as string).code;
  }
}

const mcpUrl = () => new URL(`${base}/mcp`);

async function clientWith(opts: { authProvider?: OAuthClientProvider; token?: string }) {
  const transport = new StreamableHTTPClientTransport(mcpUrl(), {
    ...(opts.authProvider ? { authProvider: opts.authProvider } : {}),
    ...(opts.token ? { requestInit: { headers: { Authorization: `Bearer ${opts.token}` } } } : {}),
  });
  const client = new Client({ name: 'statusvane-test', version: '1.0.0' });
  return { client, transport };
}

async function openIncident(s: OAuthSession, title: string) {
  const res = await request(h.app).post('/api/v1/incidents').set(bearer(s.a.tokens.owner)).send({ title });
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

type ToolAnswer = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text?: string }> };

describe('MCP server', () => {
  it('answers 401 with the protected resource metadata without a token; refuses another origin and GET', async () => {
    const res = await request(h.app)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    const { tokens } = await connectedApp(h, { resource: `${base}/mcp` });
    const other = await request(h.app)
      .post('/mcp')
      .set(bearer(tokens.access_token))
      .set('Origin', 'https://evil.example')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(other.status).toBe(403);
    expect((await request(h.app).get('/mcp').set(bearer(tokens.access_token))).status).toBe(405);
  });

  it('connects through discovery, registration, consent and PKCE; lists monitors and acknowledges with write', async () => {
    const s = await signedInOAuthUser(h);
    await createMonitorNamed(h, s.a, 'Checkout API');
    const incidentId = await openIncident(s, 'Checkout slow');
    const provider = new ConsoleProvider(s);

    const first = await clientWith({ authProvider: provider });
    await expect(first.client.connect(first.transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.code).toBeDefined();
    await first.transport.finishAuth(provider.code!);
    expect(provider.saved?.access_token).toMatch(/^mcp_at_/);
    expect(provider.saved?.scope).toBe('read write');

    const { client, transport } = await clientWith({ authProvider: provider });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'acknowledge_incident',
        'complete_maintenance',
        'get_incident',
        'get_monitor',
        'list_incidents',
        'list_monitors',
        'post_incident_update',
        'resolve_incident',
        'start_maintenance',
        'uptime_report',
      ].sort(),
    );

    const listed = (await client.callTool({ name: 'list_monitors', arguments: {} })) as ToolAnswer;
    expect(listed.isError).toBeFalsy();
    const rest = await request(h.app).get('/api/v1/monitors').set(bearer(s.a.tokens.owner));
    expect(listed.structuredContent).toEqual(rest.body);
    expect(JSON.parse(listed.content[0]!.text!)).toEqual(rest.body);

    const monitorId = (rest.body.data[0] as { id: string }).id;
    const one = (await client.callTool({ name: 'get_monitor', arguments: { id: monitorId } })) as ToolAnswer;
    expect(one.isError).toBeFalsy();
    expect(one.structuredContent).toMatchObject({ data: { id: monitorId, name: 'Checkout API' } });
    expect(one.structuredContent).toHaveProperty('recentResults');
    expect(one.structuredContent).toHaveProperty('uptime');

    // Another granted workspace, named by `workspace` as X-Statusvane-Workspace names it over REST.
    const asViewer = (await client.callTool({
      name: 'list_incidents',
      arguments: { workspace: s.b.ws.slug },
    })) as ToolAnswer;
    expect(asViewer.isError).toBeFalsy();

    const ack = (await client.callTool({ name: 'acknowledge_incident', arguments: { id: incidentId } })) as ToolAnswer;
    expect(ack.isError).toBeFalsy();
    expect(ack.structuredContent).toMatchObject({ data: { id: incidentId, acknowledgedBy: { id: s.user.id } } });
    const events = await request(h.app)
      .get(`/api/v1/audit-events?resourceId=${incidentId}&action=incident.acknowledged`)
      .set(bearer(s.a.tokens.owner));
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].actor).toEqual({
      type: 'user',
      id: s.user.id,
      name: s.user.email,
      clientId: (provider.client as { client_id: string }).client_id,
    });

    const bad = (await client.callTool({ name: 'get_incident', arguments: { id: 'nope' } })) as ToolAnswer;
    expect(bad.isError).toBe(true);
    expect(JSON.parse(bad.content[0]!.text!).error.code).toBe('not_found');
    await client.close();

    // Refresh, as the SDK does it: a new access token and a new refresh token; the new access token works.
    const metadata = await discoverAuthorizationServerMetadata(base);
    const spent = provider.saved!.refresh_token!;
    const refresh = (refreshToken: string) =>
      refreshAuthorization(base, { metadata, clientInformation: provider.client!, refreshToken, resource: mcpUrl() });
    const rotated = await refresh(spent);
    expect(rotated.access_token).toMatch(/^mcp_at_/);
    expect(rotated.refresh_token).toMatch(/^mcp_rt_/);
    expect([rotated.access_token, rotated.refresh_token]).not.toContain(spent);
    const renewed = await clientWith({ token: rotated.access_token });
    await renewed.client.connect(renewed.transport);
    expect((await renewed.client.listTools()).tools.length).toBe(10);
    await renewed.client.close();

    // The spent refresh token presented again: refused, and the whole grant revoked (the rotated pair too).
    await expect(refresh(spent)).rejects.toThrow();
    await expect(refresh(rotated.refresh_token!)).rejects.toThrow();
    const revoked = await clientWith({ token: rotated.access_token });
    await expect(revoked.client.connect(revoked.transport)).rejects.toThrow(/invalid, expired or revoked/);
  });

  it('refuses a write tool with a read token (insufficient_scope), and reads with it', async () => {
    const { s, clientId, tokens } = await connectedApp(h, { resource: `${base}/mcp` });
    expect(tokens.scope).toBe('read');
    const incidentId = await openIncident(s, 'Search down');
    const { client, transport } = await clientWith({ token: tokens.access_token });
    await client.connect(transport);
    const read = (await client.callTool({ name: 'get_incident', arguments: { id: incidentId } })) as ToolAnswer;
    expect(read.structuredContent).toMatchObject({ data: { id: incidentId, status: 'open' } });
    const refused = (await client.callTool({
      name: 'acknowledge_incident',
      arguments: { id: incidentId },
    })) as ToolAnswer;
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain('read scope only');
    const after = await request(h.app).get(`/api/v1/incidents/${incidentId}`).set(bearer(s.a.tokens.owner));
    expect(after.body.data.acknowledgedBy).toBeNull();
    await client.close();

    // Revoked (RFC 7009): the SDK's client cannot connect with it any more.
    const revoke = await request(h.app)
      .post('/oauth/revoke')
      .type('form')
      .send({ token: tokens.access_token, client_id: clientId });
    expect(revoke.status).toBe(200);
    const again = await clientWith({ token: tokens.access_token });
    await expect(again.client.connect(again.transport)).rejects.toThrow(/invalid, expired or revoked/);
  });
});
