/**
 * DNS probe: ask one question (name, record type) of the monitor's resolver, or of the worker's system resolver, and
 * compare the answers with the expected ones. No database, no queue.
 *
 * Decisions:
 * - Answers are written as `dig +short` prints them: A/AAAA/CNAME/NS as the address or name, MX `10 mx.example.com`,
 *   SRV `0 5 5060 sip.example.com`, TXT the record's chunks joined, CAA `0 issue "letsencrypt.org"`. Names carry no
 *   trailing dot. They are kept with the result (`dnsAnswers`), in the resolver's order.
 * - `expected`: every one must be among the answers, compared case-insensitively without a trailing dot; otherwise
 *   `dns_mismatch: missing <values>`. With none expected, any answer passes.
 * - NXDOMAIN (c-ares ENOTFOUND) -> `dns_nxdomain`. A name without records of the type (NODATA): no answers, which
 *   fails as `dns_mismatch` when answers are expected and as `dns_error: no <type> records` otherwise. The
 *   resolver's own time limit or our deadline -> `timeout`. Anything else (SERVFAIL, REFUSED, a refused or
 *   unreachable resolver) -> `dns_error: <code>`.
 * - SSRF: the resolver address is asserted with the guard before every query (the API checked it at write time
 *   too), so a resolver added to a refused range later is not asked. The name asked is not an address we connect to.
 * - `address`: the resolver asked (its IP, no port): the monitor's, or the first of the worker's system resolvers (the
 *   one c-ares asks first). Recorded on failures too, once a query was sent.
 * - One try, no retries, `timeoutMs` bounding the whole query. `responseMs` and `dnsMs` are the query's time; the
 *   latency rules apply as for the other probes.
 */
import { Resolver } from 'node:dns/promises';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { type DnsRecordType, type SsrfGuard, parseDnsResolver, withTimeout, reasonForError } from '@statusvane/shared';
import { applyLatencyRules, downResult, ProbeTimeoutError, truncateReason } from './result.js';
import type { ProbeResult } from './types.js';

export interface DnsProbeInput {
  name: string;
  recordType: DnsRecordType;
  /** `ip[:port]`; null: the worker's system resolver. */
  resolver: string | null;
  expected: readonly string[];
  timeoutMs: number;
  degradedAfterMs: number | null;
  latencyThresholdMs: number | null;
}

export interface DnsProbe {
  probe(input: DnsProbeInput): Promise<ProbeResult>;
}

/** The answers to one question, as `dig +short` prints them. */
async function query(resolver: Resolver, name: string, type: DnsRecordType): Promise<string[]> {
  switch (type) {
    case 'A':
      return resolver.resolve4(name);
    case 'AAAA':
      return resolver.resolve6(name);
    case 'CNAME':
      return resolver.resolveCname(name);
    case 'NS':
      return resolver.resolveNs(name);
    case 'MX':
      return (await resolver.resolveMx(name)).map((r) => `${r.priority} ${r.exchange}`);
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    case 'SRV':
      return (await resolver.resolveSrv(name)).map((r) => `${r.priority} ${r.weight} ${r.port} ${r.name}`);
    case 'CAA':
      return (await resolver.resolveCaa(name)).map((r) => {
        const { critical, ...rest } = r as { critical: number } & Record<string, string>;
        const [tag, value] = Object.entries(rest)[0] ?? ['', ''];
        return `${critical} ${tag} "${value}"`;
      });
  }
}

/** The IP address of the server a resolver asks first (`getServers()` gives `ip`, `ip:port` or `[ipv6]:port`). */
function resolverAddress(resolver: Resolver): string | null {
  const [first] = resolver.getServers();
  if (first === undefined) return null;
  try {
    return parseDnsResolver(first).host;
  } catch {
    return null;
  }
}

/** Case-insensitive, without one trailing dot: how answers and expectations are compared. */
const comparable = (s: string) => s.trim().toLowerCase().replace(/\.$/, '');

export function createDnsProbe(options: { guard: SsrfGuard }): DnsProbe {
  const { guard } = options;

  async function probe(input: DnsProbeInput): Promise<ProbeResult> {
    const resolver = new Resolver({ timeout: input.timeoutMs, tries: 1 });
    if (input.resolver !== null) {
      try {
        const { host, port } = parseDnsResolver(input.resolver);
        guard.assertConnectAddress(host);
        resolver.setServers([net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`]);
      } catch (err) {
        const reason = reasonForError(err);
        return downResult(reason === 'ssrf_blocked' ? reason : `invalid_target: resolver ${(err as Error).message}`);
      }
    }
    const address = resolverAddress(resolver);
    const started = performance.now();
    let answers: string[];
    try {
      answers = await withTimeout(query(resolver, input.name, input.recordType), input.timeoutMs, () => {
        resolver.cancel();
        return new ProbeTimeoutError(input.timeoutMs, 'DNS query');
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code !== 'ENODATA') {
        const elapsed = Math.round(performance.now() - started);
        const phases = { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null };
        if (code === 'ENOTFOUND') return downResult('dns_nxdomain', { phases: { ...phases, dnsMs: elapsed }, address });
        // ETIMEOUT: the resolver's own limit; ECANCELLED: cancelled by our deadline (ProbeTimeoutError, ETIMEDOUT).
        if (code === 'ETIMEOUT' || code === 'ECANCELLED' || err instanceof ProbeTimeoutError)
          return downResult('timeout', { phases, address });
        return downResult(`dns_error: ${typeof code === 'string' ? code : 'query failed'}`, { phases, address });
      }
      answers = [];
    }
    const responseMs = Math.round(performance.now() - started);
    const base = {
      responseMs,
      statusCode: null,
      phases: { dnsMs: responseMs, connectMs: null, tlsMs: null, waitingMs: null },
      dnsAnswers: answers,
      address,
    };
    const have = new Set(answers.map(comparable));
    const missing = input.expected.filter((e) => !have.has(comparable(e)));
    if (missing.length > 0) return downResult(`dns_mismatch: missing ${missing.join(', ')}`, base);
    if (answers.length === 0) return downResult(`dns_error: no ${input.recordType} records`, base);
    const latency = applyLatencyRules(responseMs, input);
    return {
      outcome: latency.outcome,
      reason: latency.reason === null ? null : truncateReason(latency.reason),
      ...base,
    };
  }

  return { probe };
}
