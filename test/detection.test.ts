/**
 * Issue 15, detection: TLS certificates on https checks (recorded on every result and, the latest, on the monitor;
 * `certificateExpiryDays` failing with `certificate_expiring`) and DNS monitors (record types, resolver under the SSRF
 * rules, expected answers, answers kept with the result). Real targets on 127.0.0.1: https servers with certificates
 * made here by openssl, and a DNS server (dns2) answering from a table.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import dns2 from 'dns2';
import request from 'supertest';
import { createSsrfGuard, type SsrfGuard } from '@statusvane/shared';
import { runCheck } from '../apps/worker/src/checks/run-check.js';
import { createDnsProbe, type DnsProbeInput } from '../apps/worker/src/probes/dns.probe.js';
import { createHttpProbe, probeUserAgent, STATUSVANE_VERSION } from '../apps/worker/src/probes/http.probe.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { makeHttpInput } from './support/probe-inputs.js';
import { startTarget, type Target } from './support/targets.js';
import { checkRunnerDeps } from './support/worker-harness.js';

const { Packet } = dns2;

// ---------------------------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------------------------

interface TlsServer {
  url: string;
  cert: string;
  close(): Promise<void>;
}

/** An https server on 127.0.0.1 whose self-signed certificate (CN=statusvane-test) is valid for `days` from now. */
async function startHttpsTarget(dir: string, days: number): Promise<TlsServer> {
  const key = join(dir, `key-${days}.pem`);
  const cert = join(dir, `cert-${days}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      String(days),
      '-subj',
      '/O=Statusvane Tests/CN=statusvane-test',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const pem = readFileSync(cert, 'utf8');
  const server = https.createServer({ key: readFileSync(key), cert: pem }, (req, res) => {
    const to = new URL(req.url ?? '/', 'https://target.invalid').searchParams.get('to');
    res.writeHead(to ? 302 : 200, to ? { location: to } : { 'content-type': 'text/plain' });
    res.end(to ? '' : 'ok');
  });
  server.on('tlsClientError', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    cert: pem,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Answer = Partial<InstanceType<typeof Packet.Resource>> & { type: number };
interface DnsServer {
  resolver: string;
  /** Questions received, as `name TYPE`. */
  questions: string[];
  close(): Promise<void>;
}

/** A DNS server on 127.0.0.1: answers from `zone` (`name TYPE` -> records); a name in no key is NXDOMAIN; `slow.test` never answers. */
async function startDnsServer(zone: Record<string, Answer[]>): Promise<DnsServer> {
  const questions: string[] = [];
  const server = dns2.createUDPServer((req, send) => {
    const [q] = req.questions;
    if (!q) return;
    const type = Packet.TYPE_NAME[q.type] ?? String(q.type);
    questions.push(`${q.name} ${type}`);
    if (q.name === 'slow.test') return;
    const response = Packet.createResponseFromRequest(req);
    const records = zone[`${q.name.toLowerCase()} ${type}`];
    const known = Object.keys(zone).some((k) => k.startsWith(`${q.name.toLowerCase()} `));
    if (!known) response.header.rcode = 3; // NXDOMAIN
    for (const r of records ?? [])
      response.answers.push({ name: q.name, class: Packet.CLASS.IN, ttl: 60, ...r } as never);
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return {
    resolver: `127.0.0.1:${port}`,
    questions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const ZONE: Record<string, Answer[]> = {
  'www.example.test A': [
    { type: Packet.TYPE.A, address: '192.0.2.10' },
    { type: Packet.TYPE.A, address: '192.0.2.11' },
  ],
  'www.example.test AAAA': [{ type: Packet.TYPE.AAAA, address: '2001:db8::10' }],
  'alias.example.test CNAME': [{ type: Packet.TYPE.CNAME, domain: 'WWW.Other.test' }],
  'example.test MX': [
    { type: Packet.TYPE.MX, priority: 10, exchange: 'mx1.example.test' },
    { type: Packet.TYPE.MX, priority: 20, exchange: 'mx2.example.test' },
  ],
  'example.test TXT': [{ type: Packet.TYPE.TXT, data: ['v=spf1 ', 'include:example.test ~all'] }],
  'example.test NS': [{ type: Packet.TYPE.NS, ns: 'ns1.example.test' }],
  'example.test CAA': [{ type: Packet.TYPE.CAA, flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
  '_sip._tcp.example.test SRV': [
    { type: Packet.TYPE.SRV, priority: 0, weight: 5, port: 5060, target: 'sip.example.test' },
  ],
  'empty.example.test A': [],
};

let dir: string;
let dnsServer: DnsServer;
let soon: TlsServer;
let later: TlsServer;
let plain: Target;
const guard: SsrfGuard = createSsrfGuard({ allowedCidrs: '127.0.0.0/8' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sv-detection-'));
  [dnsServer, soon, later, plain] = await Promise.all([
    startDnsServer(ZONE),
    startHttpsTarget(dir, 3),
    startHttpsTarget(dir, 90),
    startTarget(),
  ]);
});
afterAll(async () => {
  await Promise.all([dnsServer.close(), soon.close(), later.close(), plain.close()]);
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------
// Probes
// ---------------------------------------------------------------------------------------------------------------

describe('https probe: certificates', () => {
  const probe = () => createHttpProbe({ guard, extraCa: [soon.cert, later.cert] });

  it('records the leaf certificate of every https check', async () => {
    const r = await probe().probe(makeHttpInput({ url: later.url, certificateExpiryDays: 7 }));
    expect(r).toMatchObject({ outcome: 'up', reason: null, statusCode: 200 });
    const c = r.certificate!;
    expect(c.subject).toBe('O=Statusvane Tests, CN=statusvane-test');
    expect(c.issuer).toBe(c.subject); // self-signed
    expect(c.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(c.daysRemaining).toBeGreaterThanOrEqual(89);
    expect(c.daysRemaining).toBeLessThanOrEqual(90);
    expect(Date.parse(c.validTo) - Date.parse(c.validFrom)).toBe(90 * 86_400_000);
    expect(Math.abs(Date.parse(c.validFrom) - Date.now())).toBeLessThan(120_000);
  });

  it('fails with certificate_expiring when the certificate expires within certificateExpiryDays', async () => {
    const r = await probe().probe(makeHttpInput({ url: soon.url, certificateExpiryDays: 7 }));
    expect(r.outcome).toBe('down');
    expect(r.reason).toMatch(/^certificate_expiring: expires \S+Z \(2 days\)$/);
    expect(r.statusCode).toBe(200);
    expect(r.certificate!.daysRemaining).toBe(2);
    // 3 days left is not within 3 days; within 4 it is.
    expect((await probe().probe(makeHttpInput({ url: soon.url, certificateExpiryDays: 2 }))).outcome).toBe('up');
    expect((await probe().probe(makeHttpInput({ url: soon.url, certificateExpiryDays: 4 }))).outcome).toBe('down');
  });

  it('null (off) never fails on the certificate, and still records it', async () => {
    const r = await probe().probe(makeHttpInput({ url: soon.url, certificateExpiryDays: null }));
    expect(r).toMatchObject({ outcome: 'up', certificate: { subject: 'O=Statusvane Tests, CN=statusvane-test' } });
  });

  it('plain http has no certificate; an untrusted one fails the handshake (tls_error) without one', async () => {
    expect(
      (await probe().probe(makeHttpInput({ url: plain.url('/'), certificateExpiryDays: 7 }))).certificate,
    ).toBeNull();
    const untrusted = await createHttpProbe({ guard }).probe(makeHttpInput({ url: later.url }));
    expect(untrusted).toMatchObject({ outcome: 'down', reason: 'tls_error', certificate: null });
  });

  it('an https target redirected to plain http keeps the certificate of its own hop', async () => {
    const r = await probe().probe(
      makeHttpInput({ url: `${soon.url}?to=${encodeURIComponent(plain.url('/'))}`, certificateExpiryDays: 7 }),
    );
    expect(r).toMatchObject({
      outcome: 'down',
      reason: expect.stringMatching(/^certificate_expiring/),
      statusCode: 200,
    });
    expect(r.certificate!.daysRemaining).toBe(2);
  });

  it('reads the certificate on every check of one probe, as a worker runs them (no TLS session resumed)', async () => {
    // A resumed TLS session carries no certificate: Node's getPeerCertificate() is then empty. One probe, as in a
    // worker: one after another, then many at once, of a target it has checked before.
    const p = probe();
    const check = () => p.probe(makeHttpInput({ url: soon.url, certificateExpiryDays: 7 }));
    const results = [];
    for (let i = 0; i < 10; i++) results.push(await check());
    results.push(...(await Promise.all(Array.from({ length: 20 }, check))));
    expect(results.map((r) => [r.reason?.split(':')[0], r.certificate?.daysRemaining])).toEqual(
      Array(30).fill(['certificate_expiring', 2]),
    );
  });

  it('an http target redirected to https records the https hop', async () => {
    const r = await probe().probe(makeHttpInput({ url: plain.url(`/redirect?to=${encodeURIComponent(later.url)}`) }));
    expect(r).toMatchObject({ outcome: 'up', certificate: { subject: 'O=Statusvane Tests, CN=statusvane-test' } });
  });
});

describe('User-Agent', () => {
  it('names the version and the region, unless the monitor sets its own', async () => {
    const version = (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
    expect(STATUSVANE_VERSION).toBe(version);
    const probe = createHttpProbe({ guard, userAgent: probeUserAgent('eu-west') });
    const seen = plain.requests.length;
    await probe.probe(makeHttpInput({ url: plain.url('/echo-headers') }));
    await probe.probe(makeHttpInput({ url: plain.url('/echo-headers'), headers: { 'User-Agent': 'mine/1.0' } }));
    expect(plain.requests.slice(seen).map((r) => r.headers['user-agent'])).toEqual([
      `Statusvane/${version} (region=eu-west)`,
      'mine/1.0',
    ]);
  });
});

function dnsInput(overrides: Partial<DnsProbeInput> & { name: string }): DnsProbeInput {
  return {
    recordType: 'A',
    resolver: dnsServer.resolver,
    expected: [],
    timeoutMs: 2000,
    degradedAfterMs: null,
    latencyThresholdMs: null,
    ...overrides,
  };
}

describe('dns probe', () => {
  const probe = createDnsProbe({ guard });

  it.each([
    ['A', 'www.example.test', ['192.0.2.10', '192.0.2.11']],
    ['AAAA', 'www.example.test', ['2001:db8::10']],
    ['CNAME', 'alias.example.test', ['WWW.Other.test']],
    ['MX', 'example.test', ['10 mx1.example.test', '20 mx2.example.test']],
    ['TXT', 'example.test', ['v=spf1 include:example.test ~all']],
    ['NS', 'example.test', ['ns1.example.test']],
    ['CAA', 'example.test', ['0 issue "letsencrypt.org"']],
    ['SRV', '_sip._tcp.example.test', ['0 5 5060 sip.example.test']],
  ] as const)('%s answers are written as dig +short prints them', async (recordType, name, answers) => {
    const r = await probe.probe(dnsInput({ name, recordType }));
    // address: the resolver asked.
    expect(r).toMatchObject({
      outcome: 'up',
      reason: null,
      statusCode: null,
      dnsAnswers: answers,
      address: '127.0.0.1',
    });
    expect(r.responseMs).toEqual(r.phases.dnsMs);
    expect(dnsServer.questions).toContain(`${name} ${recordType}`);
  });

  it('expected answers: every one present, case-insensitive, trailing dot ignored', async () => {
    const ok = await probe.probe(
      dnsInput({ name: 'example.test', recordType: 'MX', expected: ['20 MX2.example.test.', '10 mx1.example.test'] }),
    );
    expect(ok.outcome).toBe('up');
    const cname = await probe.probe(
      dnsInput({ name: 'alias.example.test', recordType: 'CNAME', expected: ['www.other.test.'] }),
    );
    expect(cname.outcome).toBe('up');
    const bad = await probe.probe(dnsInput({ name: 'www.example.test', expected: ['192.0.2.10', '192.0.2.99'] }));
    expect(bad).toMatchObject({
      outcome: 'down',
      reason: 'dns_mismatch: missing 192.0.2.99',
      dnsAnswers: ['192.0.2.10', '192.0.2.11'],
    });
  });

  it('NXDOMAIN, no records, no answer in time', async () => {
    expect(await probe.probe(dnsInput({ name: 'nowhere.example.test' }))).toMatchObject({
      outcome: 'down',
      reason: 'dns_nxdomain',
      address: '127.0.0.1',
    });
    expect(await probe.probe(dnsInput({ name: 'empty.example.test' }))).toMatchObject({
      outcome: 'down',
      reason: 'dns_error: no A records',
      dnsAnswers: [],
    });
    expect(await probe.probe(dnsInput({ name: 'empty.example.test', expected: ['192.0.2.1'] }))).toMatchObject({
      outcome: 'down',
      reason: 'dns_mismatch: missing 192.0.2.1',
    });
    const started = Date.now();
    expect(await probe.probe(dnsInput({ name: 'slow.test', timeoutMs: 1000 }))).toMatchObject({
      outcome: 'down',
      reason: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('a resolver outside the allowed ranges is never asked (ssrf_blocked at check time)', async () => {
    const seen = dnsServer.questions.length;
    const strict = createDnsProbe({ guard: createSsrfGuard({ allowedCidrs: '' }) });
    expect(await strict.probe(dnsInput({ name: 'www.example.test' }))).toMatchObject({
      outcome: 'down',
      reason: 'ssrf_blocked',
    });
    expect(dnsServer.questions.length).toBe(seen);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// API and worker together
// ---------------------------------------------------------------------------------------------------------------

describe('monitors: certificates and DNS through the API and the worker', () => {
  let h: Harness;
  let token: string;
  let slot = Date.UTC(2031, 0, 1);
  beforeAll(async () => {
    h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
    token = (await makeWorkspace(h.prisma)).tokens.member;
  });
  afterAll(() => h.close());

  const post = (body: object) => request(h.app).post('/api/v1/monitors').set(bearer(token)).send(body);
  const patch = (id: string, body: object) =>
    request(h.app).patch(`/api/v1/monitors/${id}`).set(bearer(token)).send(body);
  const get = (id: string) => request(h.app).get(`/api/v1/monitors/${id}`).set(bearer(token));
  async function check(monitorId: string) {
    slot += 60_000;
    return runCheck(checkRunnerDeps(h, { extraCa: [soon.cert, later.cert] }), {
      monitorId,
      region: h.config.checkRegions[0]!,
      slot: new Date(slot),
    });
  }

  it('an https monitor shows its latest certificate; each result keeps its own', async () => {
    const created = await post({ name: 'tls', target: later.url });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ certificateExpiryDays: 7, certificate: null, dnsRecordType: null });
    const id = created.body.data.id as string;

    expect(await check(id)).toMatchObject({ result: { outcome: 'up' }, stored: true });
    const record = (await get(id)).body.data;
    expect(record.certificate).toMatchObject({
      subject: 'O=Statusvane Tests, CN=statusvane-test',
      issuer: 'O=Statusvane Tests, CN=statusvane-test',
    });
    expect(record.certificate.daysRemaining).toBeGreaterThanOrEqual(89);
    expect(Object.keys(record.certificate).sort()).toEqual(
      ['daysRemaining', 'fingerprint256', 'issuer', 'subject', 'validFrom', 'validTo'].sort(),
    );

    // The target moves to a certificate about to expire: the record forgets the old one until the next check.
    expect((await patch(id, { target: soon.url })).body.data.certificate).toBeNull();
    const failed = await check(id);
    expect(failed).toMatchObject({
      result: { outcome: 'down', reason: expect.stringMatching(/^certificate_expiring/) },
    });
    const after = (await get(id)).body.data;
    expect(after.certificate.fingerprint256).not.toBe(record.certificate.fingerprint256);
    expect(after.certificate.daysRemaining).toBe(2);

    const results = await h.prisma.checkResult.findMany({ where: { monitorId: id }, orderBy: { slot: 'asc' } });
    expect(results.map((r) => (r.certificate as { fingerprint256: string }).fingerprint256)).toEqual([
      record.certificate.fingerprint256,
      after.certificate.fingerprint256,
    ]);

    // Off: the same certificate no longer fails the check.
    expect((await patch(id, { certificateExpiryDays: null })).body.data.certificateExpiryDays).toBeNull();
    expect(await check(id)).toMatchObject({ result: { outcome: 'up' } });
  });

  it('every monitor of an expiring target opens its incident on its first check, the target checked before or not', async () => {
    // As in a worker: one set of probes for every check. Another monitor of the same target was checked first.
    const deps = checkRunnerDeps(h, { extraCa: [soon.cert, later.cert] });
    const first = async (id: string) => runCheck(deps, { monitorId: id, region: 'local', slot: new Date((slot += 1)) });
    const other = await post({ name: 'tls, no expiry rule', target: soon.url, certificateExpiryDays: null });
    expect(await first(other.body.data.id)).toMatchObject({
      result: { outcome: 'up', certificate: { daysRemaining: 2 } },
    });
    const ids = [];
    for (let i = 0; i < 12; i++) {
      const created = await post({ name: `tls ${i}`, target: soon.url, certificateExpiryDays: 7, openThreshold: 1 });
      expect(created.status).toBe(201);
      ids.push(created.body.data.id as string);
    }
    const outcomes = [await first(ids[0]!), ...(await Promise.all(ids.slice(1).map(first)))];
    expect(outcomes.map((o) => ('result' in o ? o.result.reason?.split(':')[0] : o.skipped))).toEqual(
      Array(12).fill('certificate_expiring'),
    );
    expect(outcomes.filter((o) => 'opened' in o && o.opened !== null)).toHaveLength(12);
  });

  it('certificateExpiryDays: 1..365 or null, http monitors only', async () => {
    for (const bad of [0, 366, 1.5, '7']) {
      const res = await post({ name: 'x', target: later.url, certificateExpiryDays: bad });
      expect(res.status).toBe(400);
      expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['certificateExpiryDays']);
    }
    expect((await post({ name: 'x', target: later.url, certificateExpiryDays: 365 })).status).toBe(201);
    const tcp = await post({ name: 'x', type: 'tcp', target: '127.0.0.1:443', certificateExpiryDays: 7 });
    expect(tcp.status).toBe(400);
  });

  it('a DNS monitor: created with defaults, checked, answers kept with the result', async () => {
    const created = await post({
      name: 'dns',
      type: 'dns',
      target: 'example.test',
      dnsRecordType: 'MX',
      dnsResolver: dnsServer.resolver,
      dnsExpected: ['10 mx1.example.test'],
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'dns',
      target: 'example.test',
      dnsRecordType: 'MX',
      dnsResolver: dnsServer.resolver,
      dnsExpected: ['10 mx1.example.test'],
      method: null,
      timeoutMs: 10_000,
      certificateExpiryDays: null,
      certificate: null,
    });
    const id = created.body.data.id as string;
    expect(await check(id)).toMatchObject({ type: 'dns', result: { outcome: 'up' }, stored: true });
    const [result] = await h.prisma.checkResult.findMany({ where: { monitorId: id } });
    expect(result!.dnsAnswers).toEqual(['10 mx1.example.test', '20 mx2.example.test']);
    expect(result!.address).toBe('127.0.0.1'); // the monitor's resolver

    const patched = await patch(id, { dnsExpected: ['30 mx3.example.test'] });
    expect(patched.status).toBe(200);
    expect(await check(id)).toMatchObject({
      result: { outcome: 'down', reason: 'dns_mismatch: missing 30 mx3.example.test' },
    });

    const defaults = await post({ name: 'dns', type: 'dns', target: 'www.example.test' });
    expect(defaults.body.data).toMatchObject({ dnsRecordType: 'A', dnsResolver: null, dnsExpected: [] });
  });

  it('bad DNS monitors: 400 naming every field', async () => {
    const res = await post({
      name: 'dns',
      type: 'dns',
      target: '192.0.2.1',
      dnsRecordType: 'PTR',
      dnsResolver: 'resolver.example.com',
      dnsExpected: Array.from({ length: 21 }, (_, i) => `192.0.2.${i}`),
      method: 'GET',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
      ['dnsExpected', 'dnsRecordType', 'dnsResolver', 'method', 'target'].sort(),
    );
    // The SSRF rules apply to the resolver, at write time (here: outside ALLOWED_TARGET_CIDRS).
    for (const resolver of ['10.0.0.53', '169.254.169.254:53', '[::1]:53', '0.0.0.0']) {
      const blocked = await post({ name: 'dns', type: 'dns', target: 'example.test', dnsResolver: resolver });
      expect(blocked.status).toBe(400);
      expect(blocked.body.error.details.issues).toEqual([
        { path: 'dnsResolver', message: expect.stringMatching(/not allowed/) },
      ]);
    }
    const created = await post({ name: 'dns', type: 'dns', target: 'example.test' });
    const id = created.body.data.id as string;
    const patched = await patch(id, { dnsResolver: '10.0.0.53', target: 'bad name', keyword: 'x' });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
      ['dnsResolver', 'keyword', 'target'].sort(),
    );
    // DNS fields on an http monitor are refused too.
    expect((await post({ name: 'x', target: later.url, dnsRecordType: 'A' })).status).toBe(400);
  });
});
