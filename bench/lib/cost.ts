/**
 * What a stored check costs: CPU time of the processes that do the work (the worker processes, the PostgreSQL server,
 * the Redis server) over a window, and the bytes a stored result takes on disk. Read from /proc (Linux), so it counts
 * CPU time, not wall time: another load on the machine slows the run but hardly changes these figures.
 *
 * PostgreSQL is the whole server: the postmaster, every process it runs now, and the time of the children it has
 * reaped (short-lived backends). On a server other databases also use (the shared local one while tests run), that
 * includes their load: the report names the server so that a reader can tell. The bench's own reads (the results
 * query after the window) are outside the window.
 */
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import type pg from 'pg';
import { Redis as IORedis } from 'ioredis';
import type { Redis } from 'ioredis';
import type { PrismaClient } from '@statusvane/shared';
import { listResultPartitions, packDefaultPartition, packPartition } from '../../apps/worker/src/result-partitions.js';
import type { PackedDays } from './packed-days.js';

const TICK_MS = 10; // USER_HZ is 100 on every Linux this runs on (getconf CLK_TCK)

interface ProcTimes {
  ppid: number;
  /** utime + stime of the process itself, ms. */
  ownMs: number;
  /** cutime + cstime: children it has waited for, ms. */
  reapedMs: number;
}

function procTimes(pid: number): ProcTimes | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may contain spaces: split after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields from 3 on: state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
  const at = (n: number) => Number(fields[n - 3]);
  return { ppid: at(4), ownMs: (at(14) + at(15)) * TICK_MS, reapedMs: (at(16) + at(17)) * TICK_MS };
}

function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (procTimes(Number(name))?.ppid === ppid) out.push(Number(name));
  }
  return out;
}

export interface CostSources {
  workerPids: number[];
  postmasterPid: number | null;
  redisPid: number | null;
}

/** The machine's CPU time from /proc/stat's first line (every core), in ticks: busy and in all. */
interface MachineTicks {
  busy: number;
  total: number;
}

