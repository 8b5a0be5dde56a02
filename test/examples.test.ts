/**
 * Every example of the repository passes against local fakes (issue 26: examples/statusvane.yaml's MX monitor expected
 * `mx1.example.com` where MX answers read `10 mx1.example.com`, so it could never pass). Each monitoring document
 * under examples/ is applied through POST /config/apply, and each monitor the README creates with `POST /monitors`
 * is created, with its targets moved to fakes on 127.0.0.1: one http server answering as a healthy service of each
 * monitor would (its keyword, its JSON assertion, its status), a tcp listener, and a DNS server answering as DNS
 * does (an MX answer is a priority and a host). Then every monitor's first check must pass.
 */
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import dns2 from 'dns2';
import request from 'supertest';
import { parse as parseYaml } from 'yaml';
import { runCheck } from '../apps/worker/src/checks/run-check.js';
import { interpolate } from '../packages/cli/src/main.js';
import { bearer, makeHarness, makeUser, makeWorkspace, uniq, type Harness } from './support/harness.js';
import { startTcpTarget, type TcpTarget } from './support/targets.js';
import { checkRunnerDeps } from './support/worker-harness.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { Packet } = dns2;

type Json = Record<string, unknown>;
type Monitor = Json & { type?: string; target?: string };

/** What a healthy service answers at one address: the monitor's own expectations, met. */
interface Service {
  status: number;
  body: string;
  type: string;
}

/** `{ a: { b: value } }` for the path `$.a.b`: the simple paths the examples use. */
function objectAt(path: string, value: unknown): Json {
  const keys = path.replace(/^\$\.?/, '').split('.');
  if (keys.some((k) => !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k))) throw new Error(`extend the fake for path ${path}`);
  return keys.reduceRight<Json>((inner, key) => ({ [key]: inner }), value as Json) as Json;
}

function serviceFor(m: Monitor): Service {
  const status = (m.expectedStatusCodes as number[] | undefined)?.[0] ?? 200;
  const keyword = (m.keyword as string | undefined) ?? '';
  const assertion = m.jsonAssertion as { path: string; operator: string; value?: unknown } | undefined;
  if (!assertion) return { status, body: `<h1>${keyword}</h1>`, type: 'text/html' };
  const value = { eq: assertion.value, contains: assertion.value, exists: true }[assertion.operator];
  if (value === undefined) throw new Error(`extend the fake for operator ${assertion.operator}`);
  return {
    status,
    body: JSON.stringify({ ...objectAt(assertion.path, value), note: keyword }),
    type: 'application/json',
  };
}

/**
 * What the README's api monitor talks to, under `/<original host>`: a login that answers a token, then records
 * created, read and deleted behind it (`POST /<things>` -> 201 with an id, `GET` and `DELETE /<things>/<id>`).
 */
