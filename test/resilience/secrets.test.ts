/**
 * Secrets. A run creates tokens of every kind (admin services), monitors with secret headers and bodies (and updates
 * them), a password-protected status page, an escalation policy whose Slack and webhook URLs are credentials, and
 * drives checks through a real worker against a local target (which, as the intended recipient, does receive the
 * headers); the failing monitor opens an incident whose ladder pages that target through a real escalation worker
 * (a signed webhook and a Slack message to the secret URLs). Afterwards none of the secret values (nor the
 * deployment's ENCRYPTION_KEY, nor the DATABASE_URL password) may appear in: a dump of every table, a dump of the
 * run's Redis keys, the API's and the worker's logs (winston at its most verbose level, the escalation engine's
 * lines included), or any API response of the run. Invalid requests that carry secrets are part of the run, since
 * error messages are where values tend to leak.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createLogger, createSsrfGuard, hashToken } from '@statusvane/shared';
import { createApp } from '../../apps/api/src/app.js';
import { addMember, createToken, createUser } from '../../apps/api/src/admin/admin-commands.js';
import { createPolicy } from '../../apps/api/src/admin/policy-commands.js';
import { setStatusPagePassword } from '../../apps/api/src/admin/status-page-commands.js';
import { createDeliverer, workspaceSigningSecrets, type Deliverer } from '@statusvane/shared';
import { dumpDatabase } from '../support/db-dump.js';
import { makeHarness, makeWorkspace, uniq, type Harness } from '../support/harness.js';
import { startTarget, type Target } from '../support/targets.js';
import { startWorker } from '../support/worker-harness.js';
import { deleteKeys, until } from './support/processes.js';

const secret = (label: string) => `${label}-${randomUUID().replace(/-/g, '')}`;

let h: Harness;
let app: ReturnType<typeof createApp>;
let target: Target;
let w: ReturnType<typeof startWorker>;
let deliverer: Deliverer;
/** The deployment's encryption key as configured (ENCRYPTION_KEY), fresh for the run so its text is known. */
const encryptionKey = randomBytes(32).toString('base64');
const logLines: string[] = [];
const responses: string[] = [];

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.1/32', ENCRYPTION_KEY: encryptionKey });
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => logLines.push(chunk.toString('utf8')));
  const logger = (service: string) => createLogger({ level: 'silly', json: true, service, stream });
  const guard = createSsrfGuard({ allowedCidrs: '127.0.0.1/32' });
  app = createApp({ ...h.deps, guard, logger: logger('api') });
  // The worker as apps/worker/src/main.ts runs it (its escalation worker too: an incident opened by a check starts
  // its ladder), paging through a deliverer that retries quickly.
  deliverer = createDeliverer({
    guard,
    signingSecret: workspaceSigningSecrets(h.prisma, h.config.encryption.current.key),
    smtp: null,
    retry: { attempts: 2, backoffMs: 50 },
  });
  w = startWorker(h, 'local', { logger: logger('worker'), deliverer });
  target = await startTarget();
});