/** Null where /proc/stat cannot be read (not Linux). */
export function machineTicks(): MachineTicks | null {
  let line: string | undefined;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return null;
  }
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is already in user and nice).
  const f = line?.startsWith('cpu ') ? line.slice(4).trim().split(/\s+/).map(Number).slice(0, 8) : [];
  if (f.length < 5 || f.some((n) => !Number.isFinite(n))) return null;
  const total = f.reduce((sum, n) => sum + n, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

export interface CpuSample {
  workerMs: number;
  /** Each worker process's own, in the order of CostSources.workerPids. */
  workerMsByPid: number[];
  postgresMs: number;
  redisMs: number;
  /** The whole machine (/proc/stat), whatever runs on it; null off Linux. */
  machine: MachineTicks | null;
  /** When it was taken (ms). */
  at: number;
}

/** Finds the server processes behind the bench's connections (both on this machine, as the bench requires). */
export async function costSources(prisma: PrismaClient, redis: Redis, workerPids: number[]): Promise<CostSources> {
  const [backend] = await prisma.$queryRaw<Array<{ pid: number }>>`SELECT pg_backend_pid() AS pid`;
  return { workerPids, postmasterPid: postmasterOf(backend?.pid), redisPid: await redisPidOf(redis) };
}

/** The PostgreSQL server process: the parent of one of its backends (from `pg_backend_pid()`). */
function postmasterOf(backendPid: number | undefined): number | null {
  return backendPid === undefined ? null : (procTimes(backendPid)?.ppid ?? null);
}

/** The machine's speed when the run started: the CPU one fixed piece of JavaScript took, in ms (lower is faster). */
export interface ReferenceWork {
  /** The median of `runs`. */
  cpuMs: number;
  runs: number[];
}

/**
 * Times one fixed piece of JavaScript (objects, strings and a Map, as a check's code makes them) in this process, `runs`
 * times, by its CPU time. Every CPU figure of a run moves with the machine. This shows one way it moves: JavaScript
 * itself running slower (timed between runs on the machine of docs/benchmarks.md: about 150 ms in the state where a
 * check cost 0.69 ms, 190-380 ms where the same code cost 1.3-1.7 ms). It misses others: a run that began at 159 ms
 * still measured bare Express at 146 µs a request (99-111 in the fast state) and a check at 1.40 ms.
 */
export function referenceWork(runs = 3): ReferenceWork {
  const times = Array.from({ length: runs }, () => {
    const from = process.cpuUsage();
    const kept = new Map<number, { n: number; text: string }>();
    let length = 0;
    for (let i = 0; i < 3_000_000; i++) {
      const o = { n: i, text: String(i) };
      kept.set(i & 4095, o);
      length += o.text.length;
    }
    if (length !== 19_888_890) throw new Error('reference work: unexpected result');
    const used = process.cpuUsage(from);
    return Math.round((used.user + used.system) / 1000);
  });
  const sorted = [...times].sort((a, b) => a - b);
  return { cpuMs: sorted[Math.floor(sorted.length / 2)]!, runs: times };
}

/** The log line of referenceWork. */
export function referenceWorkLine(r: ReferenceWork): string {
  return `machine speed: a fixed piece of JavaScript took ${r.cpuMs} ms of CPU (median of ${r.runs.join(', ')}); lower is faster, and every CPU figure of this run moves with it`;
}

/** PostgreSQL's and Redis's own CPU before the bench starts anything, in percent of one core. */
export interface ServersAtRest {
  postgresPercent: number;
  redisPercent: number;
  /** Databases in PostgreSQL's cluster that take connections (each with its own autovacuum). */
  databases: number;
  seconds: number;
}

/** Above this (% of one core), a server's own work at rest is worth a warning: every cost per check includes it. */
const BUSY_AT_REST_PERCENT = 1;

/**
 * What PostgreSQL and Redis cost before the bench does anything (its database not yet re-created): the floor under
 * each cost per check, which counts the whole servers. A server is not always at rest when no one is connected: the
 * development server here used 3.5% of a core with the databases of the day's test runs on it (about 0.2 ms of
 * PostgreSQL a check at 10,000 monitors) and 0.3% once they were dropped. 38 empty databases added back cost nothing
 * measurable, so it was most likely autovacuum working through what the suites had written and deleted
 * (docs/benchmarks.md, fourteenth pass).
 */
export async function serversAtRest(admin: pg.Client, redisUrl: string, seconds = 5): Promise<ServersAtRest> {
  const { rows } = await admin.query<{ pid: number; databases: number }>(
    'SELECT pg_backend_pid() AS pid, (SELECT count(*)::int FROM pg_database WHERE datallowconn) AS databases',
  );
  const [{ pid, databases } = { pid: undefined, databases: 0 }] = rows;
  const sources: CostSources = {
    workerPids: [],
    postmasterPid: postmasterOf(pid),
    redisPid: await redisServerPid(redisUrl),
  };
  const before = sampleCpu(sources);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const use = cpuUse(before, sampleCpu(sources));
  return { postgresPercent: use.postgres, redisPercent: use.redis, databases, seconds };
}

/** The log line of serversAtRest, with what to do when a server is busy on its own. */
export function atRestLine(r: ServersAtRest): string {
  const line = `PostgreSQL and Redis at rest: ${r.postgresPercent}% and ${r.redisPercent}% of a core (${r.databases} databases in PostgreSQL's cluster)`;
  if (r.postgresPercent <= BUSY_AT_REST_PERCENT && r.redisPercent <= BUSY_AT_REST_PERCENT) return line;
  const advice =
    r.postgresPercent > BUSY_AT_REST_PERCENT
      ? "; PostgreSQL's own work is often autovacuum in other databases after test runs: wait until it is done, or drop the databases no one uses"
      : '';
  return `${line}. WARNING: the servers are busy on their own, and every cost per check counts it${advice}`;
}

async function redisPidOf(redis: Redis): Promise<number | null> {
  return Number(/^process_id:(\d+)/m.exec(await redis.info('server'))?.[1]) || null;
}

/** The Redis server's PID, on a connection of its own. */
export async function redisServerPid(redisUrl: string): Promise<number | null> {
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    return await redisPidOf(redis);
  } finally {
    redis.disconnect();
  }
}

export function sampleCpu(sources: CostSources): CpuSample {
  const own = (pid: number | null) => (pid === null ? 0 : (procTimes(pid)?.ownMs ?? 0));
  let postgresMs = 0;
  if (sources.postmasterPid !== null) {
    const master = procTimes(sources.postmasterPid);
    postgresMs = (master?.ownMs ?? 0) + (master?.reapedMs ?? 0);
    for (const child of childrenOf(sources.postmasterPid)) postgresMs += own(child);
  }
  const workerMsByPid = sources.workerPids.map(own);
  return {
    workerMs: workerMsByPid.reduce((sum, ms) => sum + ms, 0),
    workerMsByPid,
    postgresMs,
    redisMs: own(sources.redisPid),
    machine: machineTicks(),
    at: Date.now(),
  };
}

