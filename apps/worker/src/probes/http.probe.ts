/**
 * HTTP(S) probe: one request (plus up to 5 redirects), evaluated into a ProbeResult. No database, no queue.
 *
 * Decisions (keep in sync with the report / ADR if one is written):
 * - Evaluation order: connection-level error -> status -> keyword -> keywordAbsent -> jsonAssertion ->
 *   responseSchema (`schema_mismatch: <instance path>: <message>`) -> certificateExpiryDays -> latencyThresholdMs
 *   (down) -> degradedAfterMs (degraded). The first failing step gives the reason.
 * - Workspace secrets (`{{secrets.NAME}}` in headers or body, filled in by the caller): the caller sends them only to
 *   a host of every such secret's allowedHosts, and `secretHosts` keeps each redirect on those hosts too
 *   (`secret_host_not_allowed`, checked before the redirect is followed: nothing is sent to the other host).
 * - Certificate: the leaf certificate of the first https hop of the chain (the target's own when the target is
 *   https; the first https redirect target when it is http), read from the socket once its response arrived. It is
 *   in the result whatever the outcome, null when no https hop completed a handshake. With `certificateExpiryDays`
 *   set, a check whose certificate expires in less than that many days (validTo - now < days * 24 h) fails with
 *   `certificate_expiring: expires <validTo> (<n> days)`. An untrusted or expired certificate never gets that far:
 *   Node refuses the handshake (`tls_error`).
 * - Status: `expectedStatusCodes` non-empty -> the final status must be in the list; empty -> any 2xx
 *   or 3xx is healthy. Redirects (Location + 300/301/302/303/304/307/308) are followed up to
 *   MAX_REDIRECTS = 5; the 6th redirect response fails with `too_many_redirects` (its status is kept
 *   in `statusCode`). A 3xx without Location is a final response and counts as healthy by default.
 * - Timeout: `timeoutMs` bounds the WHOLE check — all hops, hooks, DNS and body download — with an own
 *   deadline (got's own timeouts are not used: one more timer and its listeners on every hop). Reason `timeout`.
 * - Body: read as UTF-8 text (charset parameters are not honoured), after decompression (gzip,
 *   deflate, br), up to BODY_CAP_BYTES = 1 MiB of decoded bytes. Reading stops at the cap, the
 *   connection is closed and keyword / JSON checks run on what was read. Exceeding the cap is not a
 *   failure in itself; a JSON body cut by the cap will not parse and fails as
 *   `invalid_json: body truncated at 1048576 bytes`. The body is always read (up to the cap), even
 *   without body checks, so that `responseMs` always means "complete response".
 * - Empty-string `keyword` / `keywordAbsent` are treated as unset. Matching is a case-sensitive substring.
 * - `responseMs`: wall time from the start of the check to the end of the body (or the cap), across
 *   all redirect hops, rounded. Phases (dns/connect/tls/waiting) describe the FINAL hop; dnsMs is null
 *   for IP-literal hosts, tlsMs null for plain http. On failures without a response, responseMs and
 *   statusCode are null and the phases carry whatever had completed.
 * - Latency rules compare `responseMs > threshold` (strict). Both may be set: a check slower than
 *   latencyThresholdMs is down, else slower than degradedAfterMs is degraded.
 * - Request: method as given; `body` is sent only for POST (an empty body when null), with
 *   `Content-Type: contentType`, which wins over a Content-Type in `headers`. Custom headers override
 *   the default User-Agent / Accept. Redirects keep the method and body except on 303 (-> GET, no
 *   body), as got does by default (methodRewriting: false).
 * - Custom headers go only to the ORIGINAL origin. On a redirect to a different origin — scheme, host
 *   or port differs (`URL.origin`; so an https -> http downgrade on the same host also drops them) —
 *   every custom header is removed (a custom User-Agent / Accept falls back to ours), and they are
 *   not restored if the chain later returns to the original origin: once a chain has left, later
 *   hops are not trusted with them. (got itself also drops Authorization / Cookie / Host across
 *   origins.) The POST body is NOT a header: on a 307/308 it follows the redirect, per HTTP.
 * - SSRF: names are checked by the guard's `lookup` (got `dnsLookup` and the agents' `lookup`), on
 *   the exact addresses dialled, on every connection. IP-literal hosts never reach a lookup function,
 *   so hooks check them with `guard.resolveAndCheck`: got 14 runs `beforeRequest` before every hop
 *   (redirects included) and `beforeRedirect` checks the redirect target again, so either alone
 *   covers redirects and a change in got's hook order cannot silently open a hole. Names are not
 *   pre-resolved in the hooks (that would be a second, racy DNS query). Refusal: `ssrf_blocked`.
 * - `address`: the IP address of the final hop's connection (no port): the one its socket reached, or, when it
 *   never connected (refused, timed out), the one it dialled (the looked-up address, or the IP-literal host). Null
 *   when no hop dialled anything (a name that did not resolve, an SSRF refusal, an invalid target).
 * - Connections are never shared between checks (and so never between tenants): every request opens its own
 *   connection (the probe's agents open one for every request and keep none: connectionPerRequest), closed when
 *   its response ends or the check does, with a full TLS handshake
 *   (no session resumed: a resumed session shows no certificate). No cookie jar, no
 *   cache, no retries, no HTTP/2, no proxy. The options that are the same for every check are merged once
 *   (`got.extend`, the default headers included); a check passes only its method, and its headers, body
 *   and redirect context when it has them.
 */
