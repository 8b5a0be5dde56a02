import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { decimalInteger } from '../schemas/common.js';
import { parseCidrList } from '../ssrf/index.js';

const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
const regionName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a region is 1-40 lower-case letters, digits or hyphens')
  // `region=all` in the response-time history means "every region" (decisions: the record's region is the filter, or `all`).
  .refine((v) => v !== 'all', '`all` is reserved (it means every region in the response-time history)');

/**
 * A 32-byte key, written as 64 hex characters, or as base64 / base64url (43 characters, with or without `=`).
 * Strict: Node's base64 decoder skips characters outside the alphabet and ignores stray bits, so `Buffer.from`
 * alone would take a mistyped key (or a password) for some other key. Only the canonical spelling is accepted.
 */
export function decodeKey(value: string): Buffer | null {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const std = /^[A-Za-z0-9+/]{43}=?$/.test(trimmed);
  const url = /^[A-Za-z0-9_-]{43}=?$/.test(trimmed);
  if (!std && !url) return null;
  const body = trimmed.replace(/=$/, '');
  const b = Buffer.from(body, std ? 'base64' : 'base64url');
  // 43 characters carry 258 bits: the last one's two low bits must be zero, or it is not the encoding of 32 bytes.
  if (b.length !== 32 || b.toString(std ? 'base64' : 'base64url').replace(/=$/, '') !== body) return null;
  return b;
}
const KEY_HINT = 'must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)';
const keySchema = z.string().refine((v) => decodeKey(v) !== null, KEY_HINT);

/** A whole number in decimal digits, as query parameters take it (surrounding blanks of an env file aside). */
const int = (min: number, max: number) => z.string().trim().pipe(decimalInteger(min, max));

/** One `host:port` of REDIS_CLUSTER_NODES: a host name or IPv4 address, or a bracketed IPv6 address. */
function clusterNode(entry: string): RedisNode | null {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]{1,253})):([0-9]{1,5})$/.exec(entry);
  if (!m) return null;
  const host = m[1] ?? m[2]!;
  const port = Number(m[3]);
  if (port < 1 || port > 65535 || (m[1] !== undefined && !ipaddr.IPv6.isValid(host))) return null;
  return { host, port };
}
const clusterNodesSchema = z
  .string()
  .trim()
  .transform((v, ctx): RedisNode[] => {
    const entries = v
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    const nodes = entries.map(clusterNode);
    const bad = entries.filter((_, i) => nodes[i] === null);
    if (bad.length || entries.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `must be comma-separated host:port pairs${bad.length ? ` (not: ${bad.slice(0, 3).join(', ')})` : ''}`,
      });
      return z.NEVER;
    }
    return nodes as RedisNode[];
  });

const TRUST_PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'] as const;
/** An IP address or CIDR as Express's `trust proxy` (proxy-addr) reads it, in its plain spellings only. */
function proxyAddress(entry: string): boolean {
  const [ip, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !ip) return false;
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(ip);
  const v6 = !v4 && ipaddr.IPv6.isValid(ip) && !ip.includes('%');
  if (!v4 && !v6) return false;
  if (bits === undefined) return true;
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= (v4 ? 32 : 128);
}
/**
 * Which proxies in front of the API to believe about the client address (X-Forwarded-For): `false` (none, the
 * default), a hop count, or a comma-separated list of IPs, CIDRs and `loopback` / `linklocal` / `uniquelocal`.
 * `true` (believe any hop) is refused: any client could then choose its own address.
 */
