/**
 * SSRF end to end. A canary listens on 127.0.0.2, outside ALLOWED_TARGET_CIDRS (only 127.0.0.1/32 is allowed, for
 * the redirecting target); Linux routes all of 127/8 to the loopback interface, so anything that dials 127.0.0.2
 * reaches it. Monitors (http, tcp) and webhook / Slack targets are aimed at it through every vector: numeric
 * spellings, names that resolve to it, redirects from an allowed target, and names whose second answer changes (DNS
 * rebinding). Write-time refusals (400) and connect-time refusals (`ssrf_blocked`) both count; the canary must
 * never see a connection.
 *
 * Names resolve through a resolver injected into the guard (no real DNS), so the API and the worker run in process.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createSsrfGuard, type SsrfResolver } from '@statusvane/shared';
import { createApp } from '../../apps/api/src/app.js';
import { createPolicy } from '../../apps/api/src/admin/policy-commands.js';
import { createDeliverer, workspaceSigningSecrets, type Page } from '@statusvane/shared';
import { bearer, makeHarness, makeWorkspace, type Harness } from '../support/harness.js';
import { startTarget, type Target } from '../support/targets.js';
import { CLEAR_OF_SLOTS, startWorker } from '../support/worker-harness.js';
import { brokenInvariants } from './support/invariants.js';
import { deleteKeys, until } from './support/processes.js';

const CANARY_HOST = '127.0.0.2';

let h: Harness;
let app: ReturnType<typeof createApp>;
let worker: ReturnType<typeof startWorker>;
let allowed: Target;
let canary: { port: number; connections: () => number; close: () => Promise<void> };
let decoy: { port: number; connections: () => number; close: () => Promise<void> };
let ws: Awaited<ReturnType<typeof makeWorkspace>>;
/** Every answer the injected resolver gave, per name, in order. */
const answers = new Map<string, string[]>();

/** `flip-*.test`: the answers to give, in order, one per resolution; the last one is repeated. Set by a test. */
const scripts = new Map<string, string[]>();

/**
 * The injected DNS: `canary.test` is the canary; `mixed.test` hides it among a public address; `rebind-*.test`
 * answer the allowed address the first time and the canary ever after; `flip-*.test` follow their script;
 * anything else does not exist.
 */
const resolver: SsrfResolver = async (hostname) => {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const given = answers.get(name) ?? [];
  answers.set(name, given);
  const answer = (...addresses: string[]) => {
    given.push(addresses.join(','));
    return addresses.map((address) => ({ address, family: 4 as const }));
  };
  if (name === 'canary.test') return answer(CANARY_HOST);
  if (name === 'mixed.test') return answer('93.184.215.14', CANARY_HOST);
  if (name.startsWith('rebind-')) return answer(given.length === 0 ? '127.0.0.1' : CANARY_HOST);
  const script = scripts.get(name);
  if (script?.length) return answer(script.length > 1 ? script.shift()! : script[0]!);
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};
const guard = createSsrfGuard({ allowedCidrs: '127.0.0.1/32', lookup: resolver });

/** A listener that counts connections and answers every one with a plain HTTP 200. */
async function startListener(host: string, port = 0) {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    count++;
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
    s.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * The canary on 127.0.0.2, and a decoy on the ALLOWED address 127.0.0.1 at the very same port: a name whose answer
 * flips between the two within one check then reaches one or the other, which shows which answer was dialled.
 */
async function startCanaryAndDecoy() {
  for (let attempt = 0; ; attempt++) {
    const c = await startListener(CANARY_HOST);
    try {
      return { canary: c, decoy: await startListener('127.0.0.1', c.port) };
    } catch (err) {
      await c.close();
      if (attempt >= 10) throw err; // the port is taken on 127.0.0.1: try another
    }
  }
}

beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.1/32' });
  // The API and the worker share the guard with the injected resolver.
  h.deps.guard = guard;
  app = createApp(h.deps);
  worker = startWorker(h);
  allowed = await startTarget();
  ({ canary, decoy } = await startCanaryAndDecoy());
  ws = await makeWorkspace(h.prisma);

  // The canary works: a plain connection from the test reaches it (and is then forgotten).
  await new Promise<void>((resolve, reject) =>
    net
      .connect(canary.port, CANARY_HOST)
      .on('connect', function (this: net.Socket) {
        this.destroy();
        resolve();
      })
      .on('error', reject),
  );
  await until(() => canary.connections() === 1, 2000, 'the canary to see the test connection');
});

