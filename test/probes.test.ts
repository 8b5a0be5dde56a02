/**
 * Probe integration tests against REAL local servers on 127.0.0.0/8 (test/support/targets.ts).
 * Nothing here sends traffic off this machine: names are resolved by injected resolvers that answer
 * with loopback addresses, and the default resolver is only ever asked about `localhost`, which the
 * guard answers itself.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls, { createServer as createTlsServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SsrfResolver, createSsrfGuard } from '@statusvane/shared';
import {
  BODY_CAP_BYTES,
  DEFAULT_USER_AGENT,
  createHttpProbe,
  serverNameOf,
} from '../apps/worker/src/probes/http.probe.js';
import { type TcpProbeInput, createTcpProbe } from '../apps/worker/src/probes/tcp.probe.js';
import type { ProbeResult } from '../apps/worker/src/probes/types.js';
import {
  type RecordedRequest,
  type Target,
  type TcpTarget,
  type TlsTarget,
  findClosedPort,
  startTarget,
  startTcpTarget,
  startTlsTarget,
} from './support/targets.js';
import { makeHttpInput } from './support/probe-inputs.js';

const LOOPBACK = '127.0.0.0/8,::1/128';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A resolver for made-up names; never touches real DNS. */
function fakeResolver(table: Record<string, string>, delayMs = 0): SsrfResolver {
  return async (hostname) => {
    // unref: a probe that timed out stops waiting for this answer; it must not hold the test run open.
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs).unref());
    const address = table[hostname];
    if (!address) {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      throw err;
    }
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
}

function makeTcpInput(overrides: Partial<TcpProbeInput> & { host: string; port: number }): TcpProbeInput {
  return { timeoutMs: 2000, degradedAfterMs: null, latencyThresholdMs: null, ...overrides };
}

const lastPath = (t: Target) => t.requests.at(-1)?.path;
const requestsTo = (t: Target, prefix: string): RecordedRequest[] =>
  t.requests.filter((r) => r.path.startsWith(prefix));

function expectDown(r: ProbeResult, reason: string | RegExp): void {
  expect(r.outcome).toBe('down');
  if (typeof reason === 'string') expect(r.reason).toBe(reason);
  else expect(r.reason).toMatch(reason);
}

