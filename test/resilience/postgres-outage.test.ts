/**
 * PostgreSQL unavailable for 20 s, without touching the shared server: a TCP proxy stands between a spawned API and
 * a spawned worker and their own database, and the test cuts it: open connections destroyed, then for 10 s new ones
 * refused at once (the server is down: retries fail fast and use up their attempts), then for 10 s black-holed (a
 * partition: only the client's own connect timeout can end them). The API answers 503 envelopes within its connect timeout and
 * recovers by itself; check jobs that could not be stored back off and are retried until they are; both processes
 * survive; nothing is lost (and the worker's `results lost` counter says so too).
 *
 * Then a stall: the server stops answering on the connections the processes already hold, which stay open (no FIN,
 * no RST): only the client's query timeout ends those requests, and they must still be 503s, not 500s.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CheckScheduler, createPrisma, createWorkerRedis, DB_TIMEOUTS, type PrismaClient } from '@statusvane/shared';
import { createToken, createWorkspace } from '../../apps/api/src/admin/admin-commands.js';
import { uniq } from '../support/harness.js';
import { storedState } from './support/invariants.js';
import {
  createScratchDatabase,
  deleteKeys,
  freePort,
  killAll,
  sleep,
  startApiProcess,
  startWorkerProcess,
  until,
  type Proc,
  type ScratchDatabase,
} from './support/processes.js';
import { startSlowTarget } from './support/slow-target.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';

const OUTAGE_MS = 20_000;
const prefix = `bull-pg-${uniq('x').slice(2)}`;

let db: ScratchDatabase;
let prisma: PrismaClient;
let proxy: TcpProxy;
let target: Awaited<ReturnType<typeof startSlowTarget>>;
let api: Proc;
let worker: Proc;
let apiBase: string;
let metricsPort: number;
let token: string;
let scheduler: CheckScheduler;
let schedulerConnection: ReturnType<typeof createWorkerRedis>;

beforeAll(async () => {
  db = await createScratchDatabase('pg');
  prisma = createPrisma(db.url, { max: 3 });
  const upstream = new URL(db.url);
  proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
  const proxied = new URL(db.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  target = await startSlowTarget({ minMs: 20, maxMs: 200 });

  const ws = await createWorkspace(prisma, { slug: uniq('pg'), name: 'PostgreSQL outage' });
  token = (await createToken(prisma, { kind: 'org', workspace: ws.id, role: 'owner' })).token;

  const env = {
    DATABASE_URL: proxied.toString(),
    REDIS_URL: process.env.REDIS_URL!,
    QUEUE_PREFIX: prefix,
    ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
  };
  const apiPort = await freePort();
  metricsPort = await freePort();
  apiBase = `http://127.0.0.1:${apiPort}`;
  [api, worker] = await Promise.all([
    startApiProcess('api', apiPort, env),
    startWorkerProcess('worker', { ...env, METRICS_PORT: String(metricsPort) }),
  ]);
  schedulerConnection = createWorkerRedis(process.env.REDIS_URL!);
  scheduler = new CheckScheduler(['local'], schedulerConnection, prefix);
}, 120_000);

afterAll(async () => {
  await killAll();
  await scheduler?.close().catch(() => undefined);
  schedulerConnection?.disconnect();
  await proxy?.close();
  await target?.close();
  await prisma?.$disconnect();
  await deleteKeys(process.env.REDIS_URL!, [`${prefix}:*`]).catch(() => undefined);
  await db?.drop();
}, 60_000);

interface Timed {
  status: number;
  body: unknown;
  ms: number;
  headers: Headers;
}

async function call(method: string, path: string, body?: object): Promise<Timed> {
  const started = Date.now();
  const res = await fetch(`${apiBase}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    // Far beyond any timeout of the API: a request that needs it has hung.
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed, ms: Date.now() - started, headers: res.headers };
}

/** The worker's `statusvane_check_results_lost_total` (all labels). Its metrics listener is part of the test. */
async function lostResults(): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  const lines = text.split('\n').filter((l) => /^statusvane_check_results_lost_total(\{| )/.test(l));
  // The counter is declared (HELP/TYPE) even before any loss; the sum over its series is the number lost.
  expect(text).toContain('# TYPE statusvane_check_results_lost_total counter');
  return lines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

interface Answer {
  what: string;
  status: number;
  ms: number;
  code?: string;
  retryAfter: string | null;
}

/** The three API calls of the test, each as the client saw it. */
async function apiRound(monitorId: string): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const [method, path, body] of [
    ['GET', '/api/v1/monitors', undefined],
    ['GET', `/api/v1/monitors/${monitorId}`, undefined],
    ['POST', '/api/v1/monitors', { name: 'during outage', target: target.url('/ok/x') }],
  ] as const) {
    const r = await call(method, path, body);
    out.push({
      what: `${method} ${path}`,
      status: r.status,
      ms: r.ms,
      code: (r.body as { error?: { code?: string } }).error?.code,
      retryAfter: r.headers.get('retry-after'),
    });
  }
  return out;
}