import { Buffer } from 'node:buffer';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import got, { type Method, type RequestFunction, type Response, type Request as GotRequest } from 'got';
import {
  certificateDaysRemaining,
  expiresWithinDays,
  type CertificateInfo,
  type SsrfGuard,
  reasonForError,
} from '@statusvane/shared';
import { type JsonAssertion, evaluateJsonAssertion, hostAllowed, schemaMismatch } from '@statusvane/shared';
import type { ValidateFunction } from 'ajv';
import { applyLatencyRules, downResult, ProbeTimeoutError, truncateReason } from './result.js';
import type { ProbePhases, ProbeResult } from './types.js';

export const BODY_CAP_BYTES = 1024 * 1024;
/** Methods sent without a body (got refuses one): every other method sends its body, or an empty one. */
const BODYLESS = new Set(['GET', 'HEAD']);
export const MAX_REDIRECTS = 5;
/** The version the probes name in their User-Agent; test/detection.test.ts keeps it equal to package.json's. */
export const STATUSVANE_VERSION = '0.1.0';
export const DEFAULT_USER_AGENT = `Statusvane/${STATUSVANE_VERSION}`;

/** The User-Agent of a worker's probes: `Statusvane/<version> (region=<region>)`, unless the monitor sets its own. */
export function probeUserAgent(region: string): string {
  return `${DEFAULT_USER_AGENT} (region=${region})`;
}

export interface HttpProbeInput {
  url: string;
  method: 'GET' | 'HEAD' | 'POST';
  /** Custom request headers, already decrypted. */
  headers: Record<string, string>;
  /** Request body, already decrypted; sent for POST only. */
  body: string | null;
  contentType: string;
  /** Empty: any 2xx/3xx is healthy. */
  expectedStatusCodes: number[];
  keyword: string | null;
  keywordAbsent: string | null;
  jsonAssertion: JsonAssertion | null;
  timeoutMs: number;
  degradedAfterMs: number | null;
  latencyThresholdMs: number | null;
  /** Fail with `certificate_expiring` when the certificate expires within this many days; null or absent = off. */
  certificateExpiryDays?: number | null;
  /** The body must match this compiled JSON Schema (`schema_mismatch`); null or absent = none. */
  responseSchema?: ValidateFunction | null;
  /** The headers or body carry a workspace secret: the request may go only to these hosts (redirects included). */
  secretHosts?: readonly string[] | null;
}

export interface HttpProbeOptions {
  guard: SsrfGuard;
  userAgent?: string;
  /**
   * Certificates (PEM) trusted in addition to Node's root store. Tests use it for their self-signed targets; a
   * deployment with a private CA sets NODE_EXTRA_CA_CERTS instead.
   */
  extraCa?: readonly string[];
  /** Override of BODY_CAP_BYTES (tests, or a deployment that needs more). */
  bodyCapBytes?: number;
}

