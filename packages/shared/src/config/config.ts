import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { parseCidrList } from '../ssrf/index.js';

const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
const regionName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'a region is 1-40 lower-case letters, digits or hyphens')
  // `region=all` in the response-time history means "every region" (decisions: the record's region is the filter, or `all`).
  .refine((v) => v !== 'all', '`all` is reserved (it means every region in the response-time history)');

/** A 32-byte key, written as 64 hex characters or base64. */
function decodeKey(value: string): Buffer | null {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const b = Buffer.from(trimmed, 'base64');
  return b.length === 32 ? b : null;
}
const keySchema = z
  .string()
  .refine((v) => decodeKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64 (openssl rand -base64 32)');

const optionalUrl = z.url({ protocol: /^https?$/ }).optional();

/** A credential for operator endpoints (metrics, queue dashboard): long enough, no spaces. */
const secretToken = z.string().regex(/^[\x21-\x7e]{16,512}$/, 'must be 16-512 printable characters without spaces (openssl rand -hex 24)');

/** The environment every Statusvane process reads. Parsed once at start-up; never read process.env elsewhere. */
export const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// URL'),
    REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    PUBLIC_BASE_URL: optionalUrl,
    ENCRYPTION_KEY: keySchema.optional(),
    /** Earlier keys, comma-separated, still accepted for decryption during a rotation. */
    ENCRYPTION_OLD_KEYS: z
      .string()
      .optional()
      .refine((v) => !v || v.split(',').every((k) => decodeKey(k) !== null), 'each old key must be 32 bytes (hex or base64)'),
    LOG_LEVEL: z.enum(LOG_LEVELS).optional(),
    REGION: regionName.default('local'),
    /** BullMQ key prefix of every queue (checks, escalations): lets deployments or test runs share one Redis apart. */
    QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, '1-40 letters, digits, hyphens or underscores').default('bull'),
    /**
     * How long a worker's claim on a running job lasts without renewal (BullMQ lockDuration and stalledInterval):
     * the jobs of a crashed worker go back to the queue after at most about twice this.
     */
    JOB_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
    /** How often a worker runs housekeeping (the schedule reconciler among it), one worker per period. */
    HOUSEKEEPING_INTERVAL_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
    /**
     * Retention in days (docs/adr/0005-check-results-retention.md). Raw results feed the `hour` history; hourly
     * rollups the `day`, `week` and `month` histories (a month reaches 30 days back); daily rollups the status pages'
     * 90-day uptime bars. The minimums keep every history the API serves complete.
     */
    CHECK_RESULTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(35),
    HOURLY_ROLLUPS_RETENTION_DAYS: z.coerce.number().int().min(31).max(3650).default(35),
    DAILY_ROLLUPS_RETENTION_DAYS: z.coerce.number().int().min(91).max(3650).default(400),
    CHECK_REGIONS: z
      .string()
      .default('local')
      .transform((v) => [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))])
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
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
    /**
     * Checks one worker runs at once. Checks mostly wait on the network, and their results are stored in groups
     * (one transaction per group), so more in flight means bigger groups: 200 measured best on 2 cores
     * (docs/benchmarks.md).
     */
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(200),
    /** Prometheus: a separate listener for GET /metrics; unset: 9464 (API) or 9465 (worker); 0: none. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** Where that listener binds: loopback unless an operator opens it up. */
    METRICS_HOST: z.string().regex(/^[A-Za-z0-9.:_-]{1,253}$/, 'must be a host name or IP address').default('127.0.0.1'),
    /** When set, /metrics also requires `Authorization: Bearer <token>`, and the API serves it on its own port too. */
    METRICS_TOKEN: secretToken.optional(),
    /** Bull Board at /admin/queues on the API: off unless `true`, and then only with QUEUE_DASHBOARD_TOKEN. */
    QUEUE_DASHBOARD: z.enum(['true', 'false', '1', '0', '']).default('false').transform((v) => v === 'true' || v === '1'),
    QUEUE_DASHBOARD_TOKEN: secretToken.optional(),
    /** Where local state lives (development encryption key, local services). */
    DATA_DIR: z.string().default('.data'),
    /** Escalation email: an SMTP URL for nodemailer (smtp:// or smtps://, credentials inside); unset: email deliveries are skipped. */
    SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
    /** The From of escalation emails. */
    SMTP_FROM: z.string().min(3).max(320).optional(),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && !env.ENCRYPTION_KEY) {
      ctx.addIssue({ code: 'custom', path: ['ENCRYPTION_KEY'], message: 'is required in production' });
    }
    if (env.QUEUE_DASHBOARD && !env.QUEUE_DASHBOARD_TOKEN) {
      ctx.addIssue({ code: 'custom', path: ['QUEUE_DASHBOARD_TOKEN'], message: 'is required when QUEUE_DASHBOARD=true (the dashboard can delete and retry jobs)' });
    }
  });

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  redisUrl: string;
  port: number;
  publicBaseUrl: string;
  encryption: { current: EncryptionKey; old: EncryptionKey[] };
  logLevel: (typeof LOG_LEVELS)[number];
  region: string;
  checkRegions: string[];
  queuePrefix: string;
  jobLockMs: number;
  housekeepingIntervalMs: number;
  /** Days kept: raw check results, hourly rollups, daily rollups. */
  retention: { checkResultsDays: number; hourlyRollupsDays: number; dailyRollupsDays: number };
  allowedTargetCidrs: string;
  rateLimitPerMinute: number;
  workerConcurrency: number;
  /** Prometheus: `port` null = the process's default (API 9464, worker 9465), 0 = no separate listener. */
  metrics: { port: number | null; host: string; token: string | null };
  /** Bull Board at /admin/queues; null = off. */
  queueDashboard: { token: string } | null;
  dataDir: string;
  /** null: email deliveries are recorded `skipped`. */
  smtp: { url: string; from: string } | null;
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