describe('http probe', () => {
  let a: Target; // 127.0.0.1
  let b: Target; // 127.0.0.1, another port (reached as `localhost` for cross-host redirects)
  let outside: Target; // 127.0.0.2: "internal" address for guards that only allow 127.0.0.1/32
  let tls: TlsTarget;
  const guard = createSsrfGuard({
    allowedCidrs: LOOPBACK,
    lookup: fakeResolver({ 'app.test': '127.0.0.1', 'evil.test': '127.0.0.2' }),
  });
  const { probe } = createHttpProbe({ guard });

  beforeAll(async () => {
    [a, b, outside, tls] = await Promise.all([
      startTarget(),
      startTarget(),
      startTarget({ host: '127.0.0.2' }),
      startTlsTarget(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close(), outside.close(), tls.close()]);
  });

  describe('healthy responses and timings', () => {
    it('is up on 200, with status, total time and phase timings', async () => {
      const r = await probe(makeHttpInput({ url: a.url('/') }));
      expect(r).toMatchObject({ outcome: 'up', reason: null, statusCode: 200, address: '127.0.0.1' });
      expect(typeof r.responseMs).toBe('number');
      expect(r.phases.dnsMs).toBeNull(); // IP literal: no lookup
      expect(r.phases.tlsMs).toBeNull(); // plain http
      expect(typeof r.phases.connectMs).toBe('number');
      expect(typeof r.phases.waitingMs).toBe('number');
      for (const v of [r.responseMs, r.phases.connectMs, r.phases.waitingMs]) expect(Number.isInteger(v)).toBe(true);
    });

    it('measures DNS for names (resolved through the guard)', async () => {
      const r = await probe(makeHttpInput({ url: `http://app.test:${a.port}/` }));
      expect(r.outcome).toBe('up');
      expect(typeof r.phases.dnsMs).toBe('number');
      expect(r.address).toBe('127.0.0.1');
      expect(lastPath(a)).toBe('/');
      // The address of the final hop: a redirect to 127.0.0.2 reports that one.
      const moved = await probe(makeHttpInput({ url: a.url(`/redirect?to=${encodeURIComponent(outside.url('/'))}`) }));
      expect([moved.outcome, moved.address]).toEqual(['up', '127.0.0.2']);
    });

    it('measures waiting time (time to first byte) of a slow response', async () => {
      const r = await probe(makeHttpInput({ url: a.url('/delay/200') }));
      expect(r.outcome).toBe('up');
      expect(r.phases.waitingMs).toBeGreaterThanOrEqual(150);
      expect(r.responseMs).toBeGreaterThanOrEqual(r.phases.waitingMs!);
    });

    it('sends our User-Agent, no cookies, and no keep-alive', async () => {
      await probe(makeHttpInput({ url: a.url('/echo-headers') }));
      const h = a.requests.at(-1)!.headers;
      expect(h['user-agent']).toBe(DEFAULT_USER_AGENT);
      expect(h.cookie).toBeUndefined();
      expect(h.connection).toBe('close');
    });

    it('decompresses gzip bodies before keyword checks', async () => {
      const r = await probe(
        makeHttpInput({ url: a.url('/gzip?text=compressed%20hello'), keyword: 'compressed hello' }),
      );
      expect(r.outcome).toBe('up');
    });

    it('treats any 2xx/3xx as healthy by default (a 3xx without Location is final)', async () => {
      expect((await probe(makeHttpInput({ url: a.url('/status/204') }))).outcome).toBe('up');
      expect((await probe(makeHttpInput({ url: a.url('/status/304') }))).outcome).toBe('up');
      expect((await probe(makeHttpInput({ url: a.url('/status/399') }))).outcome).toBe('up');
    });
  });

  describe('failure reasons', () => {
    it('unexpected status', async () => {
      const r = await probe(makeHttpInput({ url: a.url('/status/503') }));
      expectDown(r, 'unexpected_status:503');
      expect(r.statusCode).toBe(503);
      expect(typeof r.responseMs).toBe('number');
      expectDown(await probe(makeHttpInput({ url: a.url('/status/404') })), 'unexpected_status:404');
    });

    it('expectedStatusCodes replaces the 2xx/3xx default', async () => {
      expect((await probe(makeHttpInput({ url: a.url('/status/503'), expectedStatusCodes: [503] }))).outcome).toBe(
        'up',
      );
      expectDown(
        await probe(makeHttpInput({ url: a.url('/status/204'), expectedStatusCodes: [200] })),
        'unexpected_status:204',
      );
      expect((await probe(makeHttpInput({ url: a.url('/status/404'), expectedStatusCodes: [200, 404] }))).outcome).toBe(
        'up',
      );
    });

    it('timeout waiting for the response', async () => {
      const started = Date.now();
      const r = await probe(makeHttpInput({ url: a.url('/delay/2000'), timeoutMs: 300 }));
      expectDown(r, 'timeout');
      expect(r.responseMs).toBeNull();
      expect(r.statusCode).toBeNull();
      expect(r.address).toBe('127.0.0.1'); // connected, then no answer in time
      expect(Date.now() - started).toBeLessThan(1500);
    });

    it('timeout while the body is still arriving', async () => {
      const r = await probe(makeHttpInput({ url: a.url('/slow-body/2000'), timeoutMs: 300 }));
      expectDown(r, 'timeout');
    });

    it('timeout covers name resolution too', async () => {
      const slowDns = createSsrfGuard({
        allowedCidrs: LOOPBACK,
        lookup: fakeResolver({ 'slow.test': '127.0.0.1' }, 1000),
      });
      const started = Date.now();
      const r = await createHttpProbe({ guard: slowDns }).probe(
        makeHttpInput({ url: `http://slow.test:${a.port}/`, timeoutMs: 200 }),
      );
      expectDown(r, 'timeout');
      expect(Date.now() - started).toBeLessThan(900);
    });

    it('timeout covers the whole redirect chain, not each hop', async () => {
      // 3 hops of 150 ms: each alone is well within 350 ms, together they are not.
      expect((await probe(makeHttpInput({ url: a.url('/slow-chain/2/150'), timeoutMs: 2000 }))).outcome).toBe('up');
      expectDown(await probe(makeHttpInput({ url: a.url('/slow-chain/2/150'), timeoutMs: 350 })), 'timeout');
    });

    it('connection reset', async () => {
      expectDown(await probe(makeHttpInput({ url: a.url('/reset') })), 'connection_reset');
    });

    it('connection refused', async () => {
      const port = await findClosedPort();
      const r = await probe(makeHttpInput({ url: `http://127.0.0.1:${port}/` }));
      expectDown(r, 'connection_refused');
      expect(r.responseMs).toBeNull();
      expect(r.address).toBe('127.0.0.1'); // the address that refused
      const named = await probe(makeHttpInput({ url: `http://app.test:${port}/` }));
      expect([named.reason, named.address]).toEqual(['connection_refused', '127.0.0.1']);
    });

    it('dns error', async () => {
      const r = await probe(makeHttpInput({ url: `http://no-such-host.test:${a.port}/` }));
      expectDown(r, 'dns_error');
      expect(r.address).toBeUndefined(); // nothing dialled
    });

    it('tls error on an untrusted certificate, before any request is sent', async () => {
      const r = await probe(makeHttpInput({ url: tls.url('/') }));
      expectDown(r, 'tls_error');
      expect(tls.requests).toHaveLength(0);
      expect(r.address).toBe('127.0.0.1'); // connected; the handshake failed
    });

    it("names the server in TLS (SNI) as Node does: the Host header's name, else the host, never an IP address", async () => {
      // A server that records the name each handshake asks for, then refuses it: only what is sent matters here.
      const names: string[] = [];
      let connections = 0;
      const server = createTlsServer({
        SNICallback: (name, done) => {
          names.push(name);
          done(new Error('no certificate here'), undefined);
        },
      });
      server.on('connection', () => connections++);
      server.on('tlsClientError', () => undefined);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      try {
        for (const input of [
          { url: `https://app.test:${port}/` },
          { url: `https://127.0.0.1:${port}/` },
          { url: `https://127.0.0.1:${port}/`, headers: { Host: `site.test:${port}` } },
          { url: `https://app.test:${port}/`, headers: { Host: '[::1]' } },
        ]) {
          expect((await probe(makeHttpInput(input))).outcome).toBe('down');
        }
        expect(connections).toBe(4);
        expect(names).toEqual(['app.test', 'site.test']);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
      expect(serverNameOf('a.test', undefined)).toBe('a.test');
      expect(serverNameOf('a.test', 'b.test:8443')).toBe('b.test');
      expect(serverNameOf('a.test', '[2001:db8::1]:8443')).toBe('');
      expect(serverNameOf('10.0.0.1', '')).toBe('');
      expect(serverNameOf('a.test', '[b.test')).toBe('[b.test');
    });

    it('invalid target URLs', async () => {
      expectDown(await probe(makeHttpInput({ url: 'not a url' })), /^invalid_target/);
      expectDown(await probe(makeHttpInput({ url: `ftp://127.0.0.1:${a.port}/` })), /^invalid_target/);
      expectDown(await probe(makeHttpInput({ url: `http://user:pw@127.0.0.1:${a.port}/` })), /^invalid_target/);
    });
  });

  describe('keyword checks', () => {
    it('keyword must appear (case-sensitive substring)', async () => {
      expect(
        (await probe(makeHttpInput({ url: a.url('/body?text=All%20systems%20GO'), keyword: 'systems GO' }))).outcome,
      ).toBe('up');
      expectDown(
        await probe(makeHttpInput({ url: a.url('/body?text=All%20systems%20GO'), keyword: 'systems go' })),
        'keyword_missing',
      );
    });

    it('keywordAbsent must not appear', async () => {
      expectDown(
        await probe(makeHttpInput({ url: a.url('/body?text=fatal%20error'), keywordAbsent: 'error' })),
        'keyword_present',
      );
      expect((await probe(makeHttpInput({ url: a.url('/body?text=fine'), keywordAbsent: 'error' }))).outcome).toBe(
        'up',
      );
    });

    it('empty keywords are treated as unset', async () => {
      expect((await probe(makeHttpInput({ url: a.url('/body?text=x'), keyword: '', keywordAbsent: '' }))).outcome).toBe(
        'up',
      );
    });

    it('a HEAD check has no body: a keyword is missing', async () => {
      expectDown(
        await probe(makeHttpInput({ url: a.url('/body?text=hello'), method: 'HEAD', keyword: 'hello' })),
        'keyword_missing',
      );
    });
  });

  describe('JSON assertions', () => {
    it('passes and fails on the served JSON', async () => {
      a.setJson({ data: { items: [{ status: 'ok', load: 0.4 }] }, 'b.c': true });
      const url = a.url('/json');
      expect(
        (
          await probe(
            makeHttpInput({ url, jsonAssertion: { path: 'data.items[0].status', operator: 'eq', value: 'ok' } }),
          )
        ).outcome,
      ).toBe('up');
      expect(
        (
          await probe(
            makeHttpInput({ url, jsonAssertion: { path: '$.data.items[0].load', operator: 'lt', value: 0.9 } }),
          )
        ).outcome,
      ).toBe('up');
      expect(
        (await probe(makeHttpInput({ url, jsonAssertion: { path: '$["b.c"]', operator: 'eq', value: true } }))).outcome,
      ).toBe('up');
      expect(
        (await probe(makeHttpInput({ url, jsonAssertion: { path: 'data.error', operator: 'notExists' } }))).outcome,
      ).toBe('up');

      const failed = await probe(
        makeHttpInput({ url, jsonAssertion: { path: 'data.items[0].status', operator: 'eq', value: 'degraded' } }),
      );
      expectDown(failed, 'json_assertion_failed: data.items[0].status: expected "degraded", got "ok"');
      expect(failed.statusCode).toBe(200);
      expectDown(
        await probe(makeHttpInput({ url, jsonAssertion: { path: 'data.items[1].status', operator: 'exists' } })),
        'json_assertion_failed: data.items[1].status not found (no $.data.items[1])',
      );
    });

    it('a non-JSON body fails as invalid_json', async () => {
      expectDown(
        await probe(
          makeHttpInput({ url: a.url('/body?text=%3Chtml%3E'), jsonAssertion: { path: 'a', operator: 'exists' } }),
        ),
        'invalid_json',
      );
      expectDown(
        await probe(makeHttpInput({ url: a.url('/body?text='), jsonAssertion: { path: 'a', operator: 'notExists' } })),
        'invalid_json',
      );
    });
  });

  describe('latency rules', () => {
    it('slower than latencyThresholdMs is down', async () => {
      const r = await probe(makeHttpInput({ url: a.url('/delay/300'), latencyThresholdMs: 100 }));
      expectDown(r, /^latency_threshold_exceeded: \d+ms > 100ms$/);
      expect(r.responseMs).toBeGreaterThan(100);
      expect(r.statusCode).toBe(200);
    });

    it('slower than degradedAfterMs (but within latencyThresholdMs) is degraded', async () => {
      const r = await probe(
        makeHttpInput({ url: a.url('/delay/300'), degradedAfterMs: 100, latencyThresholdMs: 4000 }),
      );
      expect(r.outcome).toBe('degraded');
      expect(r.reason).toMatch(/^slow: \d+ms > 100ms$/);
    });

    it('the failing threshold wins over degraded when both are exceeded', async () => {
      expectDown(
        await probe(makeHttpInput({ url: a.url('/delay/300'), degradedAfterMs: 50, latencyThresholdMs: 100 })),
        /^latency_threshold_exceeded/,
      );
    });

    it('fast enough is up', async () => {
      const r = await probe(makeHttpInput({ url: a.url('/'), degradedAfterMs: 3000, latencyThresholdMs: 4000 }));
      expect(r).toMatchObject({ outcome: 'up', reason: null });
    });
  });

  it('evaluates in order: status, keyword, keywordAbsent, json, latency', async () => {
    a.setJson({ ok: false });
    const all = {
      keyword: 'nope',
      keywordAbsent: 'false',
      jsonAssertion: { path: 'ok', operator: 'eq' as const, value: true },
      latencyThresholdMs: 1,
    };
    expectDown(await probe(makeHttpInput({ url: a.url('/status/500'), ...all })), 'unexpected_status:500');
    expectDown(await probe(makeHttpInput({ url: a.url('/json'), ...all })), 'keyword_missing');
    expectDown(
      await probe(makeHttpInput({ url: a.url('/json'), ...all, keyword: 'ok', keywordAbsent: 'false' })),
      'keyword_present',
    );
    expectDown(
      await probe(makeHttpInput({ url: a.url('/json'), ...all, keyword: 'ok', keywordAbsent: 'zzz' })),
      /^json_assertion_failed/,
    );
    expectDown(
      await probe(
        makeHttpInput({
          url: a.url('/delay/50'),
          ...all,
          keyword: 'delayed',
          keywordAbsent: 'zzz',
          jsonAssertion: null,
        }),
      ),
      /^latency_threshold_exceeded/,
    );
  });

  describe('requests', () => {
    it('POST sends the body with contentType (which wins over a Content-Type header)', async () => {
      const r = await probe(
        makeHttpInput({
          url: a.url('/echo'),
          method: 'POST',
          body: '{"hello":"world"}',
          contentType: 'application/vnd.test+json',
          headers: { 'Content-Type': 'text/plain', 'X-Trace': 'abc' },
        }),
      );
      expect(r.outcome).toBe('up');
      const req = a.requests.at(-1)!;
      expect(req.method).toBe('POST');
      expect(req.body).toBe('{"hello":"world"}');
      expect(req.headers['content-type']).toBe('application/vnd.test+json');
      expect(req.headers['x-trace']).toBe('abc');
    });

    it('POST without a body sends an empty one', async () => {
      expect((await probe(makeHttpInput({ url: a.url('/echo'), method: 'POST' }))).outcome).toBe('up');
      const req = a.requests.at(-1)!;
      expect(req.method).toBe('POST');
      expect(req.body).toBe('');
      expect(req.headers['content-length']).toBe('0');
    });

    it('GET never sends the body', async () => {
      await probe(makeHttpInput({ url: a.url('/echo'), body: 'secret-body' }));
      expect(a.requests.at(-1)).toMatchObject({ method: 'GET', body: '' });
    });

    it('HEAD works', async () => {
      const r = await probe(makeHttpInput({ url: a.url('/body?text=hi'), method: 'HEAD' }));
      expect(r).toMatchObject({ outcome: 'up', statusCode: 200 });
      expect(a.requests.at(-1)?.method).toBe('HEAD');
    });
  });

  describe('redirects', () => {
    it('follows 5 redirects; the 6th is too_many_redirects', async () => {
      const five = await probe(makeHttpInput({ url: a.url('/redirect-chain/5'), keyword: 'chain end' }));
      expect(five).toMatchObject({ outcome: 'up', statusCode: 200 });
      const six = await probe(makeHttpInput({ url: a.url('/redirect-chain/6') }));
      expectDown(six, 'too_many_redirects');
      expect(six.statusCode).toBe(302);
      // 6 requests were made (the original + 5 redirects); the 6th redirect was not followed.
      expect(requestsTo(a, '/redirect-chain/0')).toHaveLength(1);
    });

    it('a redirect to a failing status fails with that status', async () => {
      expectDown(
        await probe(makeHttpInput({ url: a.url(`/redirect?to=${encodeURIComponent('/status/502')}`) })),
        'unexpected_status:502',
      );
    });

    it('keeps custom headers on a same-origin redirect', async () => {
      const before = a.requests.length;
      const r = await probe(
        makeHttpInput({
          url: a.url(`/redirect?to=${encodeURIComponent('/echo-headers?same')}`),
          headers: { 'X-Api-Key': 'k1', Authorization: 'Bearer t1' },
        }),
      );
      expect(r.outcome).toBe('up');
      const seen = a.requests.slice(before);
      expect(seen.map((q) => q.path)).toEqual([expect.stringMatching(/^\/redirect/), '/echo-headers?same']);
      for (const q of seen) expect(q.headers).toMatchObject({ 'x-api-key': 'k1', authorization: 'Bearer t1' });
    });

    it('drops every custom header on a cross-host redirect (127.0.0.1 -> localhost)', async () => {
      const beforeA = a.requests.length;
      const beforeB = b.requests.length;
      const target = `http://localhost:${b.port}/echo-headers?cross`;
      const r = await probe(
        makeHttpInput({
          url: a.url(`/redirect?to=${encodeURIComponent(target)}`),
          headers: { 'X-Api-Key': 'k1', Authorization: 'Bearer t1', 'User-Agent': 'custom-agent', Cookie: 'sid=1' },
        }),
      );
      expect(r).toMatchObject({ outcome: 'up', statusCode: 200 });
      const [first] = a.requests.slice(beforeA);
      expect(first?.headers).toMatchObject({
        'x-api-key': 'k1',
        authorization: 'Bearer t1',
        'user-agent': 'custom-agent',
        cookie: 'sid=1',
      });
      const second = b.requests.slice(beforeB);
      expect(second).toHaveLength(1);
      expect(second[0]?.path).toBe('/echo-headers?cross');
      expect(second[0]?.headers['x-api-key']).toBeUndefined();
      expect(second[0]?.headers.authorization).toBeUndefined();
      expect(second[0]?.headers.cookie).toBeUndefined();
      expect(second[0]?.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
      expect(second[0]?.headers.host).toBe(`localhost:${b.port}`);
    });

    it('a different port on the same host is a different origin', async () => {
      const beforeB = b.requests.length;
      await probe(
        makeHttpInput({
          url: a.url(`/redirect?to=${encodeURIComponent(b.url('/echo-headers?port'))}`),
          headers: { 'X-Api-Key': 'k1' },
        }),
      );
      const seen = b.requests.slice(beforeB);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.headers['x-api-key']).toBeUndefined();
    });

    it('does not restore headers when the chain comes back to the original host', async () => {
      const beforeA = a.requests.length;
      const back = a.url('/echo-headers?back');
      const viaB = b.url(`/redirect?to=${encodeURIComponent(back)}`);
      await probe(
        makeHttpInput({ url: a.url(`/redirect?to=${encodeURIComponent(viaB)}`), headers: { 'X-Api-Key': 'k1' } }),
      );
      const seen = a.requests.slice(beforeA);
      expect(seen.map((q) => q.path)).toEqual([expect.stringMatching(/^\/redirect/), '/echo-headers?back']);
      expect(seen[0]?.headers['x-api-key']).toBe('k1');
      expect(seen[1]?.headers['x-api-key']).toBeUndefined();
    });

    it('POST keeps method and body on 307, becomes GET without body on 303', async () => {
      const before = a.requests.length;
      await probe(
        makeHttpInput({
          url: a.url(`/redirect?status=307&to=${encodeURIComponent('/echo?307')}`),
          method: 'POST',
          body: 'payload',
        }),
      );
      await probe(
        makeHttpInput({
          url: a.url(`/redirect?status=303&to=${encodeURIComponent('/echo?303')}`),
          method: 'POST',
          body: 'payload',
        }),
      );
      const seen = a.requests.slice(before).filter((q) => q.path.startsWith('/echo'));
      expect(seen).toEqual([
        expect.objectContaining({ path: '/echo?307', method: 'POST', body: 'payload' }),
        expect.objectContaining({ path: '/echo?303', method: 'GET', body: '' }),
      ]);
    });
  });

  describe('body cap (1 MiB)', () => {
    it('reads only the first 1 MiB of a 5 MiB body: a keyword at the start is found, one at the end is not', async () => {
      const started = Date.now();
      expect((await probe(makeHttpInput({ url: a.url('/big'), keyword: 'BEGIN' }))).outcome).toBe('up');
      expectDown(await probe(makeHttpInput({ url: a.url('/big'), keyword: 'END' })), 'keyword_missing');
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('reads a body of exactly the cap completely, and stops one byte later', async () => {
      expect((await probe(makeHttpInput({ url: a.url(`/big?size=${BODY_CAP_BYTES}`), keyword: 'END' }))).outcome).toBe(
        'up',
      );
      expectDown(
        await probe(makeHttpInput({ url: a.url(`/big?size=${BODY_CAP_BYTES + 1}`), keyword: 'END' })),
        'keyword_missing',
      );
    });

    it('a JSON body cut by the cap is invalid_json, and says why', async () => {
      expectDown(
        await probe(makeHttpInput({ url: a.url('/big'), jsonAssertion: { path: 'a', operator: 'notExists' } })),
        `invalid_json: body truncated at ${BODY_CAP_BYTES} bytes`,
      );
    });

    it('the cap is configurable', async () => {
      const small = createHttpProbe({ guard, bodyCapBytes: 3 });
      expectDown(
        await small.probe(makeHttpInput({ url: a.url('/body?text=abcdef'), keyword: 'abcd' })),
        'keyword_missing',
      );
      expect((await small.probe(makeHttpInput({ url: a.url('/body?text=abcdef'), keyword: 'abc' }))).outcome).toBe(
        'up',
      );
    });
  });

  describe('SSRF', () => {
    const strict = createHttpProbe({ guard: createSsrfGuard({ allowedCidrs: '' }) });

    it('refuses loopback targets when loopback is not allowed; the target receives nothing', async () => {
      const before = a.requests.length;
      for (const url of [
        a.url('/'),
        `http://localhost:${a.port}/`,
        `http://2130706433:${a.port}/`,
        `http://127.1:${a.port}/`,
        `http://[::1]:${a.port}/`,
        `http://[::ffff:127.0.0.1]:${a.port}/`,
      ]) {
        const r = await strict.probe(makeHttpInput({ url }));
        expectDown(r, 'ssrf_blocked');
        expect(r.responseMs).toBeNull();
      }
      expect(a.requests.length).toBe(before);
    });

    it('refuses a redirect from an allowed target to a refused address; the second server receives nothing', async () => {
      const onlyA = createHttpProbe({
        guard: createSsrfGuard({ allowedCidrs: '127.0.0.1/32', lookup: fakeResolver({ 'evil.test': '127.0.0.2' }) }),
      });
      // Sanity: without the guard's refusal the second server is reachable.
      expect((await probe(makeHttpInput({ url: outside.url('/') }))).outcome).toBe('up');
      const reached = outside.requests.length;

      const beforeA = a.requests.length;
      const literal = await onlyA.probe(
        makeHttpInput({ url: a.url(`/redirect?to=${encodeURIComponent(outside.url('/secret'))}`) }),
      );
      expectDown(literal, 'ssrf_blocked');
      // A name that resolves to the refused address (DNS rebinding at redirect time).
      const named = await onlyA.probe(
        makeHttpInput({ url: a.url(`/redirect?to=${encodeURIComponent(`http://evil.test:${outside.port}/secret`)}`) }),
      );
      expectDown(named, 'ssrf_blocked');
      // localhost is refused too: it also means ::1, which 127.0.0.1/32 does not allow.
      const local = await onlyA.probe(
        makeHttpInput({ url: a.url(`/redirect?to=${encodeURIComponent(`http://localhost:${outside.port}/`)}`) }),
      );
      expectDown(local, 'ssrf_blocked');

      expect(a.requests.length - beforeA).toBe(3);
      expect(outside.requests.length).toBe(reached);
    });

    it('refuses a name resolving to a refused address at connect time', async () => {
      const onlyA = createHttpProbe({
        guard: createSsrfGuard({ allowedCidrs: '127.0.0.1/32', lookup: fakeResolver({ 'evil.test': '127.0.0.2' }) }),
      });
      const before = outside.requests.length;
      expectDown(await onlyA.probe(makeHttpInput({ url: `http://evil.test:${outside.port}/` })), 'ssrf_blocked');
      expect(outside.requests.length).toBe(before);
    });
  });

  it('runs many checks concurrently without sharing connections', async () => {
    const before = a.requests.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        probe(makeHttpInput({ url: a.url(`/echo-headers?n=${i}`), headers: { 'X-N': String(i) } })),
      ),
    );
    expect(results.every((r) => r.outcome === 'up')).toBe(true);
    const seen = a.requests.slice(before);
    expect(seen).toHaveLength(20);
    for (const q of seen) expect(q.headers['x-n']).toBe(new URL(q.path, 'http://x').searchParams.get('n'));
  });
});

describe('tcp probe', () => {
  let server: TcpTarget;
  const guard = createSsrfGuard({
    allowedCidrs: LOOPBACK,
    lookup: fakeResolver({ 'db.test': '127.0.0.1', 'evil.test': '127.0.0.2' }),
  });
  const { probe } = createTcpProbe({ guard });

  beforeAll(async () => {
    server = await startTcpTarget();
  });
  afterAll(async () => {
    await server.close();
  });

  it('is up when the port accepts, with connect time and no DNS for a literal', async () => {
    const before = server.connections();
    const r = await probe(makeTcpInput({ host: '127.0.0.1', port: server.port }));
    expect(r).toMatchObject({ outcome: 'up', reason: null, statusCode: null, address: '127.0.0.1' });
    expect(r.phases).toMatchObject({ dnsMs: null, tlsMs: null, waitingMs: null });
    expect(Number.isInteger(r.phases.connectMs)).toBe(true);
    expect(Number.isInteger(r.responseMs)).toBe(true);
    await sleep(50);
    expect(server.connections()).toBe(before + 1);
  });

  it('resolves names through the guard and measures DNS', async () => {
    const r = await probe(makeTcpInput({ host: 'db.test', port: server.port }));
    expect(r.outcome).toBe('up');
    expect(typeof r.phases.dnsMs).toBe('number');
    expect(r.address).toBe('127.0.0.1');
  });

  it('connection refused', async () => {
    const port = await findClosedPort();
    const r = await probe(makeTcpInput({ host: '127.0.0.1', port }));
    expectDown(r, 'connection_refused');
    expect(r.responseMs).toBeNull();
    expect(r.address).toBe('127.0.0.1'); // the address that refused
  });

  it('dns error', async () => {
    const r = await probe(makeTcpInput({ host: 'missing.test', port: server.port }));
    expectDown(r, 'dns_error');
    expect(r.address).toBeUndefined();
  });

  it('timeout (slow name resolution counts against the timeout)', async () => {
    const slow = createTcpProbe({
      guard: createSsrfGuard({ allowedCidrs: LOOPBACK, lookup: fakeResolver({ 'slow.test': '127.0.0.1' }, 1000) }),
    });
    const started = Date.now();
    expectDown(await slow.probe(makeTcpInput({ host: 'slow.test', port: server.port, timeoutMs: 150 })), 'timeout');
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('degraded and latency threshold apply to the total time', async () => {
    const slow = createTcpProbe({
      guard: createSsrfGuard({ allowedCidrs: LOOPBACK, lookup: fakeResolver({ 'slow.test': '127.0.0.1' }, 150) }),
    });
    const degraded = await slow.probe(makeTcpInput({ host: 'slow.test', port: server.port, degradedAfterMs: 50 }));
    expect(degraded.outcome).toBe('degraded');
    expect(degraded.reason).toMatch(/^slow: \d+ms > 50ms$/);
    expectDown(
      await slow.probe(
        makeTcpInput({ host: 'slow.test', port: server.port, degradedAfterMs: 50, latencyThresholdMs: 100 }),
      ),
      /^latency_threshold_exceeded: \d+ms > 100ms$/,
    );
  });

  it('refuses blocked addresses without connecting', async () => {
    const strict = createTcpProbe({
      guard: createSsrfGuard({ allowedCidrs: '127.0.0.1/32', lookup: fakeResolver({ 'evil.test': '127.0.0.2' }) }),
    });
    const other = await startTcpTarget({ host: '127.0.0.2' });
    try {
      expectDown(await strict.probe(makeTcpInput({ host: '127.0.0.2', port: other.port })), 'ssrf_blocked');
      expectDown(await strict.probe(makeTcpInput({ host: 'evil.test', port: other.port })), 'ssrf_blocked');
      expectDown(await strict.probe(makeTcpInput({ host: 'localhost', port: other.port })), 'ssrf_blocked');
      expectDown(
        await createTcpProbe({ guard: createSsrfGuard() }).probe(
          makeTcpInput({ host: '127.0.0.1', port: server.port }),
        ),
        'ssrf_blocked',
      );
      await sleep(50);
      expect(other.connections()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('invalid targets', async () => {
    expectDown(await probe(makeTcpInput({ host: '127.0.0.1', port: 0 })), /^invalid_target/);
    expectDown(await probe(makeTcpInput({ host: '127.0.0.1', port: 70000 })), /^invalid_target/);
    expectDown(await probe(makeTcpInput({ host: 'bad host', port: 80 })), /^invalid_target/);
  });
});

/** The PEM of the certificate a TLS server presents (read without verifying it). */
async function peerCertificatePem(host: string, port: number): Promise<string> {
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const socket = tls.connect({ host, port, rejectUnauthorized: false }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert.raw);
    });
    socket.on('error', reject);
  });
  const b64 = raw
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

describe('https timings', () => {
  const ROOT = fileURLToPath(new URL('..', import.meta.url));
  let target: TlsTarget;
  let dir: string;
  beforeAll(async () => {
    target = await startTlsTarget();
    dir = mkdtempSync(join(tmpdir(), 'sv-tls-'));
  });
  afterAll(async () => {
    await target.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The probe has no CA option (and needs none: public targets use public CAs). The test trusts its self-signed
  // certificate the way an operator would trust a private CA: NODE_EXTRA_CA_CERTS, read by Node at start-up, so the
  // probe runs in a child process started with it.
  it('an https target with a trusted certificate is up, with tls, connect and waiting times', async () => {
    writeFileSync(join(dir, 'ca.pem'), await peerCertificatePem(target.host, target.port));
    writeFileSync(
      join(dir, 'probe.mjs'),
      `const { createHttpProbe } = await import(process.env.PROBE_MODULE);
       const { createSsrfGuard } = await import(process.env.SHARED_MODULE);
       const { probe } = createHttpProbe({ guard: createSsrfGuard({ allowedCidrs: '127.0.0.0/8' }) });
       const input = JSON.parse(process.argv[2]);
       process.stdout.write(JSON.stringify(await probe(input)));`,
    );
    const input = makeHttpInput({ url: target.url('/timed') });
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, 'probe.mjs'), JSON.stringify(input)], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
        PROBE_MODULE: join(ROOT, 'apps/worker/src/probes/http.probe.ts'),
        SHARED_MODULE: join(ROOT, 'packages/shared/src/index.ts'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, err: code === 0 ? '' : err }).toEqual({ code: 0, err: '' });
    const r = JSON.parse(out) as ProbeResult;
    expect(r).toMatchObject({ outcome: 'up', reason: null, statusCode: 200 });
    expect(target.requests.map((q) => q.path)).toEqual(['/timed']);
    // Every phase of an https request over an IP literal: no DNS lookup, then connect, TLS handshake, first byte.
    expect(r.phases.dnsMs).toBeNull();
    for (const v of [r.phases.connectMs, r.phases.tlsMs, r.phases.waitingMs, r.responseMs]) {
      expect(Number.isInteger(v)).toBe(true);
      expect(v).toBeGreaterThanOrEqual(0);
    }
    expect(r.responseMs!).toBeGreaterThanOrEqual(r.phases.tlsMs!);
  }, 30_000);
});