afterAll(async () => {
  await worker?.close();
  await Promise.all([allowed?.close(), canary?.close(), decoy?.close()]);
  await h?.close();
  await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}:*`]).catch(() => undefined);
});

/** Ways to write 127.0.0.2 (and names for it), as they appear in a URL's host. */
const URL_HOSTS = [
  CANARY_HOST,
  '2130706434',
  '0x7f000002',
  '0x7F.0.0.2',
  '127.2',
  '127.0.2',
  '0177.0.0.2',
  '0177.0.0.02',
  '127.000.000.002',
  '127.0.0.2.',
  '%31%32%37.0.0.2',
  '１２７.０.０.２',
  '[::ffff:127.0.0.2]',
  '[::ffff:7f00:2]',
  '[0:0:0:0:0:ffff:7f00:2]',
  '[::127.0.0.2]',
  '[64:ff9b::7f00:2]',
  'canary.test',
  'CANARY.test.',
  'mixed.test',
];
const TCP_HOSTS = URL_HOSTS.filter((host) => !host.includes('%') && !/[^\x00-\x7f]/.test(host));

const urlFor = (host: string) => `http://${host}:${canary.port}/ping`;
const tcpFor = (host: string) => `${host}:${canary.port}`;

const post = (body: object) => request(app).post('/api/v1/monitors').set(bearer(ws.tokens.owner)).send(body);

/** A monitor row written straight to the database: what the worker does with a target the API never checked. */
async function insertMonitor(type: 'http' | 'tcp', target: string): Promise<string> {
  const component = await h.prisma.component.create({
    data: { workspaceId: ws.ws.id, name: `raw ${target}`.slice(0, 120) },
  });
  const m = await h.prisma.monitor.create({
    // One check each (checkAll): no re-check of a failure 15 s later, and no scheduled slot within the suite (the
    // partition of this suite's 60 s monitors), either of which would hit the targets of a later test.
    data: {
      workspaceId: ws.ws.id,
      componentId: component.id,
      name: `raw ${type}`,
      type,
      target,
      timeoutMs: 3000,
      confirmAfterSeconds: 0,
      ...CLEAR_OF_SLOTS,
    },
  });
  return m.id;
}

/** Runs one check of each monitor through the real worker and returns the stored reasons. */
async function checkAll(
  ids: Array<{ id: string; type: 'http' | 'tcp'; label: string }>,
): Promise<Array<{ label: string; outcome: string; reason: string | null }>> {
  for (const m of ids) await h.deps.scheduler.runNow({ id: m.id, type: m.type });
  const rows = await until(
    async () => {
      const results = await h.prisma.checkResult.findMany({ where: { monitorId: { in: ids.map((m) => m.id) } } });
      return new Set(results.map((r) => r.monitorId)).size === ids.length ? results : null;
    },
    30_000,
    'a check result for every monitor',
  );
  return ids.map((m) => {
    const r = rows.find((x) => x.monitorId === m.id)!;
    return { label: m.label, outcome: r.outcome, reason: r.reason };
  });
}

const page = (): Page => ({
  deliveryId: randomUUID(),
  workspaceId: ws.ws.id,
  incident: {
    id: randomUUID(),
    title: 'x is down',
    status: 'open',
    impact: 'major',
    source: 'monitor',
    startedAt: new Date().toISOString(),
    monitorId: null,
    metadata: {},
  },
  policy: { id: randomUUID(), name: 'p', runbook: '' },
  step: { id: randomUUID(), position: 0, delayMinutes: 0, minImpact: 'none', cycle: 0 },
  firedAt: new Date().toISOString(),
});

describe('SSRF: nothing reaches the canary on 127.0.0.2', () => {
  it('refuses every spelling and name of it at write time (monitors: create and update)', async () => {
    const accepted: string[] = [];
    for (const host of URL_HOSTS) {
      const res = await post({ name: 'ssrf', target: urlFor(host) });
      if (res.status !== 400 || !res.body.error.details.issues.some((i: { path: string }) => i.path === 'target'))
        accepted.push(`http ${host}: ${res.status}`);
    }
    for (const host of TCP_HOSTS) {
      const res = await post({ type: 'tcp', name: 'ssrf', target: tcpFor(host) });
      if (res.status !== 400) accepted.push(`tcp ${host}: ${res.status}`);
    }
    const existing = await post({ name: 'fine', target: allowed.url('/ok') });
    expect(existing.status).toBe(201);
    for (const host of URL_HOSTS) {
      const res = await request(app)
        .patch(`/api/v1/monitors/${existing.body.data.id}`)
        .set(bearer(ws.tokens.owner))
        .send({ target: urlFor(host) });
      if (res.status !== 400) accepted.push(`patch ${host}: ${res.status}`);
    }
    expect(accepted).toEqual([]);
    expect(await h.prisma.monitor.count({ where: { workspaceId: ws.ws.id, name: 'ssrf' } })).toBe(0);
    expect(canary.connections()).toBe(1);
  });

  it('blocks every spelling and name of it at connect time, for targets that were never checked at write time', async () => {
    const ids: Array<{ id: string; type: 'http' | 'tcp'; label: string }> = [];
    for (const host of URL_HOSTS)
      ids.push({ id: await insertMonitor('http', urlFor(host)), type: 'http', label: `http ${host}` });
    for (const host of TCP_HOSTS)
      ids.push({ id: await insertMonitor('tcp', tcpFor(host)), type: 'tcp', label: `tcp ${host}` });
    const results = await checkAll(ids);
    expect(results.filter((r) => r.outcome !== 'down' || r.reason !== 'ssrf_blocked')).toEqual([]);
    expect(canary.connections()).toBe(1);
  });

  it('blocks redirects from an allowed target to it, however the hop is written', async () => {
    const before = allowed.requests.length;
    const ids: Array<{ id: string; type: 'http'; label: string }> = [];
    for (const host of URL_HOSTS) {
      for (const status of [302, 307]) {
        // Location as a server would send it: non-ASCII percent-encoded (a header cannot carry it raw).
        const res = await post({
          name: 'redirect',
          target: allowed.url(
            `/redirect?status=${status}&to=${encodeURIComponent(urlFor(host).replace(/[^\x00-\x7f]+/g, encodeURIComponent))}`,
          ),
        });
        expect([host, res.status]).toEqual([host, 201]);
        ids.push({ id: res.body.data.id, type: 'http', label: `${status} to ${host}` });
      }
    }
    // Two allowed hops first, then the canary.
    const chain = allowed.url(
      `/redirect?to=${encodeURIComponent(allowed.url(`/redirect?to=${encodeURIComponent(urlFor('canary.test'))}`))}`,
    );
    const res = await post({ name: 'redirect chain', target: chain });
    ids.push({ id: res.body.data.id, type: 'http', label: 'chain' });

    const results = await checkAll(ids);
    expect(results.filter((r) => r.outcome !== 'down' || r.reason !== 'ssrf_blocked')).toEqual([]);
    // The allowed target did answer each first hop: the refusal is the redirect's, not a dead target's.
    expect(allowed.requests.length - before).toBeGreaterThanOrEqual(ids.length);
    expect(canary.connections()).toBe(1);
  });

  it('blocks DNS rebinding: a name that resolved to an allowed address at write time and to the canary afterwards', async () => {
    const http = await post({ name: 'rebind', target: `http://rebind-http.test:${canary.port}/` });
    const tcp = await post({ type: 'tcp', name: 'rebind', target: `rebind-tcp.test:${canary.port}` });
    expect([http.status, tcp.status]).toEqual([201, 201]);
    // Write time saw the allowed address; every later answer (the worker's first check is already running) is the canary.
    for (const name of ['rebind-http.test', 'rebind-tcp.test']) expect(answers.get(name)?.[0]).toBe('127.0.0.1');
    const results = await checkAll([
      { id: http.body.data.id, type: 'http', label: 'http rebind' },
      { id: tcp.body.data.id, type: 'tcp', label: 'tcp rebind' },
    ]);
    expect(results).toEqual([
      { label: 'http rebind', outcome: 'down', reason: 'ssrf_blocked' },
      { label: 'tcp rebind', outcome: 'down', reason: 'ssrf_blocked' },
    ]);
    expect(canary.connections()).toBe(1);
  });

  it('refuses webhook and Slack targets aimed at it at write time (escalation policies)', async () => {
    const accepted: string[] = [];
    for (const host of URL_HOSTS) {
      for (const channel of ['webhook', 'slack'] as const) {
        const json = JSON.stringify({
          name: 'ssrf',
          steps: [{ delayMinutes: 0, targets: [{ channel, target: urlFor(host) }] }],
        });
        const outcome = await createPolicy(
          h.prisma,
          { workspace: ws.ws.id, json },
          { guard, encryption: h.config.encryption.current },
        ).then(
          () => 'created',
          (err: { code?: string }) => err.code ?? 'error',
        );
        if (outcome !== 'invalid_request') accepted.push(`${channel} ${host}: ${outcome}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  it('never delivers a page to it: every vector, redirects not followed, rebinding blocked', async () => {
    const deliverer = createDeliverer({
      guard,
      signingSecret: workspaceSigningSecrets(h.prisma, Buffer.alloc(32, 1)),
      smtp: null,
      timeoutMs: 3000,
      retry: { attempts: 2, backoffMs: 10 },
    });
    try {
      const outcomes: string[] = [];
      for (const host of [...URL_HOSTS, 'rebind-hook.test']) {
        if (host === 'rebind-hook.test') {
          // Accepted at write time (first answer: the allowed address) ...
          const json = JSON.stringify({
            name: 'rebind',
            steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: urlFor(host) }] }],
          });
          await createPolicy(
            h.prisma,
            { workspace: ws.ws.id, json },
            { guard, encryption: h.config.encryption.current },
          );
        }
        for (const channel of ['webhook', 'slack'] as const) {
          const out = await deliverer.deliver(channel, urlFor(host), page());
          if (out.status !== 'failed' || out.reason !== 'ssrf_blocked')
            outcomes.push(`${channel} ${host}: ${out.status} ${out.reason}`);
        }
      }
      expect(outcomes).toEqual([]);
      // A redirect from an allowed receiver is a failure, not a hop.
      const redirected = await deliverer.deliver(
        'webhook',
        allowed.url(`/redirect?status=307&to=${encodeURIComponent(urlFor(CANARY_HOST))}`),
        page(),
      );
      expect(redirected).toMatchObject({ status: 'failed', reason: 'http_307' });
      expect(canary.connections()).toBe(1);
    } finally {
      deliverer.close();
    }
  });
});

/**
 * Rebinding within ONE check: the resolver answers the allowed address first and the canary on any later query
 * (and the reverse). A probe that checked one answer and dialled another (check by name, then connect by name)
 * would reach the canary in the first ordering; the guard's lookup is the dial's own resolution, so the check must
 * reach the decoy (the allowed address, same port) in the first ordering and nothing in the second. Monitors are
 * written straight to the database, so no write-time check consumes an answer first.
 */
describe('SSRF: the dial uses the very address that was checked', () => {
  const flip = (name: string, order: 'allowed first' | 'canary first') =>
    scripts.set(name, order === 'allowed first' ? ['127.0.0.1', CANARY_HOST] : [CANARY_HOST, '127.0.0.1']);

  it('http and tcp monitors: allowed then canary reaches the allowed address; canary then allowed is blocked', async () => {
    const cases = [
      { type: 'http' as const, name: 'flip-http-a.test', order: 'allowed first' as const },
      { type: 'tcp' as const, name: 'flip-tcp-a.test', order: 'allowed first' as const },
      { type: 'http' as const, name: 'flip-http-c.test', order: 'canary first' as const },
      { type: 'tcp' as const, name: 'flip-tcp-c.test', order: 'canary first' as const },
    ];
    const decoyBefore = decoy.connections();
    const ids = [];
    for (const c of cases) {
      flip(c.name, c.order);
      const target = c.type === 'http' ? `http://${c.name}:${canary.port}/` : `${c.name}:${canary.port}`;
      ids.push({ id: await insertMonitor(c.type, target), type: c.type, label: `${c.type} ${c.order}` });
    }
    expect(await checkAll(ids)).toEqual([
      { label: 'http allowed first', outcome: 'up', reason: null },
      { label: 'tcp allowed first', outcome: 'up', reason: null },
      { label: 'http canary first', outcome: 'down', reason: 'ssrf_blocked' },
      { label: 'tcp canary first', outcome: 'down', reason: 'ssrf_blocked' },
    ]);
    // One resolution per check, and the dial went where it said: the decoy once per allowed-first check.
    for (const c of cases)
      expect([c.name, answers.get(c.name)]).toEqual([
        c.name,
        [c.order === 'allowed first' ? '127.0.0.1' : CANARY_HOST],
      ]);
    expect(decoy.connections() - decoyBefore).toBe(2);
    expect(canary.connections()).toBe(1);
  });

  it('inside a redirect: the hop to a flipping name dials the answer it checked, in either order', async () => {
    const decoyBefore = decoy.connections();
    const hopsBefore = allowed.requests.length;
    const ids = [];
    for (const [name, order] of [
      ['flip-hop-a.test', 'allowed first'],
      ['flip-hop-c.test', 'canary first'],
    ] as const) {
      flip(name, order);
      // The first hop is the allowed target by IP (no lookup); its redirect names the flipping host.
      const target = allowed.url(
        `/redirect?status=302&to=${encodeURIComponent(`http://${name}:${canary.port}/after-redirect`)}`,
      );
      ids.push({ id: await insertMonitor('http', target), type: 'http' as const, label: `redirect, ${order}` });
    }
    expect(await checkAll(ids)).toEqual([
      { label: 'redirect, allowed first', outcome: 'up', reason: null },
      { label: 'redirect, canary first', outcome: 'down', reason: 'ssrf_blocked' },
    ]);
    // The first hops of these two monitors (a late check of an earlier test's monitor may also reach `allowed`).
    const hops = allowed.requests.slice(hopsBefore).filter((r) => r.path.includes('flip-hop-'));
    expect(hops).toHaveLength(2);
    expect(answers.get('flip-hop-a.test')).toEqual(['127.0.0.1']);
    expect(answers.get('flip-hop-c.test')).toEqual([CANARY_HOST]);
    expect(decoy.connections() - decoyBefore).toBe(1);
    expect(canary.connections()).toBe(1);
  });

  it('webhook deliveries: allowed then canary is delivered to the allowed address; canary then allowed is refused', async () => {
    const deliverer = createDeliverer({
      guard,
      signingSecret: workspaceSigningSecrets(h.prisma, Buffer.alloc(32, 1)),
      smtp: null,
      timeoutMs: 3000,
      retry: { attempts: 2, backoffMs: 10 },
    });
    try {
      const decoyBefore = decoy.connections();
      flip('flip-hook-a.test', 'allowed first');
      flip('flip-hook-c.test', 'canary first');
      expect(await deliverer.deliver('webhook', `http://flip-hook-a.test:${canary.port}/hook`, page())).toMatchObject({
        status: 'sent',
        attempts: 1,
      });
      expect(await deliverer.deliver('webhook', `http://flip-hook-c.test:${canary.port}/hook`, page())).toMatchObject({
        status: 'failed',
        reason: 'ssrf_blocked',
      });
      expect(answers.get('flip-hook-a.test')).toEqual(['127.0.0.1']);
      expect(answers.get('flip-hook-c.test')).toEqual([CANARY_HOST]);
      expect(decoy.connections() - decoyBefore).toBe(1);
      expect(canary.connections()).toBe(1);
    } finally {
      deliverer.close();
    }
  });

  it('leaves the stored state consistent (results, flap counters, statuses)', async () => {
    expect(await brokenInvariants(h.prisma, { workspaceIds: [ws.ws.id] })).toEqual({});
  });
});
