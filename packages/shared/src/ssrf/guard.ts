/**
 * SSRF guard: the I/O half of the policy in address.ts.
 *
 * Two moments matter:
 *  - write time (API): `checkUrl` / `checkHostPort` refuse a monitor or webhook target up front with
 *    a readable reason.
 *  - connect time (workers): DNS answers can change between the write-time check and the request
 *    (DNS rebinding), and redirects can point anywhere. So the worker hands `guard.lookup` to
 *    `net.connect` / `http.Agent` / got (`dnsLookup`), which makes Node run the check on the exact
 *    addresses it is about to dial, on every connection and every redirect hop.
 *
 * IMPORTANT — IP literals bypass `lookup`: when the host is already an IP address (`net.isIP(host)`
 * is non-zero, e.g. `127.0.0.1`, `::1`, `::ffff:127.0.0.1`), Node's `net` connects directly and never
 * calls the `lookup` option. Connect-time code must therefore check literal hosts itself, e.g. with
 * `guard.assertConnectAddress(host)` before `net.connect`, or `await guard.resolveAndCheck(hostname)`
 * in got's `beforeRequest` / `beforeRedirect` hooks, which handles both literals and names. Legacy
 * numeric spellings that `net.isIP` does not recognise (`127.1`, `0x7f000001`) do go through
 * `lookup`, which normalises them before checking.
 */
