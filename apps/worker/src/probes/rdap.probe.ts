/**
 * A domain's registration over RDAP (RFC 9082, 9083): its registry's server found in the DNS bootstrap file
 * (RFC 9224, RDAP_BOOTSTRAP_URL, IANA's by default), or RDAP_BASE_URL for every domain. No database, no queue:
 * checks/domain-lookups.ts shares each answer between monitors and workers (one lookup per domain per 6 h), and
 * `judgeDomain` turns it into a check result.
 *
 * - SSRF: the bootstrap file and the servers it names are reached through the guard (names by its lookup on the
 *   addresses dialled, IP literals before every hop, redirects included), as a probe's target is. RDAP_BASE_URL is
 *   the operator's own choice (tests point it at a fake on 127.0.0.1) and is dialled as it is, like the alert
 *   providers' URLs.
 * - Answers: 404 -> `not_found`; 200 with a JSON domain object -> `found`, `expiresAt` from its `expiration` event
 *   (null when the registry publishes none, which is never a failure), `registrar` from the `fn` of the entity with
 *   role `registrar` (else its handle); anything else (another status, no server for the TLD, a timeout, a body
 *   that is not an RDAP object) -> `error` with a reason code.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import got from 'got';
import { certificateDaysRemaining, expiresWithinDays, reasonForError, type SsrfGuard } from '@statusvane/shared';
import { downResult } from './result.js';
import { type ProbeResult, NO_PHASES } from './types.js';

export type RdapAnswer =
  | { kind: 'found'; expiresAt: string | null; registrar: string | null }
  | { kind: 'not_found' }
  | { kind: 'error'; reason: string };

export interface RdapClient {
  /** The registration of `domain` (normalized: lower case, ASCII, no trailing dot). Never throws. */
  lookup(domain: string): Promise<RdapAnswer>;
}

/** The bootstrap file is read again after this long (IANA updates it when a TLD moves, rarely). */
const BOOTSTRAP_TTL_MS = 24 * 3600_000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** RDAP servers of thin registries point elsewhere; a few hops are plenty. */
const MAX_REDIRECTS = 3;

type Bootstrap = Array<{ labels: string[]; url: string }>;

export function createRdapClient(options: {
  bootstrapUrl: string;
  /** One server for every domain (RDAP_BASE_URL): not guarded. */
  baseUrl: string | null;
  guard: SsrfGuard;
  timeoutMs?: number;
  userAgent?: string;
}): RdapClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { guard } = options;
  const httpAgent = new http.Agent({ keepAlive: false, lookup: guard.lookup });
  const httpsAgent = new https.Agent({ keepAlive: false, lookup: guard.lookup });
  const base = {
    headers: {
      accept: 'application/rdap+json, application/json',
      'user-agent': options.userAgent ?? 'Statusvane-RDAP/0.1',
    },
    throwHttpErrors: false,
    followRedirect: true,
    maxRedirects: MAX_REDIRECTS,
    retry: { limit: 0 },
    timeout: { request: timeoutMs },
    http2: false,
    responseType: 'text' as const,
  };
  const guarded = got.extend({
    ...base,
    dnsLookup: guard.lookup,
    agent: { http: httpAgent, https: httpsAgent },
    hooks: {
      beforeRequest: [
        async (opts) => {
          const host = (opts.url as URL | undefined)?.hostname.replace(/^\[(.*)\]$/, '$1') ?? '';
          if (net.isIP(host) !== 0) await guard.resolveAndCheck(host);
        },
      ],
    },
  });
  const unguarded = got.extend(base);

  let bootstrap: { at: number; services: Promise<Bootstrap> } | null = null;
  function services(): Promise<Bootstrap> {
    if (bootstrap && Date.now() - bootstrap.at < BOOTSTRAP_TTL_MS) return bootstrap.services;
    const loading = guarded(options.bootstrapUrl).then((res) => {
      if (res.statusCode !== 200)
        throw Object.assign(new Error('bootstrap'), { code: `bootstrap_http_${res.statusCode}` });
      return parseBootstrap(JSON.parse(res.body) as unknown);
    });
    bootstrap = { at: Date.now(), services: loading };
    // A failed read is not kept: the next lookup tries again.
    loading.catch(() => {
      if (bootstrap?.services === loading) bootstrap = null;
    });
    return loading;
  }

  return {
    async lookup(domain) {
      try {
        let server = options.baseUrl;
        if (server === null) {
          server = serverFor(await services(), domain);
          if (server === null) return { kind: 'error', reason: 'no RDAP server for this TLD in the bootstrap file' };
        }
        const url = `${server.replace(/\/+$/, '')}/domain/${encodeURIComponent(domain)}`;
        const res = await (options.baseUrl === null ? guarded : unguarded)(url);
        if (res.statusCode === 404) return { kind: 'not_found' };
        if (res.statusCode !== 200) return { kind: 'error', reason: `http_${res.statusCode}` };
        return parseDomainObject(JSON.parse(res.body) as unknown);
      } catch (err) {
        if (err instanceof SyntaxError) return { kind: 'error', reason: 'invalid_json' };
        const code = (err as { code?: unknown }).code;
        return {
          kind: 'error',
          reason: typeof code === 'string' && code.startsWith('bootstrap') ? code : reasonForError(err),
        };
      }
    },
  };
}