export interface HttpProbe {
  probe(input: HttpProbeInput): Promise<ProbeResult>;
  /** One request and its response (api steps): the probe's guard, redirects, caps and timings, no evaluation. */
  exchange(input: HttpExchangeInput): Promise<HttpExchange>;
}

export interface HttpExchangeInput {
  url: URL;
  method: string;
  /** Custom request headers, already decrypted and templated. */
  headers: Record<string, string>;
  /** Sent when not null. */
  body: string | null;
  /** When set (and a body is sent): the Content-Type, winning over one in `headers`. */
  contentType: string | null;
  timeoutMs: number;
  /** Keep the body's text (else it is read to its end and only counted). */
  keepBody: boolean;
  /** The request carries a workspace secret: every redirect must stay on these hosts. */
  secretHosts?: readonly string[] | null;
}

export type HttpExchange =
  | {
      ok: true;
      statusCode: number;
      headers: Record<string, string | string[] | undefined>;
      text: string;
      truncated: boolean;
      capBytes: number;
      responseMs: number;
      phases: ProbePhases;
      certificate: CertificateInfo | null;
      address: string | null;
    }
  | {
      ok: false;
      reason: string;
      statusCode: number | null;
      phases: ProbePhases | undefined;
      certificate: CertificateInfo | null;
      address: string | null;
    };

/** The target as a URL, or the reason it cannot be one (`invalid_target: ...`). */
export function probeUrl(target: string): URL | string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'invalid_target: not an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'invalid_target: scheme must be http or https';
  if (url.username !== '' || url.password !== '') return 'invalid_target: credentials in URL';
  return url;
}

