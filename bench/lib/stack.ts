/**
 * The stack under test, started by the bench itself: the local PostgreSQL and Redis (scripts/services.mjs), a fresh
 * `statusvane_bench` database migrated per run, Redis database 8 (cleared of the bench's own keys, never FLUSHALL),
 * the build, and the API and worker processes as an operator runs them (`node apps/<app>/dist/main.js`).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { ensureServices } from '../../scripts/services.mjs';
import { applyMigrations } from '../../scripts/migrate.js';
import { ROOT } from './paths.js';
import { freePort, spawnChild, until, type Child } from './processes.js';

export const BENCH_DATABASE = 'statusvane_bench';
/** The bench's Redis database index: other users of the local Redis (development, tests) are on 0 and 1. */
export const BENCH_REDIS_DB = 8;

export interface StackUrls {
  databaseUrl: string;
  redisUrl: string;
}

export async function prepareDatabases(log: (msg: string) => void): Promise<StackUrls> {
  const services = await ensureServices({ quiet: true });
  const admin = new pg.Client({ connectionString: services.databaseUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${BENCH_DATABASE}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${BENCH_DATABASE}"`);
  } finally {
    await admin.end();
  }
  const db = new URL(services.databaseUrl);
  db.pathname = `/${BENCH_DATABASE}`;
  const databaseUrl = db.toString();
  const t = Date.now();
  const { applied } = await applyMigrations(databaseUrl);
  log(`database ${BENCH_DATABASE}: ${applied.length} migrations in ${Date.now() - t} ms`);

  const r = new URL(services.redisUrl);
  r.pathname = `/${BENCH_REDIS_DB}`;
  const redisUrl = r.toString();
  const removed = await clearBenchKeys(redisUrl);
  log(`redis database ${BENCH_REDIS_DB}: removed ${removed} keys left by an earlier run`);
  return { databaseUrl, redisUrl };
}

/** Deletes the queue and app keys of the bench's own Redis database (SCAN + DEL: never FLUSHALL, never other dbs). */
export async function clearBenchKeys(redisUrl: string): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    if (Number(new URL(redisUrl).pathname.slice(1) || 0) !== BENCH_REDIS_DB) throw new Error('refusing to clear a Redis database other than the bench one');
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
export async function redisMemory(redisUrl: string): Promise<{ benchKeysBytes: number; keys: number; serverUsedBytes: number }> {
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

export function build(log: (msg: string) => void): void {
  const t = Date.now();
  const r = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status})`);
  log(`built in ${Date.now() - t} ms`);
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
    // info: start-up lines and incidents; request lines are at `http`, below it.
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

export async function startApi(urls: StackUrls, encryptionKey: string): Promise<AppProcess> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawnChild('api', ['apps/api/dist/main.js'], appEnv(urls, encryptionKey, { PORT: String(port), PUBLIC_BASE_URL: baseUrl, METRICS_PORT: String(metricsPort) }));
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

export async function startWorker(urls: StackUrls, encryptionKey: string, extra: Record<string, string> = {}): Promise<AppProcess> {
  const metricsPort = await freePort();
  const child = spawnChild('worker', ['apps/worker/dist/main.js'], appEnv(urls, encryptionKey, { METRICS_PORT: String(metricsPort), ...extra }));
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  await child.waitFor(/worker ready on queue/, 60_000);
  await until(async () => (await fetch(metricsUrl).catch(() => null))?.ok ?? false, 30_000, 'the worker metrics', 200);
  return { child, baseUrl: '', metricsUrl };
}