const trustProxySchema = z
  .string()
  .trim()
  .default('false')
  .transform((v, ctx): false | number | string[] => {
    if (v === 'false' || v === '0') return false;
    if (/^[0-9]{1,3}$/.test(v)) return Number(v);
    const entries = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = entries.filter((e) => !(TRUST_PROXY_NAMES as readonly string[]).includes(e) && !proxyAddress(e));
    if (v === 'true' || entries.length === 0 || bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message:
          v === 'true'
            ? 'true would let any client choose its own address: give the number of proxies in front of the API (e.g. 1) or their addresses'
            : `must be false, a hop count, or comma-separated IPs, CIDRs, loopback, linklocal or uniquelocal${bad.length ? ` (not understood: ${bad.join(', ')})` : ''}`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** An origin exactly as a browser sends it in `Origin`: http(s), lower-case host, a port only when not the default. */
function isSerializedOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * Which browser origins may call the management API (CORS): a comma-separated list of origins, or `*` for any.
 * Empty (the default): none, and no CORS headers at all.
 */
const corsOriginsSchema = z
  .string()
  .default('')
  .transform((v, ctx): '*' | string[] => {
    const entries = [
      ...new Set(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    if (entries.includes('*')) {
      if (entries.length === 1) return '*';
      ctx.addIssue({ code: 'custom', message: '* already allows every origin: give it alone, or list origins' });
      return z.NEVER;
    }
    const bad = entries.filter((e) => !isSerializedOrigin(e));
    if (bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message:
          'each entry must be an origin as browsers send it: scheme and lower-case host, a port only when not the ' +
          `default, no path or trailing slash (https://dashboard.example.com), or * alone (not understood: ${bad.join(', ')})`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** Days kept per kind of check data (docs/adr/0005-check-results-retention.md). */
export interface RetentionDays {
  /** Raw results: the `hour` history, and the source of `rebuildRollups`. */
  checkResultsDays: number;
  /** Hourly rollups: the `day`, `week` and `month` histories (a month reaches 30 days back). */
  hourlyRollupsDays: number;
  /**
   * Daily counts, and uptime accounting's spans (docs/adr/0018-uptime-accounting-spans.md): at least 400 days, the
   * longest an uptime report reaches back.
   */
  dailyRollupsDays: number;
  /** Audit events (GET /audit-events): a yearly review's period with margin (docs/decisions.md). */
  auditEventsDays: number;
}
/** The longest history (a month) plus margin, and 400 days of daily counts and of audit events. */
export const DEFAULT_RETENTION: Readonly<RetentionDays> = {
  checkResultsDays: 35,
  hourlyRollupsDays: 35,
  dailyRollupsDays: 400,
  auditEventsDays: 400,
};

const required = (iss: { input: unknown }) => (iss.input === undefined ? 'is required' : undefined);

const optionalUrl = z.url({ protocol: /^https?$/ }).optional();
/** A provider URL: http(s), no credentials, query or fragment (paths are appended to it); kept without a final `/`. */
const providerUrl = z
  .url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' })
  .refine((v) => {
    const u = URL.parse(v);
    return !u || (!u.username && !u.password && !u.search && !u.hash);
  }, 'must not carry credentials, a query or a fragment')
  .transform((v) => v.replace(/\/+$/, ''));

/** A credential for operator endpoints (metrics, queue dashboard): long enough, no spaces. */
const secretToken = z
  .string()
  .regex(/^[\x21-\x7e]{16,512}$/, 'must be 16-512 printable characters without spaces (openssl rand -hex 24)');

/** The variables and their rules, before the rules that relate several of them (envSchema). */
/** The providers' public endpoints: the defaults of PAGERDUTY_EVENTS_URL, OPSGENIE_API_URL and TELEGRAM_API_URL. */
export const DEFAULT_ALERT_PROVIDERS: AlertProviders = {
  pagerdutyEventsUrl: 'https://events.pagerduty.com/v2/enqueue',
  opsgenieApiUrl: 'https://api.opsgenie.com',
  telegramApiUrl: 'https://api.telegram.org',
};

/** IANA's DNS bootstrap file: the default of RDAP_BOOTSTRAP_URL. */
export const DEFAULT_RDAP_BOOTSTRAP_URL = 'https://data.iana.org/rdap/dns.json';

const envFields = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.string({ error: required }).regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
  /** Required unless REDIS_CLUSTER_NODES is given; then only its credentials and scheme (rediss: TLS) are used. */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .refine((v) => URL.canParse(v), 'must be a redis:// URL')
    .optional(),
  /** A Redis Cluster instead of one server: comma-separated `host:port` seed nodes (README, "Redis Cluster"). */
  REDIS_CLUSTER_NODES: clusterNodesSchema.optional(),
  PORT: int(0, 65535).default(3000),
  PUBLIC_BASE_URL: optionalUrl,
  ENCRYPTION_KEY: keySchema.optional(),
  /** Earlier keys, comma-separated, still accepted for decryption during a rotation. */
  ENCRYPTION_OLD_KEYS: z
    .string()
    .optional()
    .refine(
      (v) =>
        !v ||
        v
          .split(',')
          .filter((k) => k.trim())
          .every((k) => decodeKey(k) !== null),
      'each old key must be 32 bytes (hex or base64)',
    ),
  LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
  REGION: regionName.default('local'),
  /** BullMQ key prefix of every queue (checks, escalations): lets deployments or test runs share one Redis apart. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, '1-40 letters, digits, hyphens or underscores')
    .default('bull'),
  /**
   * How long a worker's claim on a running job lasts without renewal (BullMQ lockDuration and stalledInterval):
   * the jobs of a crashed worker go back to the queue after at most about twice this.
   */
  JOB_LOCK_MS: int(1000, 600_000).default(30_000),
  /**
   * API shutdown (SIGTERM): seconds to keep serving with `/readyz` answering 503 before the listener closes, so load
   * balancers take the process out of rotation before it stops accepting (0: close at once).
   */
  SHUTDOWN_DRAIN_SECONDS: int(0, 300).default(5),
  /** How often a worker runs housekeeping (the schedule reconciler among it), one worker per period. */
  HOUSEKEEPING_INTERVAL_MS: int(1000, 3_600_000).default(30_000),
  /**
   * Retention in days (docs/adr/0005-check-results-retention.md). Raw results feed the `hour` history; hourly
   * rollups the `day`, `week` and `month` histories (a month reaches 30 days back); daily rollups (and the spans of
   * uptime accounting) 400 days at least, as far back as an uptime report reaches. The minimums keep every history
   * the API serves complete.
   */
  CHECK_RESULTS_RETENTION_DAYS: int(1, 3650).default(DEFAULT_RETENTION.checkResultsDays),
  HOURLY_ROLLUPS_RETENTION_DAYS: int(31, 3650).default(DEFAULT_RETENTION.hourlyRollupsDays),
  DAILY_ROLLUPS_RETENTION_DAYS: int(400, 3650).default(DEFAULT_RETENTION.dailyRollupsDays),
  /** Audit events: at least 30 days, so a month's changes can always be reviewed (docs/decisions.md). */
  AUDIT_EVENTS_RETENTION_DAYS: int(30, 3650).default(DEFAULT_RETENTION.auditEventsDays),
  CHECK_REGIONS: z
    .string()
    .default('local')
    .transform((v) => [
      ...new Set(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(regionName).min(1, 'name at least one region')),
  ALLOWED_TARGET_CIDRS: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      try {
        parseCidrList(v);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(600),
  /** Client registrations (POST /oauth/register) per client address per hour: an app registers once. */
  OAUTH_REGISTER_PER_HOUR: int(1, 1_000_000).default(20),
  /** Token and revocation requests per client address per minute (a refresh an hour per app, retries included). */
  OAUTH_TOKEN_PER_MINUTE: int(1, 1_000_000).default(60),
  /** Express `trust proxy`: which load balancers' X-Forwarded-For to believe (client address for limits and logs). */
  TRUST_PROXY: trustProxySchema,
  CORS_ORIGINS: corsOriginsSchema,
  /**
   * Checks one worker runs at once. Checks mostly wait on the network, and their results are stored in groups
   * (one transaction per group), so more in flight means bigger groups: 200 measured best on 2 cores
   * (docs/benchmarks.md).
   */
  WORKER_CONCURRENCY: int(1, 1000).default(200),
  /**
   * Loopback http checks a worker process runs through its probe before it takes jobs, so that its first real checks
   * do not run on cold code (apps/worker/src/warm-up.ts); 0: none.
   */
  WORKER_WARMUP_CHECKS: int(0, 100_000).default(3000),
  /** Prometheus: a separate listener for GET /metrics; unset: 9464 (API) or 9465 (worker); 0: none. */
  METRICS_PORT: int(0, 65535).optional(),
  /** Where that listener binds: loopback unless an operator opens it up. */
  METRICS_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.:_-]{1,253}$/, 'must be a host name or IP address')
    .default('127.0.0.1'),
  /** When set, /metrics also requires `Authorization: Bearer <token>`, and the API serves it on its own port too. */
  METRICS_TOKEN: secretToken.optional(),
  /** Bull Board at /admin/queues on the API: off unless `true`, and then only with QUEUE_DASHBOARD_TOKEN. */
  QUEUE_DASHBOARD: z
    .enum(['true', 'false', '1', '0', ''])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  QUEUE_DASHBOARD_TOKEN: secretToken.optional(),
  /** Where local state lives (development encryption key, local services). */
  DATA_DIR: z.string().default('.data'),
  /** Escalation email: an SMTP URL for nodemailer (smtp:// or smtps://, credentials inside); unset: email deliveries are skipped. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  /** The From of escalation emails. */
  SMTP_FROM: z.string().min(3).max(320).optional(),
  /**
   * Alert providers (docs/escalation.md): the operator's choice, so not subject to the SSRF guard; tests point them
   * at local fakes. PagerDuty: the full Events API v2 enqueue URL. Opsgenie and Telegram: base URLs, the providers'
   * paths (`/v2/alerts...`, `/bot<token>/sendMessage`) appended (Opsgenie's EU accounts: https://api.eu.opsgenie.com).
   */
  PAGERDUTY_EVENTS_URL: providerUrl.default(DEFAULT_ALERT_PROVIDERS.pagerdutyEventsUrl),
  OPSGENIE_API_URL: providerUrl.default(DEFAULT_ALERT_PROVIDERS.opsgenieApiUrl),
  TELEGRAM_API_URL: providerUrl.default(DEFAULT_ALERT_PROVIDERS.telegramApiUrl),
  /** Domain monitors: IANA's RDAP bootstrap file for DNS, which names each TLD's RDAP server (RFC 9224). */
  RDAP_BOOTSTRAP_URL: providerUrl.default(DEFAULT_RDAP_BOOTSTRAP_URL),
  /**
   * Domain monitors: ask this RDAP server about every domain instead of the bootstrap's (tests point it at a local
   * fake, hence no SSRF guard on it: it is the operator's choice, as the alert providers are).
   */
  RDAP_BASE_URL: providerUrl.optional(),
});

/** Outside production a missing ENCRYPTION_KEY falls back to the development key; production must give one. */
const lacksProductionKey = (e: { NODE_ENV: string; ENCRYPTION_KEY?: string | undefined }) =>
  e.NODE_ENV === 'production' && !e.ENCRYPTION_KEY;
const KEY_REQUIRED = 'is required in production';

/** The environment every Statusvane process reads. Parsed once at start-up; never read process.env elsewhere. */
export const envSchema = envFields
  // Even when other variables are wrong: a missing Redis is reported with them.
  .refine((env) => env.REDIS_URL !== undefined || env.REDIS_CLUSTER_NODES !== undefined, {
    path: ['REDIS_URL'],
    message: 'is required',
    when: () => true,
  })
  .superRefine((env, ctx) => {
    if (lacksProductionKey(env)) {
      ctx.addIssue({ code: 'custom', path: ['ENCRYPTION_KEY'], message: KEY_REQUIRED });
    }
    if (env.QUEUE_DASHBOARD && !env.QUEUE_DASHBOARD_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['QUEUE_DASHBOARD_TOKEN'],
        message: 'is required when QUEUE_DASHBOARD=true (the dashboard can delete and retry jobs)',
      });
    }
  });

export interface RedisNode {
  host: string;
  port: number;
}

/**
 * Where Redis is: one server (REDIS_URL), or a Redis Cluster (REDIS_CLUSTER_NODES) whose nodes take their credentials
 * and TLS from REDIS_URL when it is given. Connections are made from it by createApiRedis / createWorkerRedis only.
 */
export type RedisTarget = { url: string; cluster: null } | { url: string | null; cluster: RedisNode[] };

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  redis: RedisTarget;
  port: number;
  publicBaseUrl: string;
  encryption: { current: EncryptionKey; old: EncryptionKey[] };
  logLevel: (typeof LOG_LEVELS)[number];
  region: string;
  checkRegions: string[];
  queuePrefix: string;
  jobLockMs: number;
  /** API: seconds between SIGTERM (readiness turns 503) and closing the listener. */
  shutdownDrainSeconds: number;
  housekeepingIntervalMs: number;
  /** Days kept: raw check results, hourly rollups, daily rollups. */
  retention: RetentionDays;
  allowedTargetCidrs: string;
  rateLimitPerMinute: number;
  /** Per client address: POST /oauth/register per hour, POST /oauth/token and /oauth/revoke per minute. */
  oauthLimits: { registerPerHour: number; tokenPerMinute: number };
  /** Express `trust proxy`: false (none), a hop count, or addresses / CIDRs / preset names. */
  trustProxy: false | number | string[];
  /** Browser origins allowed to call the management API: `*` (any), a list, or empty (no CORS). */
  corsOrigins: '*' | string[];
  workerConcurrency: number;
  /** Loopback checks the worker process warms its probe with before it takes jobs; 0 = none. */
  workerWarmUpChecks: number;
  /** Prometheus: `port` null = the process's default (API 9464, worker 9465), 0 = no separate listener. */
  metrics: { port: number | null; host: string; token: string | null };
  /** Bull Board at /admin/queues; null = off. */
  queueDashboard: { token: string } | null;
  dataDir: string;
  /** null: email deliveries are recorded `skipped`. */
  smtp: { url: string; from: string } | null;
  /** Where the pagerduty, opsgenie and telegram channels send (without a final `/`). */
  alertProviders: AlertProviders;
  /** Domain monitors: the bootstrap file, or one server for every domain (`baseUrl`, unguarded: tests). */
  rdap: { bootstrapUrl: string; baseUrl: string | null };
}

export interface AlertProviders {
  /** The full Events API v2 enqueue URL. */
  pagerdutyEventsUrl: string;
  /** Base URL; `/v2/alerts` ... appended. */
  opsgenieApiUrl: string;
  /** Base URL; `/bot<token>/sendMessage` appended. */
  telegramApiUrl: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** A short, stable, non-secret id for a key, stored beside each ciphertext so keys can rotate. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

function toKey(value: string): EncryptionKey {
  const key = decodeKey(value);
  if (!key) throw new Error('unreachable: key validated by the schema');
  return { id: keyId(key), key };
}

const KEY_FILE = 'encryption.key';
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The development key: generated once under DATA_DIR and reused, so encrypted rows stay readable. `npm start` runs
 * the API and a worker at once, and both may find no key: each writes a complete candidate to a file of its own and
 * hard-links it into place, which succeeds for exactly one of them (link never replaces, and the file appears with
 * its whole content), so every process ends up reading the same key.
 */
function developmentKey(dataDir: string): string {
  const dir = resolve(dataDir);
  const file = join(dir, KEY_FILE);
  let text = readKeyFile(file);
  if (text === null) {
    try {
      mkdirSync(dir, { recursive: true });
      const candidate = join(dir, `.${KEY_FILE}.${process.pid}.${randomBytes(6).toString('hex')}`);
      writeFileSync(candidate, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      try {
        linkSync(candidate, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      } finally {
        unlinkSync(candidate);
      }
    } catch (err) {
      throw new ConfigError([
        `ENCRYPTION_KEY: not set, and the development key ${file} could not be created (${(err as Error).message})`,
      ]);
    }
    text = readKeyFile(file);
  }
  // An empty file: a process of an older version may be between creating and writing it. Give it a moment.
  for (let i = 0; i < 10 && text !== null && text.trim() === ''; i++) {
    sleepSync(50);
    text = readKeyFile(file);
  }
  const value = (text ?? '').trim();
  if (decodeKey(value) === null) {
    throw new ConfigError([
      `ENCRYPTION_KEY: not set, and the development key in ${file} is ${value ? 'not a valid key' : 'empty'}: ` +
        `restore it, set ENCRYPTION_KEY, or delete the file to generate a new one (secrets stored with the old key become unreadable)`,
    ]);
  }
  return value;
}

function readKeyFile(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError([
      `ENCRYPTION_KEY: not set, and the development key ${file} cannot be read (${(err as Error).message})`,
    ]);
  }
}

type EnvFields = z.output<typeof envFields>;

/** Where users reach the API: PUBLIC_BASE_URL without trailing slashes, else the local default on PORT. */
function publicBaseUrlOf(e: Pick<EnvFields, 'PUBLIC_BASE_URL' | 'PORT'>): string {
  return (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
}

/** ENCRYPTION_KEY (outside production: else the development key under DATA_DIR) and ENCRYPTION_OLD_KEYS. */
function keyringOf(e: Pick<EnvFields, 'ENCRYPTION_KEY' | 'ENCRYPTION_OLD_KEYS' | 'DATA_DIR'>): Config['encryption'] {
  const current = toKey(e.ENCRYPTION_KEY ?? developmentKey(e.DATA_DIR));
  const old = (e.ENCRYPTION_OLD_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map(toKey);
  return { current, old };
}

/**
 * Empty (or blank) variables count as unset, so their defaults apply: `PORT=` in a compose file or a `.env` means
 * "not given", and must not become port 0.
 */
function withoutBlanks(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v.trim() !== '') out[k] = v;
  return out;
}

/**
 * Parses the environment into a typed config, or throws a ConfigError that lists every problem.
 * Blank variables count as unset. Outside production, a missing ENCRYPTION_KEY is replaced by the development key
 * under DATA_DIR.
 */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(withoutBlanks(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    redis: e.REDIS_CLUSTER_NODES
      ? { url: e.REDIS_URL ?? null, cluster: e.REDIS_CLUSTER_NODES }
      : { url: e.REDIS_URL!, cluster: null },
    port: e.PORT,
    publicBaseUrl: publicBaseUrlOf(e),
    encryption: keyringOf(e),
    logLevel: e.LOG_LEVEL ?? (e.NODE_ENV === 'test' ? 'warn' : 'info'),
    region: e.REGION,
    checkRegions: e.CHECK_REGIONS,
    queuePrefix: e.QUEUE_PREFIX,
    jobLockMs: e.JOB_LOCK_MS,
    shutdownDrainSeconds: e.SHUTDOWN_DRAIN_SECONDS,
    housekeepingIntervalMs: e.HOUSEKEEPING_INTERVAL_MS,
    retention: {
      checkResultsDays: e.CHECK_RESULTS_RETENTION_DAYS,
      hourlyRollupsDays: e.HOURLY_ROLLUPS_RETENTION_DAYS,
      dailyRollupsDays: e.DAILY_ROLLUPS_RETENTION_DAYS,
      auditEventsDays: e.AUDIT_EVENTS_RETENTION_DAYS,
    },
    allowedTargetCidrs: e.ALLOWED_TARGET_CIDRS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    oauthLimits: { registerPerHour: e.OAUTH_REGISTER_PER_HOUR, tokenPerMinute: e.OAUTH_TOKEN_PER_MINUTE },
    trustProxy: e.TRUST_PROXY,
    corsOrigins: e.CORS_ORIGINS,
    workerConcurrency: e.WORKER_CONCURRENCY,
    workerWarmUpChecks: e.WORKER_WARMUP_CHECKS,
    metrics: { port: e.METRICS_PORT ?? null, host: e.METRICS_HOST, token: e.METRICS_TOKEN ?? null },
    queueDashboard: e.QUEUE_DASHBOARD && e.QUEUE_DASHBOARD_TOKEN ? { token: e.QUEUE_DASHBOARD_TOKEN } : null,
    dataDir: e.DATA_DIR,
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM ?? 'Statusvane <statusvane@localhost>' } : null,
    alertProviders: {
      pagerdutyEventsUrl: e.PAGERDUTY_EVENTS_URL,
      opsgenieApiUrl: e.OPSGENIE_API_URL,
      telegramApiUrl: e.TELEGRAM_API_URL,
    },
    rdap: { bootstrapUrl: e.RDAP_BOOTSTRAP_URL, baseUrl: e.RDAP_BASE_URL ?? null },
  };
}

/**
 * Some variables only, with the same rules (blank = unset, defaults, validation): for tools that need a setting or
 * two without the whole process configuration, such as the admin CLI. Throws a ConfigError.
 */
export function parseEnvSubset<K extends keyof EnvFields & string>(
  env: NodeJS.ProcessEnv,
  keys: readonly K[],
): Pick<EnvFields, K> {
  const mask = Object.fromEntries(keys.map((k) => [k, true])) as { [P in K]: true };
  const parsed = envFields.pick(mask as never).safeParse(withoutBlanks(env));
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
  }
  return parsed.data as unknown as Pick<EnvFields, K>;
}

/**
 * The base URL status page and ping URLs are printed with, by the same rules as the API (`Config.publicBaseUrl`),
 * for tools that run beside it such as the admin CLI. Throws a ConfigError.
 */
export function parsePublicBaseUrl(env: NodeJS.ProcessEnv): string {
  return publicBaseUrlOf(parseEnvSubset(env, ['PUBLIC_BASE_URL', 'PORT']));
}

/**
 * The keyring as the API and the worker see it (`Config.encryption`), for tools that encrypt or re-encrypt
 * secrets such as the admin CLI: ENCRYPTION_KEY (required in production), else the development key under DATA_DIR,
 * plus ENCRYPTION_OLD_KEYS. Throws a ConfigError.
 */
export function parseKeyring(env: NodeJS.ProcessEnv): Config['encryption'] {
  const e = parseEnvSubset(env, ['NODE_ENV', 'ENCRYPTION_KEY', 'ENCRYPTION_OLD_KEYS', 'DATA_DIR']);
  if (lacksProductionKey(e)) throw new ConfigError([`ENCRYPTION_KEY: ${KEY_REQUIRED}`]);
  return keyringOf(e);
}

/** For process entry points: parse or print the problems and exit 1 (fail fast, readable). */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
