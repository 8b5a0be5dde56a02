/**
 * PostgreSQL unavailable for 20 s, without touching the shared server: a TCP proxy stands between a spawned API and
 * a spawned worker and their own database, and the test cuts it: open connections destroyed, then for 10 s new ones
 * refused at once (the server is down: retries fail fast and use up their attempts), then for 10 s black-holed (a
 * partition: only the client's own connect timeout can end them). The API answers 503 envelopes within its connect timeout and
 * recovers by itself; check jobs that could not be stored back off and are retried until they are; both processes
 * survive; nothing is lost (and the worker's `results lost` counter says so too).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CheckScheduler, createPrisma, createWorkerRedis, type PrismaClient } from '@statusvane/shared';
import { createToken, createWorkspace } from '../../apps/api/src/services/admin/admin-commands.js';
import { uniq } from '../support/harness.js';
import { storedState } from './support/invariants.js';
import { createScratchDatabase, deleteKeys, freePort, killAll, sleep, startApiProcess, startWorkerProcess, until, type Proc, type ScratchDatabase } from './support/processes.js';
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

  const env = { DATABASE_URL: proxied.toString(), REDIS_URL: process.env.REDIS_URL!, QUEUE_PREFIX: prefix, ALLOWED_TARGET_CIDRS: '127.0.0.1/32' };
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

/** The worker's `statusvane_check_results_lost_total` (all labels), or null when it serves no metrics. */
async function lostResults(): Promise<number | null> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => null);
  if (!res?.ok) return null;
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('statusvane_check_results_lost_total'))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

describe('PostgreSQL unavailable for 20 s', () => {
  it('503 envelopes without hanging, retried checks, no crash, nothing lost', async () => {
    const monitors: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await call('POST', '/api/v1/monitors', { name: `pg ${i}`, target: target.url(`/ok/${i}`) });
      expect(res.status).toBe(201);
      monitors.push((res.body as { data: { id: string } }).data.id);
    }
    await until(async () => (await prisma.checkResult.groupBy({ by: ['monitorId'] })).length === monitors.length, 30_000, 'the first checks');

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
    const during: Array<{ what: string; status: number; ms: number; code?: string; retryAfter?: string | null }> = [];
    let secondRound = false;
    while (Date.now() - cutAt < OUTAGE_MS - 4000) {
      for (const [method, path, body] of [
        ['GET', '/api/v1/monitors', undefined],
        ['GET', `/api/v1/monitors/${monitors[0]}`, undefined],
        ['POST', '/api/v1/monitors', { name: 'during outage', target: target.url('/ok/x') }],
      ] as const) {
        const r = await call(method, path, body);
        during.push({ what: `${method} ${path}`, status: r.status, ms: r.ms, code: (r.body as { error?: { code?: string } }).error?.code, retryAfter: r.headers.get('retry-after') });
      }
      const ready = await call('GET', '/readyz');
      during.push({ what: 'GET /readyz', status: ready.status, ms: ready.ms, code: ready.status === 503 ? 'internal' : undefined, retryAfter: '5' });
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
    expect(during.length).toBeGreaterThanOrEqual(8);
    expect(api.alive()).toBe(true);
    expect(worker.alive()).toBe(true);

    // --- the database comes back -----------------------------------------------------------------------------------
    proxy.restore();
    const restoredAt = Date.now();
    await until(async () => (await call('GET', '/api/v1/monitors')).status === 200, 20_000, 'the API to answer 200 again');
    const apiBackIn = Date.now() - restoredAt;

    const missing = async () => {
      const rows = await prisma.checkResult.findMany({ where: { monitorId: { in: monitors } }, select: { monitorId: true, slot: true } });
      const have = new Set(rows.map((r) => `${r.monitorId}@${r.slot.getTime()}`));
      return enqueued.filter((e) => !have.has(`${e.monitorId}@${e.slot}`));
    };
    // Done when everything is stored, or as soon as a job has run out of attempts (its slot will never be stored).
    await until(async () => (await missing()).length === 0 || (await queue.getFailedCount()) > 0, 90_000, 'every check queued during the outage to be stored');
    expect({ failedJobs: await queue.getFailedCount(), missing: await missing() }).toEqual({ failedJobs: 0, missing: [] });

    // They were stored by retries, after backing off: not by luck before the cut.
    const attempts = await Promise.all(enqueued.map(async (e) => (await queue.getJob(e.jobId))?.attemptsMade ?? 0));
    expect(Math.max(...attempts)).toBeGreaterThanOrEqual(2);
    expect(await queue.getFailedCount()).toBe(0);
    const lost = await lostResults();
    if (lost !== null) expect(lost).toBe(0);

    // Nothing written by the refused creates, every invariant intact, nothing crashed.
    expect(await prisma.monitor.count({ where: { name: 'during outage' } })).toBe(0);
    expect(await storedState(prisma)).toEqual({ duplicateResults: 0, rollupMismatches: [], monitorsWithSeveralOpenIncidents: [] });
    expect(apiBackIn).toBeLessThan(20_000);
    expect(api.alive()).toBe(true);
    expect(worker.alive()).toBe(true);
    for (const p of [api, worker]) expect(p.output()).not.toMatch(/unhandled|uncaught/i);
  }, 200_000);
});
