/**
 * Real processes for the resilience suites: API and worker processes started the way an operator starts them
 * (`appCommand` below), a private redis-server, and scratch databases. Every child runs in its own process
 * group so that a kill reaches tsx's child too; `killAll()` (afterAll) and a process 'exit' hook make sure none
 * outlives the test file, whatever failed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { applyMigrations } from '../../../scripts/migrate.js';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/**
 * How a suite starts the API or the worker, as one process as `node dist/main.js` is in production: the bundle
 * `npm test` built for this run (scripts/test.mjs: the same sources, compiled once rather than at every start), else
 * `node --import tsx <main.ts>` (Jest started some other way). Not tsx's CLI: it would put a wrapper process in front
 * that relays signals on its own terms, so a SIGTERM test would watch the wrapper and a SIGKILL would hit it.
 */
function appCommand(app: 'api' | 'worker'): string[] {
  const dir = process.env.TEST_APP_BUNDLE_DIR;
  if (dir && existsSync(join(dir, `${app}.js`))) return [join(dir, `${app}.js`)];
  return ['--import', 'tsx', `apps/${app}/src/main.ts`];
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `fn` until it returns something truthy; the label names what timed out. */
export async function until<T>(
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs: number,
  label: string,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${label}${lastError ? ` (last error: ${(lastError as Error).message})` : ''}`,
      );
    await sleep(everyMs);
  }
}

/** A loopback port nothing listens on right now. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface Proc {
  readonly name: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Still running (no exit event yet). */
  alive(): boolean;
  exitCode(): number | null | undefined;
  /** Resolves when a line matching `re` has been written (after `from` characters of output). */
  waitForOutput(re: RegExp, timeoutMs: number, from?: number): Promise<void>;
  /** Signals the whole process group. */
  kill(signal: NodeJS.Signals): void;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
}

const live = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

// A test that throws between spawn and afterAll must still not leak processes.
process.once('exit', () => {
  for (const child of live) killGroup(child, 'SIGKILL');
});

/** Kills every process this file started (SIGKILL to each group) and waits for them to go. */
export async function killAll(): Promise<void> {
  const children = [...live];
  for (const child of children) killGroup(child, 'SIGKILL');
  await Promise.all(
    children.map((c) =>
      c.exitCode !== null || c.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((r) => c.once('exit', () => r())),
    ),
  );
}

export function spawnProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let out = '';
  let exited = false;
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  if (process.env.TEST_LOG) {
    child.stdout!.on('data', (c: Buffer) => process.stderr.write(`[${name}] ${c.toString()}`));
    child.stderr!.on('data', (c: Buffer) => process.stderr.write(`[${name}] ${c.toString()}`));
  }
  const exitedPromise = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      live.delete(child);
      for (const w of waiters) w();
      r();
    }),
  );
  return {
    name,
    pid: child.pid!,
    output: () => out,
    alive: () => !exited,
    exitCode: () => child.exitCode,
    waitForOutput(re, timeoutMs, from = 0) {
      return new Promise<void>((resolvePromise, reject) => {
        const check = () => {
          if (re.test(out.slice(from))) {
            cleanup();
            resolvePromise();
          } else if (exited) {
            cleanup();
            reject(
              new Error(
                `${name} exited (code ${child.exitCode}, signal ${child.signalCode}) before printing ${re}:\n${out.slice(-3000)}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${name} did not print ${re} within ${timeoutMs} ms:\n${out.slice(-3000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    kill: (signal) => killGroup(child, signal),
    exited: exitedPromise,
  };
}

/** The environment of a spawned API or worker: the test's own, plus what the suite sets. */
export function appEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'test',
    // No metrics listener: several processes of one test would fight over the default port.
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    // A worker's warm-up (apps/worker/src/warm-up.ts) kept short: 3,000 loopback checks would add seconds to every start.
    WORKER_WARMUP_CHECKS: '100',
    ...overrides,
  };
}

/** A worker process as an operator starts it (apps/worker/src/main.ts). Ready once BullMQ says so. */
export async function startWorkerProcess(name: string, env: Record<string, string>): Promise<Proc> {
  const proc = spawnProcess(name, process.execPath, appCommand('worker'), appEnv(env));
  await proc.waitForOutput(/worker ready on queue/, 60_000);
  return proc;
}