/**
 * CPU use of each process over the window, in percent of one core (100 = one core busy all along), and of the whole
 * machine: which resource ran out when checks fall behind (report.ts, capacityVerdict).
 */
export interface CpuUse {
  workers: number[];
  postgres: number;
  redis: number;
  /**
   * The machine's cores (os.availableParallelism()) and how busy they were, in percent of all of them (100 = every
   * core busy all along), counting every process on the machine, the bench's own and anyone else's. Absent in results
   * written before it, null off Linux.
   */
  machine?: { cores: number; busyPercent: number } | null;
}

export function cpuUse(before: CpuSample, after: CpuSample, cores = os.availableParallelism()): CpuUse {
  const wall = Math.max(1, after.at - before.at);
  const pct = (a: number, b: number) => Math.round(((b - a) / wall) * 1000) / 10;
  const m0 = before.machine;
  const m1 = after.machine;
  return {
    workers: after.workerMsByPid.map((ms, i) => pct(before.workerMsByPid[i] ?? 0, ms)),
    postgres: pct(before.postgresMs, after.postgresMs),
    redis: pct(before.redisMs, after.redisMs),
    machine:
      m0 && m1 && m1.total > m0.total
        ? { cores, busyPercent: Math.round(((m1.busy - m0.busy) / (m1.total - m0.total)) * 1000) / 10 }
        : null,
  };
}

export interface CheckCost {
  /** CPU ms per stored check over the window, by process and in all. */
  cpuMsPerCheck: { worker: number; postgres: number; redis: number; total: number };
  /**
   * The same from the window's second interval on: every monitor's first check (pending -> up, an event and an index
   * entry each) and the workers' start (V8 compiling the check path) are behind it. Shown beside cpuMsPerCheck, which
   * the goal judges; absent from results before it (2026-12-01) and from one-interval runs.
   */
  cpuMsPerCheckAfterFirstInterval?: CheckCost['cpuMsPerCheck'];
  /** check_results heap + indexes + TOAST, divided by its rows. */
  bytesPerResult: number;
  resultRows: number;
  /**
   * The same once packed (docs/adr/0017-packed-results.md): check_results + check_results_packed, divided by the
   * results, after packing every day of the run as housekeeping packs a closed one (then rolled back).
   */
  bytesPerResultPacked: number;
  /** Packed rows (one per monitor, region and day) holding them. */
  packedRows: number;
  /**
   * Both figures for whole days (bench/lib/packed-days.ts), which is what housekeeping packs: the run's few minutes
   * pack into rows of a few results each, a closed day into rows of 1,440 at 60 s.
   */
  wholeDay?: PackedDays;
}

export function cpuPerCheck(before: CpuSample, after: CpuSample, checks: number): CheckCost['cpuMsPerCheck'] {
  const per = (a: number, b: number) => (checks > 0 ? (b - a) / checks : NaN);
  const worker = per(before.workerMs, after.workerMs);
  const postgres = per(before.postgresMs, after.postgresMs);
  const redis = per(before.redisMs, after.redisMs);
  return { worker, postgres, redis, total: worker + postgres + redis };
}

/**
 * CPU of one database's work alone: the PostgreSQL backends connected to the caller's database (the API's pool, not the
 * other databases of a shared server, and not the bench's own connection), and one process of ours (the API, or the
 * bare Express baseline), read from /proc. Backends that end within a window are not counted (the API's pool keeps its
 * connections); those that start within it count whole.
 */
export interface ScopedSources {
  /** The process whose CPU is the request's own (the API or the baseline). */
  pid: number;
  /** Reads the PIDs of the backends connected to the bench's database, its own excepted; null: PostgreSQL not counted. */
  backends: (() => Promise<number[]>) | null;
  /** The Redis server (whole: the bench's database is one of a server's 16), or null when not counted. */
  redisPid: number | null;
}

export interface ScopedSample {
  processMs: number;
  /** CPU ms by backend PID. */
  backendMs: Map<number, number>;
  redisMs: number;
}

export async function sampleScoped(sources: ScopedSources): Promise<ScopedSample> {
  const own = (pid: number | null) => (pid === null ? 0 : (procTimes(pid)?.ownMs ?? 0));
  const backendMs = new Map<number, number>();
  for (const pid of (await sources.backends?.()) ?? []) backendMs.set(pid, own(pid));
  return { processMs: own(sources.pid), backendMs, redisMs: own(sources.redisPid) };
}