import dns from 'node:dns';
import type { LookupAddress, LookupAllOptions, LookupOneOptions, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { withTimeout } from '../async/index.js';
import {
  type Cidr,
  type NormalisedHost,
  isAddressAllowed,
  isLocalhostName,
  isValidPort,
  normaliseHost,
  parseCidrList,
  parseHostPort,
} from './address.js';

/** Error passed to lookup callbacks / thrown by the guard when a target is refused. */
export class SsrfBlockedError extends Error {
  readonly code = 'ESSRF' as const;
  /** The host as given by the caller. */
  readonly hostname: string;
  /** The offending address, when the refusal is about a specific address. */
  readonly address: string | undefined;

  constructor(message: string, hostname: string, address?: string) {
    super(message);
    this.name = 'SsrfBlockedError';
    this.hostname = hostname;
    this.address = address;
  }
}

/**
 * Name resolver used by the guard: `dns.lookup(hostname, { all: true, ... })` in promise form.
 * Injectable so tests (and callers with their own resolver) need no real DNS.
 */
export type SsrfResolver = (
  hostname: string,
  options: { family: 0 | 4 | 6; hints?: number | undefined },
) => Promise<readonly LookupAddress[]>;

type LookupOneCallback = (err: NodeJS.ErrnoException | null, address: string, family: number) => void;
type LookupAllCallback = (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** Same call signatures as `dns.lookup` (callback style); usable as `net.LookupFunction`. */
export interface SsrfLookupFunction {
  (hostname: string, callback: LookupOneCallback): void;
  (hostname: string, family: number, callback: LookupOneCallback): void;
  (hostname: string, options: LookupOneOptions, callback: LookupOneCallback): void;
  (hostname: string, options: LookupAllOptions, callback: LookupAllCallback): void;
  (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void;
}

// Compile-time proof that the guard's lookup can be passed wherever Node/got expect a lookup.
type Assert<T extends true> = T;
type _LookupIsNetCompatible = Assert<SsrfLookupFunction extends LookupFunction ? true : false>;

export type SsrfCheckResult =
  | { ok: true; host: string; port: number; addresses: string[] }
  | {
      ok: false;
      /** invalid: malformed/forbidden target; blocked: resolves to a refused address; dns: lookup failed or timed out. */
      code: 'invalid' | 'blocked' | 'dns';
      reason: string;
    };

export interface SsrfGuardOptions {
  /** Parsed ALLOWED_TARGET_CIDRS, or the raw comma-separated string. Default: nothing allowed. */
  allowedCidrs?: readonly Cidr[] | string | undefined;
  /** Replaces the default `dns.lookup(..., { all: true })` resolver (tests). */
  lookup?: SsrfResolver | undefined;
  /**
   * Bound on the name lookup of the write-time checks (`checkUrl`, `checkHostPort`), in ms; default
   * WRITE_TIME_DNS_TIMEOUT_MS. A lookup that takes longer ends as a `dns` result, like a name that does not resolve.
   * Connect-time lookups (`lookup`, `resolveAndCheck`) are bounded by the caller's own request timeout instead.
   */
  writeTimeLookupTimeoutMs?: number | undefined;
}

/**
 * `dns.lookup` runs getaddrinfo on libuv's small thread pool and has no timeout of its own: an API request that
 * waits for a slow resolver would hang with it. The answer is given up on after this long; the lookup itself cannot
 * be cancelled and finishes (or times out in the system resolver) in the background.
 */
export const WRITE_TIME_DNS_TIMEOUT_MS = 2500;

export interface SsrfGuard {
  readonly allowedCidrs: readonly Cidr[];
  /** Write-time check of an http(s) URL: scheme, credentials, port, then every resolved address. */
  checkUrl(url: string): Promise<SsrfCheckResult>;
  /** Write-time check of a TCP target `host:port` / `[v6]:port` (or an already split object). */
  checkHostPort(target: string | { host: string; port: number }): Promise<SsrfCheckResult>;
  /**
   * `dns.lookup`-compatible function that resolves, then fails with an `SsrfBlockedError`
   * (code 'ESSRF') if ANY resolved address is refused. Pass as `lookup` to `net.connect` /
   * `http.Agent`, or as got's `dnsLookup`. Not called by Node for IP-literal hosts — see module docs.
   */
  readonly lookup: SsrfLookupFunction;
  /** Throw `SsrfBlockedError` unless `ip` may be connected to. For IP-literal hosts at connect time. */
  assertConnectAddress(ip: string): void;
  /**
   * Resolve `host` (IP literal in any spelling, bracketed IPv6, or name) and return the addresses,
   * throwing `SsrfBlockedError` if any is refused (DNS errors are rethrown as-is).
   */
  resolveAndCheck(host: string): Promise<string[]>;
}

const defaultResolver: SsrfResolver = (hostname, { family, hints }) =>
  // verbatim: keep the resolver's order; we check every address anyway, so the order is the caller's business.
  dns.promises.lookup(hostname, { all: true, family, hints, verbatim: true });

function notFound(hostname: string): NodeJS.ErrnoException {
  // Shaped like the error dns.lookup produces, so callers' existing handling applies.
  const err: NodeJS.ErrnoException & { hostname?: string } = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  err.code = 'ENOTFOUND';
  err.syscall = 'getaddrinfo';
  err.hostname = hostname;
  return err;
}

function lookupTimedOut(hostname: string, ms: number): NodeJS.ErrnoException {
  // ETIMEOUT is the code Node's resolver uses for a DNS timeout (dns.TIMEOUT).
  const err: NodeJS.ErrnoException & { hostname?: string } = new Error(
    `DNS lookup of ${hostname} took longer than ${ms} ms`,
  );
  err.code = 'ETIMEOUT';
  err.syscall = 'getaddrinfo';
  err.hostname = hostname;
  return err;
}

function parseFamily(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === undefined || family === 0) return 0;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  // dns.lookup throws synchronously on a bad family as well.
  throw new TypeError(`Invalid lookup family: ${String(family)}`);
}

const LOCALHOST_ADDRESSES: readonly LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

export function createSsrfGuard(options: SsrfGuardOptions = {}): SsrfGuard {
  const allowed: readonly Cidr[] = Object.freeze(
    typeof options.allowedCidrs === 'string' ? parseCidrList(options.allowedCidrs) : [...(options.allowedCidrs ?? [])],
  );
  const resolver = options.lookup ?? defaultResolver;
  const writeTimeLookupTimeoutMs = options.writeTimeLookupTimeoutMs ?? WRITE_TIME_DNS_TIMEOUT_MS;

  /** Check one address; throws SsrfBlockedError on refusal. `context` prefixes the message. */
  function assertAllowed(address: string, hostname: string, context: string): void {
    const verdict = isAddressAllowed(address, allowed);
    if (!verdict.ok) throw new SsrfBlockedError(`${context}: ${verdict.reason}`, hostname, address);
  }

  /**
   * Core of every check: normalise, resolve (names only), check every address.
   * Returns canonical addresses (what Node should dial); throws SsrfBlockedError or a DNS error.
   */
  async function resolveChecked(
    hostname: string,
    family: 0 | 4 | 6,
    hints?: number,
    timeoutMs?: number,
  ): Promise<LookupAddress[]> {
    let host: NormalisedHost;
    try {
      host = normaliseHost(hostname);
    } catch (err) {
      throw new SsrfBlockedError((err as Error).message, hostname);
    }

    if (host.kind === 'ip') {
      // Numeric spellings never reach DNS: `0x7f.1` is 127.0.0.1 whatever a resolver might claim.
      if (family !== 0 && family !== host.family) throw notFound(hostname);
      assertAllowed(host.address, hostname, `Refusing ${hostname}`);
      return [{ address: host.address, family: host.family }];
    }

    const localhost = isLocalhostName(host.name);
    // localhost is loopback by definition (RFC 6761) — answered locally, never by DNS or /etc/hosts.
    const name = host.name;
    const raw = localhost
      ? LOCALHOST_ADDRESSES
      : timeoutMs === undefined
        ? await resolver(name, { family, hints })
        : await withTimeout(
            Promise.resolve().then(() => resolver(name, { family, hints })),
            timeoutMs,
            () => lookupTimedOut(hostname, timeoutMs),
          );
    const results: LookupAddress[] = [];
    for (const entry of raw) {
      let resolved: NormalisedHost;
      try {
        resolved = normaliseHost(entry.address);
      } catch {
        resolved = { kind: 'name', name: entry.address };
      }
      if (resolved.kind !== 'ip') {
        throw new SsrfBlockedError(
          `Refusing ${hostname}: resolver returned a non-IP answer ${JSON.stringify(entry.address)}`,
          hostname,
        );
      }
      if (family !== 0 && resolved.family !== family) continue;
      results.push({ address: resolved.address, family: resolved.family });
    }
    if (results.length === 0) throw notFound(hostname);
    // Every address must pass: clients may pick any of them (happy eyeballs, retries), and an
    // attacker only needs one internal answer among public ones.
    const context = localhost
      ? `Refusing ${hostname} (localhost names are always loopback)`
      : `Refusing ${hostname}: it resolves to a refused address`;
    for (const r of results) assertAllowed(r.address, hostname, context);
    return results;
  }

  async function checkHost(hostname: string, port: number): Promise<SsrfCheckResult> {
    let host: NormalisedHost;
    try {
      host = normaliseHost(hostname);
    } catch (err) {
      return { ok: false, code: 'invalid', reason: (err as Error).message };
    }
    if (!isValidPort(port))
      return { ok: false, code: 'invalid', reason: `Port must be a number from 1 to 65535, got ${port}` };
    try {
      const addresses = await resolveChecked(hostname, 0, undefined, writeTimeLookupTimeoutMs);
      return {
        ok: true,
        host: host.kind === 'ip' ? host.address : host.name,
        port,
        addresses: addresses.map((a) => a.address),
      };
    } catch (err) {
      if (err instanceof SsrfBlockedError) return { ok: false, code: 'blocked', reason: err.message };
      const e = err as NodeJS.ErrnoException;
      return { ok: false, code: 'dns', reason: `Could not resolve ${hostname}: ${e.code ?? e.message}` };
    }
  }

  async function checkUrl(url: string): Promise<SsrfCheckResult> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return { ok: false, code: 'invalid', reason: 'Not a valid absolute URL' };
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') {
      return {
        ok: false,
        code: 'invalid',
        reason: `URL scheme "${u.protocol.slice(0, -1)}" is not allowed; use http or https`,
      };
    }
    // Credentials in target URLs would be stored and logged in clear, and `user@host` is a classic
    // way to make a URL look like it points somewhere it does not.
    if (u.username !== '' || u.password !== '') {
      return { ok: false, code: 'invalid', reason: 'URLs must not contain credentials (user:password@)' };
    }
    // The URL parser has already rejected ports > 65535; port 0 is still possible.
    const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
    return checkHost(u.hostname, port);
  }

  async function checkHostPort(target: string | { host: string; port: number }): Promise<SsrfCheckResult> {
    let parsed: { host: string; port: number };
    try {
      parsed = typeof target === 'string' ? parseHostPort(target) : { host: target.host, port: target.port };
    } catch (err) {
      return { ok: false, code: 'invalid', reason: (err as Error).message };
    }
    return checkHost(parsed.host, parsed.port);
  }

  // Implemented loosely and cast: TypeScript cannot express an overloaded implementation for a
  // function value; the overloads are declared on SsrfLookupFunction.
  const lookup = ((hostname: string, optionsOrCallback: unknown, maybeCallback?: unknown): void => {
    let opts: LookupOptions;
    let callback: unknown;
    if (typeof optionsOrCallback === 'function') {
      opts = {};
      callback = optionsOrCallback;
    } else if (typeof optionsOrCallback === 'number') {
      opts = { family: optionsOrCallback };
      callback = maybeCallback;
    } else {
      opts = (optionsOrCallback ?? {}) as LookupOptions;
      callback = maybeCallback;
    }
    if (typeof callback !== 'function') throw new TypeError('lookup: callback must be a function');
    const cb = callback as (
      err: NodeJS.ErrnoException | null,
      address?: string | LookupAddress[],
      family?: number,
    ) => void;
    const family = parseFamily(opts.family);

    resolveChecked(hostname, family, opts.hints).then(
      (addresses) => {
        // nextTick: an exception thrown by the callback must surface like one from dns.lookup,
        // not become an unhandled rejection of this promise chain.
        process.nextTick(() => {
          if (opts.all) {
            cb(null, addresses);
          } else {
            const [first] = addresses; // non-empty: resolveChecked throws ENOTFOUND otherwise
            cb(null, first?.address, first?.family);
          }
        });
      },
      (err: NodeJS.ErrnoException) => process.nextTick(() => cb(err)),
    );
  }) as SsrfLookupFunction;

  return {
    allowedCidrs: allowed,
    checkUrl,
    checkHostPort,
    lookup,
    assertConnectAddress(ip: string): void {
      assertAllowed(ip, ip, `Refusing to connect to ${ip}`);
    },
    async resolveAndCheck(host: string): Promise<string[]> {
      return (await resolveChecked(host, 0)).map((a) => a.address);
    },
  };
}