/** An API process (apps/api/src/main.ts) on `port`. Ready once it answers /healthz. */
export async function startApiProcess(name: string, port: number, env: Record<string, string>): Promise<Proc> {
  const proc = spawnProcess(
    name,
    process.execPath,
    appCommand('api'),
    appEnv({ ...env, PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }),
  );
  await until(
    async () => {
      if (!proc.alive()) throw new Error(`${name} exited:\n${proc.output().slice(-3000)}`);
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      return res?.ok ?? false;
    },
    60_000,
    `${name} to answer /healthz`,
    200,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${proc.output().slice(-3000)}`);
  });
  return proc;
}

// ---------------------------------------------------------------------------------------------------------------
// A private redis-server: a suite may stop, restart and flush it. The shared Redis is never touched.
// ---------------------------------------------------------------------------------------------------------------

export function which(name: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/local/bin', '/usr/bin', '/usr/sbin', '/bin']) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return null;
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** Starts (or restarts) the server on the same port and data directory: an AOF restart. */
  start(): Promise<void>;
  /** SIGKILL: the harshest stop; AOF (appendfsync everysec) may lose the last second. */
  kill(): Promise<void>;
  client(): Redis;
  /** Stops it for good and removes its data directory. */
  destroy(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const bin = which('redis-server');
  if (!bin) {
    throw new Error(
      'redis-server is not installed: the Redis resilience test runs a private one (apt-get install redis-server; the CI workflow installs it)',
    );
  }
  return onFreshPorts(async () => {
    const redis = privateRedisOn(bin, await freePort());
    try {
      await redis.start();
    } catch (err) {
      await redis.destroy();
      throw err;
    }
    return redis;
  });
}

function privateRedisOn(bin: string, port: number): PrivateRedis {
  const dir = mkdtempSync(join(tmpdir(), 'sv-res-redis-'));
  let proc: Proc | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const clients: Redis[] = [];
  const ping = async () => {
    const c = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 500,
    });
    c.on('error', () => undefined);
    try {
      await c.connect();
      return (await c.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      c.disconnect();
    }
  };
  const api: PrivateRedis = {
    port,
    url,
    dir,
    async start() {
      proc = spawnProcess(
        `redis-${port}`,
        bin,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--appendonly',
          'yes',
          '--appendfsync',
          'everysec',
          '--dir',
          dir,
          '--save',
          '',
          '--maxmemory-policy',
          'noeviction',
          '--daemonize',
          'no',
        ],
        process.env,
      );
      const started = proc;
      await until(async () => !started.alive() || (await ping()), 15_000, `redis-server on ${port}`);
      if (!started.alive())
        throw new NodeExitedError(`redis-server on ${port} exited:\n${started.output().slice(-2000)}`);
    },
    async kill() {
      if (!proc) return;
      proc.kill('SIGKILL');
      await proc.exited;
      proc = null;
    },
    client() {
      const c = new Redis(url, { maxRetriesPerRequest: null });
      c.on('error', () => undefined);
      clients.push(c);
      return c;
    },
    async destroy() {
      for (const c of clients) c.disconnect();
      await api.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return api;
}

// ---------------------------------------------------------------------------------------------------------------
// Scratch databases: spawned workers reconcile and check every enabled monitor of their database, so suites that
// start them get a database of their own instead of sharing the test database with every other suite.
// ---------------------------------------------------------------------------------------------------------------

export interface ScratchDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(label: string): Promise<ScratchDatabase> {
  const base = new URL(process.env.DATABASE_URL!);
  const name = `${base.pathname.slice(1)}_${label}_${randomUUID().slice(0, 8)}`
    .replace(/[^a-z0-9_]/gi, '_')
    .slice(0, 63);
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Deletes every key of a BullMQ prefix (and the suite's own keys) from a shared Redis. */
export async function deleteKeys(redisUrl: string, patterns: string[]): Promise<void> {
  const c = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  c.on('error', () => undefined);
  try {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await c.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await c.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    c.disconnect();
  }
}

/** True when `pid` is a live process (not a zombie). */
export function pidAlive(pid: number): boolean {
  const r = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  const stat = r.stdout.trim();
  return stat !== '' && !stat.startsWith('Z');
}

// ---------------------------------------------------------------------------------------------------------------
// A private Redis Cluster: three masters (no replicas) from the same redis-server binary on loopback ports, slots
// split evenly, joined with CLUSTER ADDSLOTS / MEET (no redis-cli needed).
// ---------------------------------------------------------------------------------------------------------------

export interface PrivateRedisCluster {
  /** `127.0.0.1:<port>` of each master, as REDIS_CLUSTER_NODES takes them. */
  readonly nodes: string[];
  /** Which master serves each key (CLUSTER KEYSLOT + CLUSTER SLOTS): the test shows keys spread over them. */
  nodeOfKey(key: string): Promise<string>;
  /** Every key on every master matching `pattern`. */
  keys(pattern: string): Promise<string[]>;
  /** Stops every node and removes their data directories. */
  destroy(): Promise<void>;
}

export async function startRedisCluster(masters = 3): Promise<PrivateRedisCluster> {
  const bin = which('redis-server');
  if (!bin) {
    throw new Error(
      'redis-server is not installed: the Redis Cluster test runs private ones (apt-get install redis-server; the CI workflow installs it)',
    );
  }
  return onFreshPorts(() => startRedisClusterOn(bin, masters));
}

/** A server started on a port that freePort found free exited before it answered. */
class NodeExitedError extends Error {}

/**
 * A port freePort found free can be taken by another process before a server binds it (the suites run in parallel):
 * that server exits at once (NodeExitedError), and `start` runs again on new ports, up to three times in all.
 */
async function onFreshPorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (!(err instanceof NodeExitedError) || attempt === 3) throw err;
    }
  }
}

async function startRedisClusterOn(bin: string, masters: number): Promise<PrivateRedisCluster> {
  const root = mkdtempSync(join(tmpdir(), 'sv-res-cluster-'));
  const procs: Proc[] = [];
  const admin: Redis[] = [];
  const destroy = async () => {
    for (const c of admin) c.disconnect();
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const ports: Array<{ port: number; bus: number }> = [];
    // The bus port is given explicitly: port + 10000 (the default) is out of range for a high ephemeral port.
    for (let i = 0; i < masters; i++) ports.push({ port: await freePort(), bus: await freePort() });
    for (const [i, { port, bus }] of ports.entries()) {
      const dir = join(root, String(i));
      mkdirSync(dir);
      procs.push(
        spawnProcess(
          `redis-cluster-${port}`,
          bin,
          [
            ...['--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1'],
            ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'],
            ...['--dir', dir, '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
            ...['--daemonize', 'no'],
          ],
          process.env,
        ),
      );
    }
    for (const [i, { port }] of ports.entries()) {
      const c = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, lazyConnect: true });
      c.on('error', () => undefined);
      admin.push(c);
      const node = procs[i]!;
      await until(
        async () => !node.alive() || (await c.connect().then(() => c.ping())) === 'PONG',
        15_000,
        `redis-server on ${port}`,
      );
      if (!node.alive()) throw new NodeExitedError(`redis-server on ${port} exited:\n${node.output().slice(-2000)}`);
    }
    // 16384 slots in `masters` even ranges, then every node meets the first.
    const per = Math.ceil(16384 / masters);
    for (const [i, c] of admin.entries()) {
      const slots = Array.from({ length: Math.min(per, 16384 - i * per) }, (_, k) => i * per + k);
      await c.call('CLUSTER', 'ADDSLOTS', ...slots.map(String));
    }
    for (const { port, bus } of ports.slice(1)) {
      await admin[0]!.call('CLUSTER', 'MEET', '127.0.0.1', String(port), String(bus));
    }
    await until(
      async () => {
        for (const c of admin) {
          const info = String(await c.call('CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok') || !info.includes(`cluster_known_nodes:${masters}`)) return false;
        }
        return true;
      },
      30_000,
      'the cluster to be ok on every node',
      200,
    );
  } catch (err) {
    await destroy();
    throw err;
  }
  const nodes = admin.map((c) => `127.0.0.1:${c.options.port}`);
  return {
    nodes,
    async nodeOfKey(key) {
      const slot = Number(await admin[0]!.call('CLUSTER', 'KEYSLOT', key));
      const ranges = (await admin[0]!.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      const hit = ranges.find(([from, to]) => slot >= from && slot <= to);
      return hit ? `127.0.0.1:${hit[2][1]}` : 'none';
    },
    async keys(pattern) {
      const all: string[] = [];
      for (const c of admin) {
        let cursor = '0';
        do {
          const [next, found] = await c.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          cursor = next;
          all.push(...found);
        } while (cursor !== '0');
      }
      return all;
    },
    destroy,
  };
}