/** GET /readyz as the client saw it: its status and body, not an envelope (it is a probe, not an API call). */
async function readiness(): Promise<{ status: number; body: unknown; ms: number }> {
  const r = await call('GET', '/readyz');
  return { status: r.status, body: r.body, ms: r.ms };
}

describe('PostgreSQL unavailable for 20 s', () => {
  it('503 envelopes without hanging, retried checks, no crash, nothing lost', async () => {
    // Traffic once the API says it is ready, as a load balancer sends it: /readyz has reached PostgreSQL (through the
    // proxy) and Redis. /healthz, which startApiProcess waits for, touches neither.
    await until(async () => (await readiness()).status === 200, 30_000, 'the API to be ready');
    const monitors: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call('POST', '/api/v1/monitors', { name: `pg ${i}`, target: target.url(`/ok/${i}`) });
      // Before any outage every create succeeds; if one does not, the API's own account of why goes with the failure.
      if (res.status !== 201) {
        const warnings = api
          .output()
          .split('\n')
          .filter((l) => / (warn|error) /.test(l))
          .slice(-10);
        throw new Error(
          `create ${i} before the outage: ${res.status} ${JSON.stringify(res.body)}\n${warnings.join('\n')}`,
        );
      }
      monitors.push((res.body as { data: { id: string } }).data.id);
    }
    await until(
      async () => (await prisma.checkResult.groupBy({ by: ['monitorId'] })).length === monitors.length,
      30_000,
      'the first checks',
    );

    // Checks queued through the product's own job options (CheckScheduler.runNow): their retries are under test.
    const queue = scheduler.queues.get('local')!;
    const enqueued: Array<{ monitorId: string; jobId: string; slot: number }> = [];
    const enqueueRound = async () => {
      const now = Date.now();
      for (const id of monitors) {
        await scheduler.runNow({ id, type: 'http' }, now);
        const jobId = `now-${id}-local-${now}`;
        const job = await queue.getJob(jobId);
        enqueued.push({ monitorId: id, jobId, slot: job!.timestamp });
      }
    };

    // --- the database goes away ------------------------------------------------------------------------------------
    proxy.cut('refuse');
    const cutAt = Date.now();
    await enqueueRound();
    const during: Answer[] = [];
    const probes: Array<{ status: number; body: unknown; ms: number }> = [];
    let secondRound = false;
    while (Date.now() - cutAt < OUTAGE_MS - 4000) {
      during.push(...(await apiRound(monitors[0]!)));
      probes.push(await readiness());
      const live = await call('GET', '/healthz');
      expect(live.status).toBe(200);
      if (!secondRound && Date.now() - cutAt > OUTAGE_MS / 2) {
        secondRound = true;
        proxy.cut('blackhole');
        await enqueueRound();
      }
    }
    const wait = OUTAGE_MS - (Date.now() - cutAt);
    if (wait > 0) await sleep(wait);
    // Every answer during the outage: a 503 envelope (code internal, Retry-After), within the 3 s connect timeout
    // plus margin, never a hang and never a 500.
    for (const d of during) {
      expect({ ...d, ms: d.ms < 5000 }).toEqual({ ...d, status: 503, code: 'internal', retryAfter: '5', ms: true });
    }
    // Readiness says which dependency is missing, within its own 2 s probe timeout.
    for (const p of probes) {
      expect({ ...p, ms: p.ms < 3000 }).toEqual({
        status: 503,
        body: { status: 'unavailable', checks: { postgres: 'unavailable', redis: 'ok' } },
        ms: true,
      });
    }
    expect(probes.length).toBeGreaterThanOrEqual(3);
    expect(during.length).toBeGreaterThanOrEqual(8);
    expect(api.alive()).toBe(true);
    expect(worker.alive()).toBe(true);

    // --- the database comes back -----------------------------------------------------------------------------------
    proxy.restore();
    const restoredAt = Date.now();
    await until(
      async () => (await call('GET', '/api/v1/monitors')).status === 200,
      20_000,
      'the API to answer 200 again',
    );
    const apiBackIn = Date.now() - restoredAt;

    const missing = async () => {
      const rows = await prisma.checkResult.findMany({
        where: { monitorId: { in: monitors } },
        select: { monitorId: true, slot: true },
      });
      const have = new Set(rows.map((r) => `${r.monitorId}@${r.slot.getTime()}`));
      return enqueued.filter((e) => !have.has(`${e.monitorId}@${e.slot}`));
    };
    // Done when everything is stored, or as soon as a job has run out of attempts (its slot will never be stored).
    await until(
      async () => (await missing()).length === 0 || (await queue.getFailedCount()) > 0,
      90_000,
      'every check queued during the outage to be stored',
    );
    expect({ failedJobs: await queue.getFailedCount(), missing: await missing() }).toEqual({
      failedJobs: 0,
      missing: [],
    });

    // They were stored by retries, after backing off: not by luck before the cut.
    const attempts = await Promise.all(enqueued.map(async (e) => (await queue.getJob(e.jobId))?.attemptsMade ?? 0));
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
    expect(await queue.getFailedCount()).toBe(0);
    expect(await lostResults()).toBe(0);

    // Nothing written by the refused creates, every invariant intact, nothing crashed.
    expect(await prisma.monitor.count({ where: { name: 'during outage' } })).toBe(0);
    expect(await storedState(prisma)).toEqual({
      duplicateResults: 0,
      rollupMismatches: [],
      monitorsWithSeveralOpenIncidents: [],
    });
    expect(apiBackIn).toBeLessThan(20_000);
    expect(api.alive()).toBe(true);
    expect(worker.alive()).toBe(true);
    for (const p of [api, worker]) expect(p.output()).not.toMatch(/unhandled|uncaught/i);
  }, 200_000);

  it('a server that stops answering on open connections: 503 within the query timeout, never a 500 or a hang', async () => {
    // Warm: the API's pool holds live connections (the ones the stall will freeze).
    const monitor = await call('POST', '/api/v1/monitors', { name: 'before the stall', target: target.url('/ok/s') });
    expect(monitor.status).toBe(201);
    const monitorId = (monitor.body as { data: { id: string } }).data.id;
    const warm = await Promise.all(Array.from({ length: 6 }, () => call('GET', '/api/v1/monitors')));
    expect(warm.map((r) => r.status)).toEqual(Array(6).fill(200));

    proxy.cut('stall');
    expect(proxy.stalled()).toBeGreaterThan(0);
    const stalledAt = Date.now();
    // In parallel, as clients would: some requests get a frozen pooled connection (only pg's query timeout ends
    // them), others a new one that is never answered (the connect timeout), and the writes a transaction.
    const [rounds, probe] = await Promise.all([
      Promise.all(Array.from({ length: 3 }, () => apiRound(monitorId))),
      readiness(),
    ]);
    const answers = rounds.flat();
    for (const a of answers) {
      expect({ ...a, ms: a.ms < DB_TIMEOUTS.queryMs * 3 + 3000 }).toEqual({
        ...a,
        status: 503,
        code: 'internal',
        retryAfter: '5',
        ms: true,
      });
    }
    // Each request is bounded by the query timeout (three calls in a row per round).
    expect(Date.now() - stalledAt).toBeLessThan(DB_TIMEOUTS.queryMs * 3 + 5000);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(DB_TIMEOUTS.queryMs + 3000);
    expect({ ...probe, ms: probe.ms < 3000 }).toEqual({
      status: 503,
      body: { status: 'unavailable', checks: { postgres: 'unavailable', redis: 'ok' } },
      ms: true,
    });
    expect(api.alive()).toBe(true);
    expect(worker.alive()).toBe(true);

    proxy.restore();
    await until(
      async () => (await call('GET', '/api/v1/monitors')).status === 200,
      20_000,
      'the API to answer 200 after the stall',
    );
    expect(await prisma.monitor.count({ where: { name: 'during outage' } })).toBe(0);
    expect(api.output()).not.toMatch(/unhandled error|uncaught/i);
    expect(api.alive()).toBe(true);
    expect(worker.alive()).toBe(true);
  }, 120_000);
});
