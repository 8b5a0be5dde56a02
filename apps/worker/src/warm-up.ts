import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSsrfGuard } from '@statusvane/shared';
import { createHttpProbe, type HttpProbeInput } from './probes/http.probe.js';
import { createLimit } from './processors/check.processor.js';

/** Loopback checks at once during the warm-up: enough for V8 to see the probe's code called in every order. */
const WARM_UP_CONCURRENCY = 50;

/** What a warm-up did: checks run, how many were up (all, unless something is broken), wall and CPU time it took. */
export interface WarmUpReport {
  checks: number;
  up: number;
  ms: number;
  cpuMs: number;
}

/**
 * Warms a fresh worker's check path before it takes jobs. V8 runs new code in its interpreter until a function has
 * been called often enough to be compiled, and a worker that starts under load (a deploy, or every worker starting at
 * once) spent 2-3 times the CPU of a warm one on each of its first few thousand checks: 100,000 monitors' checks ran
 * 2-3 s late for their first ten seconds (docs/benchmarks.md, twenty-first pass). So the worker first runs `checks` http
 * checks through the probe's own code (got, its agents and hooks, the evaluation) against a loopback server of its
 * own, at a few at once. Nothing is stored and nothing else is reached: the warm-up's probe has a guard of its own that
 * lets only 127.0.0.1 through, and asks only the warm-up's server.
 */
export async function warmUpHttpProbe(checks: number, userAgent?: string): Promise<WarmUpReport> {
  const cpuFrom = process.cpuUsage();
  const from = performance.now();
  const body = JSON.stringify({ status: 'ok' });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  let up: number;
  try {
    const probe = createHttpProbe({
      guard: createSsrfGuard({ allowedCidrs: '127.0.0.1/32' }),
      ...(userAgent ? { userAgent } : {}),
    });
    const input: HttpProbeInput = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      method: 'GET',
      headers: {},
      body: null,
      contentType: 'application/json',
      expectedStatusCodes: [],
      keyword: 'ok',
      keywordAbsent: null,
      jsonAssertion: null,
      timeoutMs: 5000,
      degradedAfterMs: null,
      latencyThresholdMs: null,
    };
    // The same limit a partition's members run under (a few at once here).
    const limit = createLimit(WARM_UP_CONCURRENCY);
    const results = await Promise.all(Array.from({ length: checks }, () => limit(() => probe.probe(input))));
    up = results.filter((r) => r.outcome === 'up').length;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  const cpu = process.cpuUsage(cpuFrom);
  return {
    checks,
    up,
    ms: Math.round(performance.now() - from),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  };
}