/** `[::1]` -> `::1`; names and IPv4 unchanged. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

const ms = (v: number | undefined): number | null =>
  v === undefined || !Number.isFinite(v) ? null : Math.max(0, Math.round(v));

function phasesOf(request: GotRequest, url: URL | undefined): ProbePhases {
  const t = request.timings;
  if (!t) return { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null };
  const literal = url !== undefined && net.isIP(bareHost(url.hostname)) !== 0;
  return {
    // got reports dns = 0 when no lookup happened; for an IP literal there was none.
    dnsMs: literal || t.connect === undefined ? null : ms(t.phases.dns),
    connectMs: t.connect === undefined ? null : ms(t.phases.tcp),
    tlsMs: t.secureConnect === undefined ? null : ms(t.phases.tls),
    waitingMs: t.response === undefined ? null : ms(t.phases.firstByte),
  };
}

function statusAccepted(status: number, expected: readonly number[]): boolean {
  return expected.length > 0 ? expected.includes(status) : status >= 200 && status <= 399;
}

/** `{ O: 'A', CN: 'x' }` (a certificate's subject or issuer as Node gives it) -> `O=A, CN=x`. */
const distinguishedName = (name: Record<string, string | string[]> | undefined): string =>
  Object.entries(name ?? {})
    .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('+') : value}`)
    .join(', ');

/**
 * The leaf certificate of a response's TLS socket; null for plain http or when the socket no longer has it. Read
 * from the fields Node has already parsed (about 5 times cheaper than parsing the DER with X509Certificate).
 */
function certificateOf(response: { socket?: unknown } | undefined, now: Date): CertificateInfo | null {
  const socket = response?.socket;
  if (!(socket instanceof tls.TLSSocket)) return null;
  const cert = socket.getPeerCertificate();
  if (!cert?.valid_to) return null;
  const validFrom = new Date(cert.valid_from);
  const validTo = new Date(cert.valid_to);
  if (Number.isNaN(validFrom.getTime()) || Number.isNaN(validTo.getTime())) return null;
  return {
    subject: distinguishedName(cert.subject as unknown as Record<string, string | string[]>),
    issuer: distinguishedName(cert.issuer as unknown as Record<string, string | string[]>),
    validFrom: validFrom.toISOString(),
    validTo: validTo.toISOString(),
    daysRemaining: certificateDaysRemaining(validTo, now),
    fingerprint256: cert.fingerprint256,
  };
}

/** A response body as JSON (a BOM skipped), or `invalid_json` (saying so when the cap cut the body). */
export function parseJsonBody(r: {
  text: string;
  truncated: boolean;
  capBytes: number;
}): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(r.text.startsWith('\uFEFF') ? r.text.slice(1) : r.text) as unknown };
  } catch {
    return { ok: false, reason: r.truncated ? `invalid_json: body truncated at ${r.capBytes} bytes` : 'invalid_json' };
  }
}

/** Everything after a response was read: the evaluation order of the module docs. */
function evaluateResponse(
  input: HttpProbeInput,
  r: Omit<Extract<HttpExchange, { ok: true }>, 'ok' | 'headers'>,
  now: Date,
): ProbeResult {
  const base = {
    responseMs: r.responseMs,
    statusCode: r.statusCode,
    phases: r.phases,
    certificate: r.certificate,
    address: r.address,
  };
  if (!statusAccepted(r.statusCode, input.expectedStatusCodes))
    return downResult(`unexpected_status:${r.statusCode}`, base);
  if (input.keyword && !r.text.includes(input.keyword)) return downResult('keyword_missing', base);
  if (input.keywordAbsent && r.text.includes(input.keywordAbsent)) return downResult('keyword_present', base);
  if (input.jsonAssertion || input.responseSchema) {
    const doc = parseJsonBody(r);
    if (!doc.ok) return downResult(doc.reason, base);
    if (input.jsonAssertion) {
      const verdict = evaluateJsonAssertion(doc.value, input.jsonAssertion);
      if (!verdict.ok) return downResult(`json_assertion_failed: ${verdict.detail}`, base);
    }
    const mismatch = input.responseSchema ? schemaMismatch(input.responseSchema, doc.value) : null;
    if (mismatch) return downResult(mismatch, base);
  }
  const days = input.certificateExpiryDays;
  if (r.certificate && days !== null && days !== undefined && expiresWithinDays(r.certificate.validTo, now, days)) {
    const left = r.certificate.daysRemaining;
    return downResult(
      `certificate_expiring: expires ${r.certificate.validTo} (${left} day${left === 1 ? '' : 's'})`,
      base,
    );
  }
  const latency = applyLatencyRules(r.responseMs, input);
  return { outcome: latency.outcome, reason: latency.reason === null ? null : truncateReason(latency.reason), ...base };
}

/**
 * got's request function (what it calls for each hop, with the native options it built): Node's own, given only the
 * options got set. Why: on Node 20, defining properties on an object right after spreading another into it (`{ ...a,
 * b, c }`) is very slow (about 2.5 µs a property, V8 11.3), and both got's native options (about 40 properties after
 * a spread of the cache options) and Node's agent (which spreads the options it is given) do that on every hop: emptied
 * cache options (the beforeRequest hook) and no undefined entries took about a third off got's CPU per request and a
 * fifth off the probe's (issue 33, measured in one process against a local target). Same request: Node treats an
 * undefined option as an absent one.
 */
const nativeRequest = ((
  url: URL,
  options: Record<string, unknown>,
  callback?: (response: http.IncomingMessage) => void,
) => {
  const defined: Record<string, unknown> = {};
  for (const key in options) if (options[key] !== undefined) defined[key] = options[key];
  return (url.protocol === 'https:' ? https.request : http.request)(url, defined, callback);
}) as unknown as RequestFunction;

/**
 * A response's body up to `capBytes` (its chunks kept when `keep`, else only counted), or the stream's error. What a
 * `for await` over the stream gives, without its async iterator and a promise per chunk; at the cap it stops reading
 * (the caller destroys the stream and its socket).
 */
function readBody(
  stream: GotRequest,
  capBytes: number,
  keep: boolean,
): Promise<{ chunks: Buffer[]; size: number; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const done = (err?: Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) reject(err);
      else resolve({ chunks, size, truncated });
    };
    const onData = (chunk: Buffer) => {
      const room = capBytes - size;
      if (chunk.length > room) {
        if (room > 0 && keep) chunks.push(chunk.subarray(0, room));
        size += room;
        truncated = true;
        return done();
      }
      if (keep) chunks.push(chunk);
      size += chunk.length;
    };
    const onEnd = () => done();
    const onError = (err: Error) => done(err);
    // Closed with neither its end nor an error: what a `for await` rejects with.
    const onClose = () => done(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** A connection's options as an agent is given them (a copy of the request's own, made by Node for the agent). */
type ConnectionOptions = tls.ConnectionOptions & net.TcpNetConnectOpts;

/**
 * `agent`, made to open a new connection for every request and keep nothing: no pool, no socket counts, no free-socket
 * listeners, no TLS session. Node's Agent with keep-alive off never reuses a connection either, but tracks each one and
 * copies the options twice to open it: without that, the probe alone took about a sixth less CPU a check (issue 33).
 * Still an Agent of its kind, so that Node sends `Connection: close`, closes the connection when its response ends, and
 * checks the protocol and default port as it does; the options Node's Agent adds (no IPC path, Nagle off) are added
 * here. The server name (SNI) is Node's own choice: the Host header's name, else the host, never an IP address.
 */
function connectionPerRequest<A extends http.Agent>(
  agent: A,
  connect: (options: ConnectionOptions) => net.Socket,
  lookup: net.LookupFunction,
  ca: readonly string[] | undefined,
): A {
  (agent as unknown as { addRequest: unknown }).addRequest = (
    request: http.ClientRequest & { onSocket(socket: net.Socket): void },
    options: ConnectionOptions,
  ) => {
    // What Node's Agent merges into them: no IPC path (the request's `path` is the URL's), Nagle off.
    options.path = null as unknown as undefined;
    options.noDelay = true;
    options.lookup = lookup;
    if (ca) options.ca = ca as string[];
    if (connect === tls.connect && !options.servername && options.servername !== '') {
      options.servername = serverNameOf(options.host, request.getHeader('host'));
    }
    request.onSocket(connect(options));
  };
  return agent;
}

/** Node's server name for a TLS connection (its Agent's calculateServerName): the Host header's name or the host. */
export function serverNameOf(host: string | undefined, hostHeader: unknown): string {
  let name = host ?? '';
  if (typeof hostHeader === 'string' && hostHeader !== '') {
    if (hostHeader.startsWith('[')) {
      const end = hostHeader.indexOf(']');
      name = end === -1 ? hostHeader : hostHeader.slice(1, end);
    } else {
      name = hostHeader.split(':', 1)[0]!;
    }
  }
  return net.isIP(name) !== 0 ? '' : name;
}

/** What a request's hooks need to know about its check (got's per-request `context`). */
interface ProbeContext {
  [key: string]: unknown;
  originalOrigin: string;
  /** The monitor's custom header names (lower case): dropped when a redirect leaves the original origin. */
  customNames: readonly string[];
  /** The request carries a workspace secret: the hosts every hop must stay on (its allowedHosts), else null. */
  secretHosts: readonly string[] | null;
}

/** A redirect would take a workspace secret off its allowedHosts: reasonForError maps it to secret_host_not_allowed. */
class SecretHostError extends Error {
  readonly code = 'ESECRETHOST';
  constructor(host: string) {
    super(`a redirect to ${host} would carry a secret outside its allowedHosts`);
  }
}

export function createHttpProbe(options: HttpProbeOptions): HttpProbe {
  const { guard } = options;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const capBytes = options.bodyCapBytes ?? BODY_CAP_BYTES;
  const ca = options.extraCa?.length ? [...tls.rootCertificates, ...options.extraCa] : undefined;
  const defaults: Record<string, string> = { 'user-agent': userAgent, accept: '*/*' };

  // The IP literals the guard allowed: its verdict on an address never changes (its CIDRs are fixed when it is made),
  // and asking again cost about 2% of a check's CPU (normalising the address, matching each CIDR; issue 33). Bounded.
  const allowedLiterals = new Set<string>();

  /** IP literals bypass every lookup function, so they are checked here (names: by guard.lookup). */
  async function checkLiteralHost(url: URL | undefined): Promise<void> {
    if (!url) return;
    const host = bareHost(url.hostname);
    if (net.isIP(host) === 0 || allowedLiterals.has(host)) return;
    await guard.resolveAndCheck(host);
    if (allowedLiterals.size >= 1024) allowedLiterals.clear();
    allowedLiterals.add(host);
  }

  // One pair of agents for every check (connectionPerRequest): every request opens its own connection, so no check
  // ever shares one; no TLS session is given to a handshake either, so every check's tlsMs is a full handshake and its
  // certificate is seen. The guard's lookup on every connection, so none can be made with the default resolver.
  const httpAgent = connectionPerRequest(new http.Agent({ keepAlive: false }), net.connect, guard.lookup, undefined);
  const httpsAgent = connectionPerRequest(
    // No session cache either, should Node ever open a connection through the agent's own createConnection.
    new https.Agent({ keepAlive: false, maxCachedSessions: 0 }),
    tls.connect,
    guard.lookup,
    ca,
  );
  // Everything that is the same for every check, merged once (got normalises a request's options on every call: the
  // fewer given per request, the less each check costs).
  const client = got.extend({
    request: nativeRequest,
    followRedirect: true,
    maxRedirects: MAX_REDIRECTS,
    throwHttpErrors: false,
    retry: { limit: 0 },
    dnsLookup: guard.lookup,
    decompress: true,
    http2: false,
    agent: { http: httpAgent, https: httpsAgent },
    // A check without custom headers then passes none (got merges a request's headers over these).
    headers: defaults,
    hooks: {
      beforeRequest: [
        (opts) => {
          // We use no cache: its options emptied, so that got's copy of them into each hop's native options is cheap
          // (see nativeRequest).
          opts.cacheOptions = {};
          return checkLiteralHost(opts.url as URL | undefined);
        },
      ],
      beforeRedirect: [
        async (opts) => {
          const next = opts.url as URL | undefined;
          // Absent (got's empty default) for a check with neither custom headers nor secrets.
          const { originalOrigin, customNames, secretHosts } = opts.context as Partial<ProbeContext>;
          // Checked before anything else: the body of a 307/308 follows the redirect, headers or not.
          if (next && secretHosts && !hostAllowed(next.hostname, secretHosts)) throw new SecretHostError(next.hostname);
          if (next && customNames?.length && next.origin !== originalOrigin) {
            for (const name of customNames) {
              delete opts.headers[name];
              const fallback = defaults[name];
              if (fallback !== undefined) opts.headers[name] = fallback;
            }
          }
          await checkLiteralHost(next);
        },
      ],
    },
  });

  /**
   * One request and its response, read up to the cap: what both the http probe (probe, below) and api steps
   * (api.probe.ts) are built on, so that every request a monitor makes has the same SSRF guard, redirects, caps and
   * timings. Never throws: a request that got no response answers its reason.
   */
  async function exchange(input: HttpExchangeInput): Promise<HttpExchange> {
    const original = input.url;
    const sendsBody = input.body !== null;
    // Over the client's defaults (user agent, accept).
    const headers: Record<string, string> = {};
    const customNames: string[] = [];
    for (const name in input.headers) {
      const lower = name.toLowerCase();
      if (sendsBody && input.contentType !== null && lower === 'content-type') continue; // the contentType field wins
      headers[lower] = input.headers[name]!;
      customNames.push(lower);
    }
    if (sendsBody && input.contentType !== null) headers['content-type'] = input.contentType;

    const started = performance.now();
    let timedOut = false;
    let request: GotRequest | undefined;
    const deadline = setTimeout(() => {
      timedOut = true;
      request?.destroy(new ProbeTimeoutError(input.timeoutMs));
    }, input.timeoutMs);

    let certificate: CertificateInfo | null = null;
    let address: string | null = null;
    const lastUrl = (): URL => (request?.redirectUrls.at(-1) as URL | undefined) ?? original;

    try {
      const secretHosts = input.secretHosts ?? null;
      // got normalises every option a request passes: those a check does not need are left out. No got timeout: the
      // deadline above bounds the whole check, and got's would add a timer and listeners to every hop (issue 33).
      // `isStream` here rather than through `client.stream`, which copies the options once more to add it.
      const perCheck: Record<string, unknown> = { method: input.method, isStream: true };
      if (customNames.length > 0 || 'content-type' in headers) perCheck.headers = headers;
      // A got stream of a method that may carry a body waits for one to be written: without a body, an empty one.
      if (sendsBody || !BODYLESS.has(input.method)) perCheck.body = input.body ?? '';
      // What the redirect hook needs (beforeRedirect): nothing, without custom headers or secrets.
      if (customNames.length > 0 || secretHosts !== null) {
        perCheck.context = { originalOrigin: original.origin, customNames, secretHosts } satisfies ProbeContext;
      }
      request = client(original, perCheck as { method: Method; isStream: true });
      // Errors are consumed by `once` / readBody below; this keeps a late one (after we stopped
      // listening) from becoming an uncaught 'error' event.
      request.on('error', () => undefined);
      // Each hop's socket: the address it dials (an IP literal, or what the guard's lookup gave), then the one reached.
      request.on('socket', (socket: net.Socket) => {
        const host = bareHost(lastUrl().hostname);
        address = net.isIP(host) !== 0 ? host : null;
        socket.once('lookup', (err: Error | null, looked: unknown) => {
          if (!err && typeof looked === 'string') address = looked;
        });
        socket.once('connect', () => {
          address = socket.remoteAddress ?? address;
        });
      });
      // The first https hop's certificate: a redirect response is read here, before its socket goes away.
      request.on('redirect', (_options: unknown, redirectResponse: { socket?: unknown }) => {
        certificate ??= certificateOf(redirectResponse, new Date());
      });

      const [response] = (await once(request, 'response')) as [Response];
      certificate ??= certificateOf(response, new Date());
      const { chunks, size, truncated } = await readBody(request, capBytes, input.keepBody);
      if (timedOut) throw new ProbeTimeoutError(input.timeoutMs);
      return {
        ok: true,
        statusCode: response.statusCode,
        headers: response.headers,
        text: input.keepBody ? Buffer.concat(chunks, size).toString('utf8') : '',
        truncated,
        capBytes,
        responseMs: Math.round(performance.now() - started),
        phases: phasesOf(request, lastUrl()),
        certificate,
        address,
      };
    } catch (err) {
      const reason = timedOut ? 'timeout' : reasonForError(err);
      const statusCode = (err as { response?: { statusCode?: unknown } }).response?.statusCode;
      return {
        ok: false,
        reason,
        statusCode: reason === 'too_many_redirects' && typeof statusCode === 'number' ? statusCode : null,
        phases: request ? phasesOf(request, lastUrl()) : undefined,
        certificate,
        address: reason === 'ssrf_blocked' || reason === 'secret_host_not_allowed' ? null : address,
      };
    } finally {
      clearTimeout(deadline);
      if (request && !request.destroyed) request.destroy();
    }
  }

  async function probe(input: HttpProbeInput): Promise<ProbeResult> {
    const url = probeUrl(input.url);
    if (typeof url === 'string') return downResult(url);
    const sent = await exchange({
      url,
      method: input.method,
      headers: input.headers,
      // `body` is sent only for POST (an empty body when null), with `contentType`.
      body: input.method === 'POST' ? (input.body ?? '') : null,
      contentType: input.contentType,
      timeoutMs: input.timeoutMs,
      /** Only keyword, JSON and schema checks read the body's text; otherwise it is read to its end and only counted. */
      keepBody: Boolean(input.keyword || input.keywordAbsent || input.jsonAssertion || input.responseSchema),
      secretHosts: input.secretHosts ?? null,
    });
    if (!sent.ok) return downResult(sent.reason, sent);
    return evaluateResponse(input, sent, new Date());
  }

  return { probe, exchange };
}