/** CPU µs per unit of work between two samples, by side and in all. */
export function scopedCpuPerUnit(
  before: ScopedSample,
  after: ScopedSample,
  units: number,
): { process: number; postgres: number; redis: number; total: number } {
  let postgresMs = 0;
  for (const [pid, ms] of after.backendMs) postgresMs += ms - (before.backendMs.get(pid) ?? 0);
  const us = (ms: number) => (units > 0 ? Math.round(((ms * 1000) / units) * 10) / 10 : NaN);
  const process = us(after.processMs - before.processMs);
  const postgres = us(postgresMs);
  const redis = us(after.redisMs - before.redisMs);
  return { process, postgres, redis, total: Math.round((process + postgres + redis) * 10) / 10 };
}

/** The backends of the database `prisma` is connected to, but its own connection. */
export function databaseBackends(prisma: PrismaClient): () => Promise<number[]> {
  return async () =>
    (
      await prisma.$queryRaw<Array<{ pid: number }>>`
        SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`
    ).map((r) => r.pid);
}

/** Bytes on disk per stored result, after a VACUUM so that dead tuples of the run do not count. */
export async function bytesPerResult(prisma: PrismaClient): Promise<{ bytesPerResult: number; resultRows: number }> {
  await prisma.$executeRawUnsafe('VACUUM ANALYZE check_results');
  const [row] = await prisma.$queryRaw<Array<{ bytes: bigint; rows: bigint }>>`
    SELECT (SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c
             WHERE c.oid = 'check_results'::regclass
                OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'check_results'::regclass))::bigint AS bytes,
           (SELECT COUNT(*) FROM check_results)::bigint AS rows`;
  const rows = Number(row?.rows ?? 0);
  return { bytesPerResult: rows > 0 ? Number(row!.bytes) / rows : NaN, resultRows: rows };
}

class RolledBack extends Error {}

/**
 * Bytes per result once the run's days are packed, as housekeeping packs each closed day (packPartition, the default
 * partition's rows with packDefaultPartition), in one transaction that is rolled back: nothing changes for what runs
 * next. Call it after bytesPerResult (its VACUUM); writes meanwhile wait for the transaction (a few seconds): it locks
 * check_results before anything else.
 */
export async function packedBytesPerResult(
  prisma: PrismaClient,
): Promise<{ bytesPerResultPacked: number; packedRows: number; packMs: number }> {
  let out = { bytesPerResultPacked: NaN, packedRows: 0, packMs: NaN };
  await prisma
    .$transaction(
      async (tx) => {
        // Workers may still be storing (a run that fell behind): hold every write off first, so that packing a day
        // still being written cannot deadlock with them (it locks that partition, then the parent to drop it).
        await tx.$executeRawUnsafe('LOCK TABLE check_results IN ACCESS EXCLUSIVE MODE');
        // Every day so far counts as closed: the one after the latest slot stored is the horizon.
        const [latest] = await tx.$queryRaw<Array<{ at: Date | null }>>`SELECT max(slot) AS at FROM check_results`;
        const horizon = new Date(Math.floor((latest?.at?.getTime() ?? Date.now()) / 86_400_000 + 1) * 86_400_000);
        const packStart = performance.now();
        for (const p of await listResultPartitions(tx)) {
          if (p.to !== null && p.to <= horizon) await packPartition(tx, p.name);
        }
        await packDefaultPartition(tx, horizon);
        const packMs = performance.now() - packStart;
        const [row] = await tx.$queryRaw<Array<{ bytes: bigint; rows: bigint; packed: bigint }>>`
          SELECT (SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c
                   WHERE c.oid IN ('check_results'::regclass, 'check_results_packed'::regclass)
                      OR c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'check_results'::regclass))::bigint AS bytes,
                 (SELECT COUNT(*) FROM check_results_all)::bigint AS rows,
                 (SELECT COUNT(*) FROM check_results_packed)::bigint AS packed`;
        const rows = Number(row?.rows ?? 0);
        out = {
          bytesPerResultPacked: rows > 0 ? Number(row!.bytes) / rows : NaN,
          packedRows: Number(row?.packed ?? 0),
          packMs,
        };
        throw new RolledBack();
      },
      { timeout: 600_000 },
    )
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  return out;
}