function answerApiFlow(req: http.IncomingMessage, body: string, res: http.ServerResponse, records: Map<string, Json>) {
  const json = (status: number, value?: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(value === undefined ? '' : JSON.stringify(value));
  const path = new URL(req.url!, 'http://x').pathname.split('/').slice(2);
  if (path[0] === 'login') return json(200, { token: 'fake-token' });
  if (req.headers.authorization !== 'Bearer fake-token') return json(401, { error: 'unauthorized' });
  if (req.method === 'POST' && path.length === 1) {
    const id = String(records.size + 1);
    records.set(`${path[0]}/${id}`, { ...(JSON.parse(body) as Json), id });
    return json(201, records.get(`${path[0]}/${id}`));
  }
  const record = records.get(path.join('/'));
  if (!record) return json(404, {});
  if (req.method === 'DELETE') return void (records.delete(path.join('/')), json(204));
  json(200, record);
}

/** One http server for every service: `/<original host><original path>` answers as that service. */
async function startServices() {
  const services = new Map<string, Service>();
  const apiHosts = new Set<string>();
  const records = new Map<string, Json>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (apiHosts.has(req.url!.split('/')[1]!)) return answerApiFlow(req, body, res, records);
      const service = services.get(req.url ?? '');
      if (!service) return void res.writeHead(404).end('no such fake');
      res.writeHead(service.status, { 'content-type': service.type }).end(service.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** The fake address of `target`, answering as the monitor expects. */
    serve(target: string, m: Monitor): string {
      const url = new URL(target);
      const path = `/${url.hostname}${url.pathname}${url.search}`;
      services.set(path, serviceFor(m));
      return `${base}${path}`;
    },
    /** A step's url moved to the fake API of its host (answerApiFlow). */
    serveApi(url: string): string {
      const host = url.replace(/^https?:\/\/([^/]+).*$/, '$1');
      apiHosts.add(host);
      return url.replace(/^https?:\/\/[^/]+/, `${base}/${host}`);
    },
    base,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

type Answer = Json & { type: number };

/** The records a name would have, written from what the monitor expects, as DNS carries them. */
function recordsFor(type: string, expected: string[]): Answer[] {
  const texts = expected.length ? expected : ['placeholder.example'];
  return texts.map((text) => {
    switch (type) {
      case 'A':
        return { type: Packet.TYPE.A, address: expected.length ? text : '192.0.2.1' };
      case 'AAAA':
        return { type: Packet.TYPE.AAAA, address: expected.length ? text : '2001:db8::1' };
      case 'CNAME':
        return { type: Packet.TYPE.CNAME, domain: text };
      case 'NS':
        return { type: Packet.TYPE.NS, ns: text };
      case 'TXT':
        return { type: Packet.TYPE.TXT, data: [text] };
      case 'MX': {
        // An MX record always carries a preference: `10 mx1.example.com` is its answer, never the host alone.
        const m = /^(\d+) (.+)$/.exec(text);
        return { type: Packet.TYPE.MX, priority: m ? Number(m[1]) : 10, exchange: m ? m[2] : text };
      }
      default:
        throw new Error(`extend the DNS fake for ${type}`);
    }
  });
}

async function startDns() {
  const zone = new Map<string, Answer[]>();
  const server = dns2.createUDPServer((req, send) => {
    const [q] = req.questions;
    if (!q) return;
    const response = Packet.createResponseFromRequest(req);
    const records = zone.get(`${q.name.toLowerCase()} ${Packet.TYPE_NAME[q.type]}`);
    if (!records) response.header.rcode = 3; // NXDOMAIN
    for (const r of records ?? [])
      response.answers.push({ name: q.name, class: Packet.CLASS.IN, ttl: 60, ...r } as never);
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  return {
    resolver: `127.0.0.1:${server.address().port}`,
    add(name: string, type: string, expected: string[]) {
      zone.set(`${name.toLowerCase()} ${type}`, recordsFor(type, expected));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let h: Harness;
let services: Awaited<ReturnType<typeof startServices>>;
let tcp: TcpTarget;
let dns: Awaited<ReturnType<typeof startDns>>;
beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  [services, tcp, dns] = await Promise.all([startServices(), startTcpTarget(), startDns()]);
});
afterAll(async () => {
  await Promise.all([services.close(), tcp.close(), dns.close()]);
  await h.close();
});

/** The monitor with its target moved to the fakes (the fakes told what to answer); heartbeats are left as they are. */
function localised(m: Monitor): Monitor {
  const type = m.type ?? 'http';
  if (type === 'http') return { ...m, target: services.serve(m.target!, m) };
  if (type === 'tcp') return { ...m, target: `127.0.0.1:${tcp.port}` };
  if (type === 'dns') {
    dns.add(m.target!, (m.dnsRecordType as string | undefined) ?? 'A', (m.dnsExpected as string[] | undefined) ?? []);
    return { ...m, dnsResolver: dns.resolver };
  }
  if (type === 'heartbeat') return m;
  if (type === 'api')
    return {
      ...m,
      steps: (m.steps as Json[]).map((step) => ({ ...step, url: services.serveApi(step.url as string) })),
    };
  throw new Error(`extend the fakes for ${type} monitors`);
}

/** The first check of each monitor (a heartbeat pinged first, as its job would), as the worker runs it. */
async function firstChecks(ids: string[], token: string) {
  const outcomes: Array<{ name: string; outcome: string; reason: string | null }> = [];
  for (const id of ids) {
    const m = (await request(h.app).get(`/api/v1/monitors/${id}`).set(bearer(token))).body.data;
    if (m.type === 'heartbeat') expect((await request(h.app).get(new URL(m.pingUrl).pathname)).status).toBe(200);
    const checked = await runCheck(checkRunnerDeps(h), {
      monitorId: id,
      region: h.config.checkRegions[0]!,
      slot: new Date(),
    });
    const result = 'result' in checked ? checked.result : { outcome: checked.skipped, reason: null };
    outcomes.push({ name: m.name, outcome: result.outcome, reason: result.reason });
  }
  return outcomes;
}

/** Every statusvane document under examples/ (a workflow or a script is not one), and the README's: name -> text. */
async function exampleDocuments(): Promise<Map<string, string>> {
  const docs = new Map<string, string>();
  const files = (await readdir(join(root, 'examples'), { recursive: true })).filter((f) => /\.ya?ml$/.test(f));
  for (const f of files) {
    const text = await readFile(join(root, 'examples', f), 'utf8');
    const doc = parseYaml(text) as Json;
    if (doc?.version === 1 && Array.isArray(doc.monitors)) docs.set(`examples/${f}`, text);
  }
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].forEach((m, i) => docs.set(`README.md yaml block ${i + 1}`, m[1]!));
  return docs;
}

describe('the examples pass against local fakes', () => {
  it("examples/*.yaml and the README's documents: applied with targets on the fakes, every monitor passes its first check", async () => {
    const docs = await exampleDocuments();
    expect([...docs.keys()]).toEqual(expect.arrayContaining(['examples/statusvane.yaml', 'README.md yaml block 1']));
    for (const [name, text] of docs) {
      const { ws, tokens } = await makeWorkspace(h.prisma);
      // Schedule members must be users of the workspace: the README names them by `${NAME}`, as a pipeline gives them.
      const alice = await makeUser(h.prisma, [{ workspace: ws.id, role: 'member' }]);
      const bob = await makeUser(h.prisma, [{ workspace: ws.id, role: 'member' }]);
      // The secrets a pipeline would give (`${NAME}`), pointing at the fakes too.
      const env = {
        SLACK_WEBHOOK_URL: `${services.base}/slack/T000/B000/XXXX`,
        PAGERDUTY_ROUTING_KEY: 'R'.repeat(32),
        CHECKOUT_TOKEN: 'example-token',
        ALICE_USER_ID: alice.id,
        BOB_USER_ID: bob.id,
      };
      const doc = interpolate(parseYaml(text), env) as Json & { monitors: Monitor[]; statusPages?: Json[] };
      const applied = await request(h.app)
        .post('/api/v1/config/apply')
        .set(bearer(tokens.admin))
        .send({
          ...doc,
          monitors: doc.monitors.map(localised),
          // Slugs are unique across workspaces, and other suites apply these examples too.
          statusPages: doc.statusPages?.map((p) => ({ ...p, slug: uniq(String(p.slug)) })),
        });
      expect([name, applied.status, applied.body.error]).toEqual([name, 200, undefined]);
      const ids = (applied.body.data.changes as Array<{ resourceType: string; id: string }>)
        .filter((c) => c.resourceType === 'monitor')
        .map((c) => c.id);
      expect(ids).toHaveLength(doc.monitors.length);
      const outcomes = await firstChecks(ids, tokens.viewer);
      expect([name, outcomes.filter((o) => o.outcome !== 'up')]).toEqual([name, []]);
    }
  });

  it("the README's POST /monitors examples: created with targets on the fakes, every one passes its first check", async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const bodies = [...readme.matchAll(/-X POST \$API\/monitors [^\n]*\\\n(?:[^\n]*\\\n)*?\s*-d '([^']*)'/g)].map(
      (m) => JSON.parse(m[1]!) as Monitor,
    );
    expect(bodies.map((b) => b.type ?? 'http').sort()).toEqual(['api', 'dns', 'heartbeat', 'http', 'tcp']);
    const { tokens } = await makeWorkspace(h.prisma);
    // The secret the README creates first, for the fakes' host.
    const secret = await request(h.app)
      .post('/api/v1/secrets')
      .set(bearer(tokens.admin))
      .send({ name: 'PROBE_PASSWORD', value: 's3cr3t-probe-password', allowedHosts: ['127.0.0.1'] });
    expect(secret.status).toBe(201);
    const ids: string[] = [];
    for (const body of bodies) {
      const res = await request(h.app).post('/api/v1/monitors').set(bearer(tokens.member)).send(localised(body));
      expect([body.name, res.status, res.body.error]).toEqual([body.name, 201, undefined]);
      ids.push(res.body.data.id);
    }
    const outcomes = await firstChecks(ids, tokens.viewer);
    expect(outcomes.filter((o) => o.outcome !== 'up')).toEqual([]);
  });
});
