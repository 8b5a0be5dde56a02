/**
 * The stack under test, started by the bench itself: the local PostgreSQL and Redis (scripts/services.mjs, or
 * DATABASE_URL / REDIS_URL), a fresh `statusvane_bench` database migrated per run, Redis database 8 (cleared of the
 * bench's own keys, never FLUSHALL; both overridable with BENCH_DB_SUFFIX and BENCH_REDIS_DB), the build, and the API
 * and worker processes as an operator runs them (`node apps/<app>/dist/main.js`).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { parseConfig, type Config } from '@statusvane/shared';
import { ensureServices } from '../../scripts/services.mjs';
import { applyMigrations } from '../../scripts/migrate.js';
import { serversAtRest, type ServersAtRest } from './cost.js';
import { ROOT } from './paths.js';
import { freePort, spawnChild, until, type Child } from './processes.js';

export interface BenchTargets {
  /** `statusvane_bench`, or `statusvane_bench_<BENCH_DB_SUFFIX>`: dropped and recreated by every run. */
  database: string;
  /** BENCH_REDIS_DB, 8 by default: development uses 0 and the tests 1, so those are refused. */
  redisDb: number;
}

/**
 * Where a run writes. Two runs against one server (several checkouts) must not share them, since each run drops its
 * database and clears its Redis database first: give one of them BENCH_DB_SUFFIX and BENCH_REDIS_DB.
 */
export function benchTargets(env: NodeJS.ProcessEnv = process.env): BenchTargets {
  const suffix = env.BENCH_DB_SUFFIX ?? '';
  if (!/^[a-z0-9_]{0,20}$/.test(suffix)) throw new Error('BENCH_DB_SUFFIX: up to 20 of a-z, 0-9 and _');
  const raw = env.BENCH_REDIS_DB ?? '8';
  const redisDb = /^[0-9]{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(redisDb >= 2 && redisDb <= 15))
    throw new Error('BENCH_REDIS_DB: a Redis database index from 2 to 15 (0 is development, 1 the tests)');
  return { database: `statusvane_bench${suffix ? `_${suffix}` : ''}`, redisDb };
}

export interface StackUrls {
  databaseUrl: string;
  redisUrl: string;
}

export async function prepareDatabases(
  targets: BenchTargets,
  log: (msg: string) => void,
): Promise<StackUrls & { atRest: ServersAtRest }> {
  const services = await ensureServices({ quiet: true });
  const admin = new pg.Client({ connectionString: services.databaseUrl });
  await admin.connect();
  let atRest: ServersAtRest;
  try {
    // Before anything of the bench runs: the servers' own floor, which every cost per check includes.
    atRest = await serversAtRest(admin, services.redisUrl);
    await admin.query(`DROP DATABASE IF EXISTS "${targets.database}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${targets.database}"`);
  } finally {
    await admin.end();
  }
  const db = new URL(services.databaseUrl);
  db.pathname = `/${targets.database}`;
  const databaseUrl = db.toString();
  const t = Date.now();
  const { applied } = await applyMigrations(databaseUrl);
  log(`database ${targets.database}: ${applied.length} migrations in ${Date.now() - t} ms`);

  const r = new URL(services.redisUrl);
  r.pathname = `/${targets.redisDb}`;
  const redisUrl = r.toString();
  const removed = await clearBenchKeys(redisUrl, targets.redisDb);
  log(`redis database ${targets.redisDb}: removed ${removed} keys left by an earlier run`);
  return { databaseUrl, redisUrl, atRest };
}

/** Deletes the queue and app keys of the bench's own Redis database (SCAN + DEL: never FLUSHALL, never other dbs). */
export async function clearBenchKeys(redisUrl: string, benchDb: number): Promise<number> {
  if (Number(new URL(redisUrl).pathname.slice(1) || 0) !== benchDb || benchDb < 2)
    throw new Error('refusing to clear a Redis database other than the bench one');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let removed = 0;
    for (const match of ['bull:*', 'sv:*']) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
        cursor = next;
        if (keys.length) removed += await redis.unlink(...keys);
      } while (cursor !== '0');
    }
    return removed;
  } finally {
    redis.disconnect();
  }
}

/** Memory of the bench database's keys (MEMORY USAGE of each, summed), and the server's used_memory. */
export async function redisMemory(
  redisUrl: string,
): Promise<{ benchKeysBytes: number; keys: number; serverUsedBytes: number }> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    let bytes = 0;
    let keys = 0;
    do {
      const [next, batch] = await redis.scan(cursor, 'COUNT', 2000);
      cursor = next;
      if (batch.length) {
        const pipe = redis.pipeline();
        for (const k of batch) pipe.memory('USAGE', k, 'SAMPLES', '0');
        for (const [, v] of (await pipe.exec()) ?? []) bytes += Number(v ?? 0);
        keys += batch.length;
      }
    } while (cursor !== '0');
    const info = await redis.info('memory');
    const used = Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
    return { benchKeysBytes: bytes, keys, serverUsedBytes: used };
  } finally {
    redis.disconnect();
  }
}