afterAll(async () => {
  await w?.close();
  deliverer?.close();
  await target?.close();
  await h?.close();
  await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}:*`]).catch(() => undefined);
});

/** Every request of the run goes through here, so every answer (status line, headers, body) is kept. */
async function api(
  method: 'get' | 'post' | 'patch' | 'delete' | 'head',
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; form?: string } = {},
) {
  let req = request(app)[method](path);
  if (opts.token) req = req.set('Authorization', `Bearer ${opts.token}`);
  for (const [k, v] of Object.entries(opts.headers ?? {})) req = req.set(k, v);
  if (opts.form !== undefined) req = req.type('form').send(opts.form);
  else if (opts.body !== undefined) req = req.send(opts.body as object);
  const res = await req;
  responses.push(`${res.status} ${JSON.stringify(res.headers)} ${res.text ?? ''}`);
  return res;
}

/** Redis as a dump would show it: every key of the run with its value, whatever the type. */
async function dumpRedis(prefix: string): Promise<string> {
  const c = new Redis(h.config.redis.url!);
  try {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await c.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const type = await c.type(key);
        const value =
          type === 'string'
            ? await c.get(key)
            : type === 'hash'
              ? JSON.stringify(await c.hgetall(key))
              : type === 'list'
                ? JSON.stringify(await c.lrange(key, '0', '-1'))
                : type === 'set'
                  ? JSON.stringify(await c.smembers(key))
                  : type === 'zset'
                    ? JSON.stringify(await c.zrange(key, '0', '-1'))
                    : type === 'stream'
                      ? JSON.stringify(await c.xrange(key, '-', '+'))
                      : type;
        out.push(`${key} ${value}`);
      }
    } while (cursor !== '0');
    return out.join('\n');
  } finally {
    c.disconnect();
  }
}

describe('secrets stay secret', () => {
  it('no secret value in the database dump, the Redis keys, the logs or any API response', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const user = await createUser(h.prisma, { email: `${uniq('sec')}@example.test` });
    await addMember(h.prisma, { workspace: ws.id, email: user.email, role: 'owner' });
    const personal = (await createToken(h.prisma, { kind: 'personal', email: user.email })).token;
    const oauth = (await createToken(h.prisma, { kind: 'oauth', email: user.email, workspaces: ws.id })).token;
    const revoked = (await createToken(h.prisma, { kind: 'org', workspace: ws.id, role: 'owner' })).token;

    const s = {
      headerKey: secret('hdr-key'),
      headerAuth: secret('hdr-auth'),
      body: secret('body'),
      headerKey2: secret('hdr-key2'),
      body2: secret('body2'),
      invalidHeaderValue: secret('bad-hdr'),
      urlPassword: secret('url-pass'),
      queryValue: secret('query'),
      pagePassword: secret('page-pass'),
      slackPath: secret('slack'),
      webhookPath: secret('hook'),
      webhookQuery: secret('hook-query'),
    };

    // An escalation policy whose targets are credentials; the local target is their receiver. It must exist
    // before the failing monitor opens its incident: the policy is pinned when the incident opens.
    const policyJson = JSON.stringify({
      name: 'on call',
      steps: [
        {
          delayMinutes: 0,
          targets: [
            { channel: 'slack', target: target.url(`/services/${s.slackPath}`) },
            { channel: 'webhook', target: target.url(`/hooks/${s.webhookPath}?token=${s.webhookQuery}`) },
          ],
        },
      ],
    });
    await createPolicy(
      h.prisma,
      { workspace: ws.id, json: policyJson, default: true },
      { guard: createSsrfGuard({ allowedCidrs: '127.0.0.1/32' }), encryption: h.config.encryption.current },
    );

    // Monitors with secret headers and bodies, by each kind of token; one of them fails and opens an incident.
    const created = await api('post', '/api/v1/monitors', {
      token: tokens.owner,
      body: {
        name: 'secret http',
        target: target.url('/echo'),
        method: 'POST',
        headers: { 'X-Api-Key': s.headerKey, Authorization: `Bearer ${s.headerAuth}` },
        body: s.body,
      },
    });
    expect(created.status).toBe(201);
    const failing = await api('post', '/api/v1/monitors', {
      token: personal,
      body: {
        name: 'secret failing',
        target: target.url('/status/500'),
        headers: { 'X-Api-Key': s.headerKey },
        openThreshold: 1,
      },
    });
    expect(failing.status).toBe(201);
    const viaOauth = await api('post', '/api/v1/monitors', {
      token: oauth,
      headers: { 'Idempotency-Key': randomUUID() },
      body: { name: 'oauth', target: target.url('/ok'), headers: { 'X-Api-Key': s.headerKey } },
    });
    expect(viaOauth.status).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data.headerNames.sort()).toEqual(['Authorization', 'X-Api-Key']);
    expect(created.body.data.hasBody).toBe(true);

    // Updates replace them.
    expect(
      (
        await api('patch', `/api/v1/monitors/${id}`, {
          token: tokens.admin,
          body: { headers: { 'X-Api-Key': s.headerKey2 }, body: s.body2 },
        })
      ).status,
    ).toBe(200);

    // Requests that fail while carrying secrets: the errors must not echo them.
    for (const [body, status] of [
      [{ name: 'bad', target: target.url('/'), headers: { 'X-Ok': `${s.invalidHeaderValue}\r\nInjected: 1` } }, 400],
      [
        {
          name: 'bad',
          target: target.url('/'),
          headers: { 'Bad Name': s.invalidHeaderValue, Host: s.invalidHeaderValue },
        },
        400,
      ],
      [{ name: 'bad', target: target.url('/'), method: 'GET', body: s.invalidHeaderValue }, 400],
      [{ name: 'bad', target: `https://user:${s.urlPassword}@93.184.215.14/` }, 400],
      [{ name: 'bad', target: target.url('/'), headers: s.invalidHeaderValue }, 400],
      [{ name: 'bad', target: target.url('/'), body: { nested: s.invalidHeaderValue } }, 400],
    ] as const) {
      expect((await api('post', '/api/v1/monitors', { token: tokens.owner, body })).status).toBe(status);
    }
    expect(
      (
        await api('patch', `/api/v1/monitors/${id}`, {
          token: tokens.viewer,
          body: { headers: { 'X-Api-Key': s.invalidHeaderValue } },
        })
      ).status,
    ).toBe(403);
    expect((await api('get', `/api/v1/monitors?apikey=${s.queryValue}`, { token: tokens.owner })).status).toBe(400);
    await h.prisma.apiToken.update({ where: { tokenHash: hashToken(revoked) }, data: { revokedAt: new Date() } });
    for (const token of [revoked, `${tokens.owner}x`, tokens.owner.slice(0, -2), `svu_${tokens.owner.slice(3)}`]) {
      expect((await api('get', '/api/v1/monitors', { token })).status).toBe(401);
    }

    // A password-protected status page, and a visitor who logs in.
    const page = await api('post', '/api/v1/status-pages', {
      token: tokens.owner,
      body: { vanityUrl: uniq('secret-page'), name: 'Secret page' },
    });
    expect(page.status).toBe(201);
    await setStatusPagePassword(
      h.prisma,
      { id: page.body.data.id, password: s.pagePassword },
      { publicBaseUrl: h.config.publicBaseUrl },
    );
    const slug = page.body.data.slug as string;
    expect(
      (await api('post', `/status/${slug}/login`, { form: `password=${encodeURIComponent(s.pagePassword)}` })).status,
    ).toBeLessThan(400);
    expect(
      (await api('post', `/status/${slug}/login`, { form: `password=wrong-${encodeURIComponent(s.pagePassword)}` }))
        .status,
    ).toBeGreaterThanOrEqual(400);

    // A heartbeat and its pings: the ping secret is the URL's credential, so it must not be logged.
    const hb = await api('post', '/api/v1/monitors', { token: tokens.owner, body: { type: 'heartbeat', name: 'hb' } });
    const pingPath = new URL(hb.body.data.pingUrl as string).pathname;
    const pingSecret = pingPath.split('/').pop()!;
    await api('get', pingPath);
    await api('post', `${pingPath}/fail`);

    // The worker runs the checks (the first ones were queued on create) and decrypts the secrets to send them.
    await until(
      async () =>
        (await h.prisma.checkResult.count({
          where: { monitor: { workspaceId: ws.id, type: { not: 'heartbeat' } } },
        })) >= 3,
      30_000,
      'the first checks',
    );
    await h.deps.scheduler.runNow({ id, type: 'http' });
    await until(
      () =>
        target.requests.find(
          (r) => r.path === '/echo' && r.headers['x-api-key'] === s.headerKey2 && r.body === s.body2,
        ),
      30_000,
      'a check with the updated secrets',
    );
    const incident = await until(
      () => h.prisma.incident.findFirst({ where: { workspaceId: ws.id } }),
      30_000,
      'the incident',
    );
    // Its ladder pages the secret URLs through the escalation worker, which decrypts them to send.
    const deliveries = await until(
      async () => {
        const rows = await h.prisma.escalationDelivery.findMany({
          where: { incidentId: incident.id },
          orderBy: { channel: 'asc' },
        });
        return rows.length === 2 && rows.every((d) => d.status !== 'pending') ? rows : null;
      },
      30_000,
      'the escalation deliveries',
    );
    expect(deliveries.map((d) => [d.channel, d.status])).toEqual([
      ['webhook', 'sent'],
      ['slack', 'sent'],
    ]);
    expect(
      target.requests.filter(
        (r) => r.path === `/hooks/${s.webhookPath}?token=${s.webhookQuery}` && r.headers['statusvane-signature'],
      ),
    ).toHaveLength(1);
    expect(target.requests.filter((r) => r.path === `/services/${s.slackPath}`)).toHaveLength(1);
    const escalation = await api('get', `/api/v1/incidents/${incident.id}/escalation`, { token: tokens.viewer });
    expect(escalation.status).toBe(200);
    expect(escalation.body.data.steps[0].deliveries.map((d: { status: string }) => d.status)).toEqual(['sent', 'sent']);

    // Reads of everything, by every kind of token.
    for (const token of [tokens.owner, tokens.viewer, personal, oauth]) {
      await api('get', '/api/v1/monitors?perPage=250', { token });
      await api('get', `/api/v1/monitors/${id}`, { token });
      await api('get', '/api/v1/incidents', { token });
    }
    await api('get', `/status/${slug}`, { headers: { Accept: 'application/json' } });
    await new Promise((r) => setTimeout(r, 100));

    // The secrets did their job: the target received them (it is their intended recipient).
    expect(target.requests.some((r) => r.headers.authorization === `Bearer ${s.headerAuth}`)).toBe(true);

    const tokenSecrets = [tokens.owner, tokens.admin, tokens.member, tokens.viewer, personal, oauth, revoked].flatMap(
      (t) => [t, t.replace(/^(sv_|svu_|mcp_at_)/, '')],
    );
    // The deployment's own secrets: the encryption key (as configured, and as hex) and the database password.
    const deployment = {
      encryptionKey: [encryptionKey, Buffer.from(encryptionKey, 'base64').toString('hex')],
      databasePassword: decodeURIComponent(new URL(h.config.databaseUrl).password),
    };
    expect(deployment.databasePassword.length).toBeGreaterThan(0);
    const everywhere = { ...s, tokens: tokenSecrets, ...deployment };
    const places = {
      database: await dumpDatabase(h.prisma),
      redis: await dumpRedis(h.queuePrefix),
      logs: logLines.join(''),
      responses: responses.join('\n'),
    };
    expect(places.logs.length).toBeGreaterThan(1000);
    // The escalation worker's lines are among those scanned.
    expect(logLines.filter((l) => l.includes('"message":"escalation delivery"'))).toHaveLength(2);
    expect(places.database).toContain(id);

    const leaks: string[] = [];
    for (const [place, text] of Object.entries(places)) {
      for (const [name, value] of Object.entries(everywhere)) {
        for (const v of Array.isArray(value) ? value : [value]) if (text.includes(v)) leaks.push(`${name} in ${place}`);
      }
    }
    // The ping secret is the heartbeat's address: shown in its record by design and kept to look pings up; never logged.
    if (places.logs.includes(pingSecret)) leaks.push('ping secret in logs');
    // Slack and webhook URLs are credentials too: stored encrypted (docs/escalation.md), never logged or returned.
    expect(leaks).toEqual([]);
  }, 90_000);
});