/** The development key: generated once under DATA_DIR and reused, so encrypted rows stay readable. */
function developmentKey(dataDir: string): string {
  const file = join(resolve(dataDir), 'encryption.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(resolve(dataDir), { recursive: true });
  const value = randomBytes(32).toString('base64');
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return value;
}

/**
 * Parses the environment into a typed config, or throws a ConfigError that lists every problem.
 * Outside production, a missing ENCRYPTION_KEY is replaced by the development key under DATA_DIR.
 */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
  }
  const e = parsed.data;
  const current = toKey(e.ENCRYPTION_KEY ?? developmentKey(e.DATA_DIR));
  const old = (e.ENCRYPTION_OLD_KEYS ?? '').split(',').filter(Boolean).map(toKey);
  return {
    env: e.NODE_ENV,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    port: e.PORT,
    publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    encryption: { current, old },
    logLevel: e.LOG_LEVEL ?? (e.NODE_ENV === 'test' ? 'warn' : 'info'),
    region: e.REGION,
    checkRegions: e.CHECK_REGIONS,
    queuePrefix: e.QUEUE_PREFIX,
    jobLockMs: e.JOB_LOCK_MS,
    housekeepingIntervalMs: e.HOUSEKEEPING_INTERVAL_MS,
    retention: { checkResultsDays: e.CHECK_RESULTS_RETENTION_DAYS, hourlyRollupsDays: e.HOURLY_ROLLUPS_RETENTION_DAYS, dailyRollupsDays: e.DAILY_ROLLUPS_RETENTION_DAYS },
    allowedTargetCidrs: e.ALLOWED_TARGET_CIDRS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    workerConcurrency: e.WORKER_CONCURRENCY,
    metrics: { port: e.METRICS_PORT ?? null, host: e.METRICS_HOST, token: e.METRICS_TOKEN ?? null },
    queueDashboard: e.QUEUE_DASHBOARD && e.QUEUE_DASHBOARD_TOKEN ? { token: e.QUEUE_DASHBOARD_TOKEN } : null,
    dataDir: e.DATA_DIR,
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM ?? 'Statusvane <statusvane@localhost>' } : null,
  };
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