/**
 * Brings apps/*\/dist up to date, as `npm run build` would, without paying for what is already current: the Prisma
 * client is generated only when prisma/schema.prisma is newer than it, and `tsc -b` is incremental (about 0.2 s when
 * nothing changed). Returns the seconds it took, reported apart from the run's own duration.
 */
export function build(log: (msg: string) => void): number {
  const t = Date.now();
  const run = (args: string[], what: string) => {
    const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status})`);
  };
  const client = join(ROOT, 'packages/shared/src/generated/prisma/client.ts');
  const generated =
    existsSync(client) && statSync(client).mtimeMs >= statSync(join(ROOT, 'prisma/schema.prisma')).mtimeMs;
  if (!generated) run([join(ROOT, 'scripts/prisma-generate.mjs')], 'prisma generate');
  run([join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'apps/api', 'apps/worker'], 'tsc -b apps/api apps/worker');
  const seconds = (Date.now() - t) / 1000;
  log(`build: ${generated ? 'Prisma client current, ' : 'Prisma client generated, '}tsc -b in ${seconds.toFixed(1)} s`);
  return seconds;
}

export interface AppProcess {
  child: Child;
  /** API: the HTTP base; worker: unused. */
  baseUrl: string;
  metricsUrl: string;
}

export function appEnv(urls: StackUrls, encryptionKey: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    // info, the default: start-up lines, incidents and one line per request (as a deployment runs it).
    LOG_LEVEL: 'info',
    DATABASE_URL: urls.databaseUrl,
    REDIS_URL: urls.redisUrl,
    ENCRYPTION_KEY: encryptionKey,
    // The bench measures throughput, not the per-token limit (600/min by default).
    RATE_LIMIT_PER_MINUTE: '1000000',
    // Every bench target is on loopback.
    ALLOWED_TARGET_CIDRS: '127.0.0.0/8',
    CHECK_REGIONS: 'local',
    REGION: 'local',
    METRICS_HOST: '127.0.0.1',
    ...extra,
  };
}

export const newEncryptionKey = () => randomBytes(32).toString('base64');

/** The configuration of API or worker code run inside the bench's own process (in-process scenarios). */
export function inProcessConfig(input: { databaseUrl: string; redisUrl: string; encryptionKey: string }): Config {
  return parseConfig({
    ...process.env,
    DATABASE_URL: input.databaseUrl,
    REDIS_URL: input.redisUrl,
    ENCRYPTION_KEY: input.encryptionKey,
    ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
  });
}

/** Node options given in an environment variable, split on spaces (NODE_OPTIONS refuses --cpu-prof). */
const nodeArgs = (value: string | undefined) => value?.split(' ').filter(Boolean) ?? [];

export async function startApi(
  urls: StackUrls,
  encryptionKey: string,
  extra: Record<string, string> = {},
): Promise<AppProcess> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawnChild(
    'api',
    // Node options for the API, as BENCH_WORKER_NODE_ARGS for the worker: BENCH_API_NODE_ARGS='--cpu-prof
    // --cpu-prof-dir=/tmp/prof' profiles it under the bench's load (docs/benchmarks.md, "API ratios").
    [...nodeArgs(process.env.BENCH_API_NODE_ARGS), 'apps/api/dist/main.js'],
    appEnv(urls, encryptionKey, {
      PORT: String(port),
      PUBLIC_BASE_URL: baseUrl,
      METRICS_PORT: String(metricsPort),
      ...extra,
    }),
  );
  await until(
    async () => {
      if (!child.alive()) throw new Error(`the API exited:\n${child.output().slice(-3000)}`);
      return (await fetch(`${baseUrl}/readyz`).catch(() => null))?.ok ?? false;
    },
    60_000,
    'the API to be ready',
    200,
  );
  return { child, baseUrl, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

export async function startWorker(
  urls: StackUrls,
  encryptionKey: string,
  extra: Record<string, string> = {},
): Promise<AppProcess> {
  const metricsPort = await freePort();
  const child = spawnChild(
    'worker',
    // Node options for the worker, e.g. BENCH_WORKER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' (profiles under
    // the bench's load; NODE_OPTIONS refuses --cpu-prof).
    // The young generation as deployed (docs/decisions.md, "The worker's heap"); a later flag of the variable wins.
    ['--max-semi-space-size=64', ...nodeArgs(process.env.BENCH_WORKER_NODE_ARGS), 'apps/worker/dist/main.js'],
    appEnv(urls, encryptionKey, { METRICS_PORT: String(metricsPort), ...extra }),
  );
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  await child.waitFor(/worker ready on queue/, 60_000);
  await until(async () => (await fetch(metricsUrl).catch(() => null))?.ok ?? false, 30_000, 'the worker metrics', 200);
  return { child, baseUrl: '', metricsUrl };
}