/** The bootstrap's services (RFC 9224 §4: `[[labels...], [urls...]]`), an https URL preferred. */
function parseBootstrap(doc: unknown): Bootstrap {
  const list = (doc as { services?: unknown })?.services;
  if (!Array.isArray(list)) throw Object.assign(new Error('bootstrap'), { code: 'bootstrap_invalid' });
  const out: Bootstrap = [];
  for (const entry of list) {
    if (!Array.isArray(entry) || !Array.isArray(entry[0]) || !Array.isArray(entry[1])) continue;
    const urls = (entry[1] as unknown[]).filter((u): u is string => typeof u === 'string');
    const url = urls.find((u) => u.startsWith('https://')) ?? urls[0];
    if (!url) continue;
    const labels = (entry[0] as unknown[])
      .filter((l): l is string => typeof l === 'string')
      .map((l) => l.toLowerCase());
    out.push({ labels, url });
  }
  return out;
}

/** The server of the longest suffix of `domain` the bootstrap lists (RFC 9224 §4: the longest match wins). */
function serverFor(services: Bootstrap, domain: string): string | null {
  const labels = domain.split('.');
  for (let i = 1; i < labels.length; i++) {
    const suffix = labels.slice(i).join('.');
    const found = services.find((s) => s.labels.includes(suffix));
    if (found) return found.url;
  }
  return null;
}

/** The expiry and registrar of an RDAP domain object (RFC 9083 §5.3). */
function parseDomainObject(doc: unknown): RdapAnswer {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { kind: 'error', reason: 'invalid_response' };
  const d = doc as { objectClassName?: unknown; events?: unknown; entities?: unknown };
  if (d.objectClassName !== undefined && d.objectClassName !== 'domain')
    return { kind: 'error', reason: 'invalid_response' };
  const events = Array.isArray(d.events) ? (d.events as Array<{ eventAction?: unknown; eventDate?: unknown }>) : [];
  const expiration = events.find(
    (e) => typeof e?.eventAction === 'string' && e.eventAction.toLowerCase() === 'expiration',
  );
  const date = typeof expiration?.eventDate === 'string' ? new Date(expiration.eventDate) : null;
  const expiresAt = date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
  return { kind: 'found', expiresAt, registrar: registrarOf(d.entities) };
}

function registrarOf(entities: unknown): string | null {
  if (!Array.isArray(entities)) return null;
  const registrar = (entities as Array<{ roles?: unknown; vcardArray?: unknown; handle?: unknown }>).find(
    (e) => Array.isArray(e?.roles) && e.roles.includes('registrar'),
  );
  if (!registrar) return null;
  // jCard (RFC 7095): ["vcard", [["fn", {}, "text", "Example Registrar, Inc."], ...]]
  const props = Array.isArray(registrar.vcardArray) ? (registrar.vcardArray[1] as unknown) : null;
  const fn = Array.isArray(props)
    ? (props as unknown[][]).find((p) => Array.isArray(p) && p[0] === 'fn' && typeof p[3] === 'string')
    : undefined;
  const name = (fn?.[3] as string | undefined) ?? (typeof registrar.handle === 'string' ? registrar.handle : null);
  return name ? name.slice(0, 200) : null;
}

/**
 * A domain monitor's result from its registry's answer at `now`: `domain_not_found`, `rdap_error: <reason>`,
 * `domain_expiring: expires <date> (<n> days)` when it expires within `expiryDays` (the certificate rule,
 * expiresWithinDays), else up; a registration without a published expiry is up (it never pages).
 */
export function judgeDomain(answer: RdapAnswer, now: Date, expiryDays: number): ProbeResult {
  if (answer.kind === 'not_found') return downResult('domain_not_found');
  if (answer.kind === 'error') return downResult(`rdap_error: ${answer.reason}`);
  if (answer.expiresAt !== null && expiresWithinDays(answer.expiresAt, now, expiryDays)) {
    const left = certificateDaysRemaining(answer.expiresAt, now);
    return downResult(`domain_expiring: expires ${answer.expiresAt} (${left} day${left === 1 ? '' : 's'})`);
  }
  return { outcome: 'up', reason: null, responseMs: null, statusCode: null, phases: { ...NO_PHASES } };
}
