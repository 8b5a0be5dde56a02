/**
 * A deploy: SIGTERM to an API process under load and to a worker process with running checks. The API first drains
 * (`/readyz` 503 at once while it keeps serving for SHUTDOWN_DRAIN_SECONDS), then stops taking connections and
 * answers every request it has started on (none failed by its own shutdown, none performed without
 * an answer); connections it had not read a request from are closed (the client sees a refusal or a reset, and
 * nothing was done: apps/api/src/shutdown.spec.ts has the second of grace they get). The worker finishes and stores its running checks before it exits, so none of them has to wait
 * for the stalled-job check.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { CHECK_JOB_NAME, checkQueueName, createPrisma, createWorkerRedis, type PrismaClient } from '@statusvane/shared';
import { createToken, createWorkspace } from '../../apps/api/src/admin/admin-commands.js';
import { makeHarness, uniq, type Harness } from '../support/harness.js';
import {
  createScratchDatabase,
  deleteKeys,
  freePort,
  killAll,
  sleep,
  startApiProcess,
  startWorkerProcess,
  until,
  type ScratchDatabase,
} from './support/processes.js';
import { startSlowTarget } from './support/slow-target.js';

let db: ScratchDatabase;
let prisma: PrismaClient;
let h: Harness;
let target: Awaited<ReturnType<typeof startSlowTarget>>;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createScratchDatabase('deploy');
  prisma = createPrisma(db.url, { max: 3 });
  h = makeHarness({ DATABASE_URL: db.url, ALLOWED_TARGET_CIDRS: '127.0.0.1/32' });
  target = await startSlowTarget({ minMs: 1500, maxMs: 2500 });
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: h.config.redis.url!,
    QUEUE_PREFIX: h.queuePrefix,
    ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
  };
}, 60_000);

afterAll(async () => {
  await killAll();
  await target?.close();
  await prisma?.$disconnect();
  await h?.close();
  await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}:*`]).catch(() => undefined);
  await db?.drop();
}, 60_000);

describe('SIGTERM (a deploy)', () => {
  it('the API answers every request it has already accepted, then exits 0', async () => {
    const ws = await createWorkspace(prisma, { slug: uniq('dep'), name: 'Deploy' });
    const token = (await createToken(prisma, { kind: 'org', workspace: ws.id, role: 'owner' })).token;
    const port = await freePort();
    // No drain window: the signal meets the requests at the moment the listener closes.
    const api = await startApiProcess('api', port, { ...env, SHUTDOWN_DRAIN_SECONDS: '0' });
    const names = Array.from({ length: 40 }, () => uniq('deploy'));
    const sent = names.map((name) =>
      fetch(`http://127.0.0.1:${port}/api/v1/monitors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, target: target.url('/ok/api') }),
        signal: AbortSignal.timeout(20_000),
      }).then(
        async (r) => ({ name, status: r.status, body: (await r.json()) as { error?: { code: string } } }),
        (err: Error) => ({
          name,
          status: 0,
          body: { error: { code: (err.cause as { code?: string } | undefined)?.code ?? err.message } },
        }),
      ),
    );
    // The requests are on the wire (accepted or queued in the kernel) when the signal comes.
    await new Promise((r) => setTimeout(r, 30));
    api.kill('SIGTERM');
    const results = await Promise.all(sent);
    await api.exited;
    expect(api.exitCode()).toBe(0);

    // Each request either was answered in full (and did what it said) or was not taken: refused, or its connection
    // closed before the API read it. What was done is exactly what was answered 201.
    const answered = results.filter((r) => r.status !== 0);
    const notTaken = results.filter((r) => r.status === 0);
    expect(answered.filter((r) => r.status !== 201)).toEqual([]);
    expect(
      notTaken.filter((r) => !['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET'].includes(r.body.error?.code ?? '')),
    ).toEqual([]);
    expect(answered.length).toBeGreaterThan(0);
    const stored = await prisma.monitor.findMany({ where: { name: { in: names } }, select: { name: true } });
    expect(stored.map((m) => m.name).sort()).toEqual(answered.map((r) => r.name).sort());
  }, 90_000);

  it('the API turns /readyz to 503 at once, serves through SHUTDOWN_DRAIN_SECONDS, then closes and exits 0', async () => {
    const ws = await createWorkspace(prisma, { slug: uniq('drain'), name: 'Drain' });
    const token = (await createToken(prisma, { kind: 'org', workspace: ws.id, role: 'owner' })).token;
    const port = await freePort();
    // Long enough for two rounds of requests even when a loaded machine takes 2 s over the first (cold) one.
    const drainMs = 5000;
    let t0 = Date.now();
    const api = await startApiProcess('api-drain', port, { ...env, SHUTDOWN_DRAIN_SECONDS: String(drainMs / 1000) });
    const base = `http://127.0.0.1:${port}`;
    const get = (path: string) =>
      fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(5000),
      }).catch((err: Error) => {
        throw new Error(`${path} at ${Date.now() - t0} ms: ${err.message} ${String((err.cause as Error)?.message)}`);
      });
    // Ready before the signal: under load the first PostgreSQL answer can take longer than the check's 2 s.
    await until(async () => (await get('/readyz')).status === 200, 30_000, '/readyz to answer 200 before SIGTERM');

    t0 = Date.now();
    api.kill('SIGTERM');
    // Readiness is 503 at once (the first answer after the signal is handled), the rest still answers, on fresh
    // connections and on each request's own.
    await until(async () => (await get('/readyz')).status === 503, 1000, '/readyz to answer 503', 20);
    const during: Array<{ at: number; path: string; status: number }> = [];
    while (Date.now() - t0 < drainMs - 1000) {
      for (const path of ['/readyz', '/healthz', '/api/v1/monitors']) {
        const r = await get(path);
        await r.arrayBuffer();
        during.push({ at: Date.now() - t0, path, status: r.status });
      }
      const created = await fetch(`${base}/api/v1/monitors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: uniq('drain'), target: target.url('/ok/drain') }),
        signal: AbortSignal.timeout(5000),
      });
      during.push({ at: Date.now() - t0, path: 'POST /api/v1/monitors', status: created.status });
      await sleep(200);
    }
    expect(during.length).toBeGreaterThanOrEqual(8); // two rounds at least: it still serves after the first
    expect(during.filter((d) => d.path === '/readyz' && d.status !== 503)).toEqual([]);
    expect(during.filter((d) => d.path !== '/readyz' && d.status !== (d.path.startsWith('POST') ? 201 : 200))).toEqual(
      [],
    );
    expect(api.alive()).toBe(true);

    // After the window: the listener closes (connections refused) and the process exits 0.
    await api.exited;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(drainMs);
    expect(api.exitCode()).toBe(0);
    await expect(fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  }, 90_000);

  it('the worker finishes and stores its running checks, then exits 0', async () => {
    const ws = await createWorkspace(prisma, { slug: uniq('depw'), name: 'Deploy worker' });
    const monitors: string[] = [];
    for (let i = 0; i < 20; i++) {
      const component = await prisma.component.create({ data: { workspaceId: ws.id, name: `w ${i}` } });
      monitors.push(
        (
          await prisma.monitor.create({
            data: { workspaceId: ws.id, componentId: component.id, name: `w ${i}`, target: target.url(`/ok/${i}`) },
          })
        ).id,
      );
    }
    // A queue of its own: nothing but these checks in it.
    const worker = await startWorkerProcess('worker', { ...env, QUEUE_PREFIX: `${h.queuePrefix}-w` });
    const connection = createWorkerRedis(h.config.redis);
    const queue = new Queue(checkQueueName('local'), { connection, prefix: `${h.queuePrefix}-w` });
    try {
      const slot = Date.now() - 60_000;
      const jobIds = monitors.map(() => `deploy-${randomUUID()}`);
      await queue.addBulk(
        monitors.map((monitorId, i) => ({
          name: CHECK_JOB_NAME,
          data: { monitorId, region: 'local' },
          opts: { jobId: jobIds[i], timestamp: slot },
        })),
      );
      // Every one of them is running (the target takes 1.5-2.5 s to answer) when the signal comes.
      await until(
        async () => {
          const active = new Set((await queue.getActive()).map((j) => j.id));
          return jobIds.every((id) => active.has(id));
        },
        15_000,
        'all checks to be running',
        20,
      );
      worker.kill('SIGTERM');
      await worker.exited;
      expect(worker.exitCode()).toBe(0);
      expect(await prisma.checkResult.count({ where: { monitorId: { in: monitors }, slot: new Date(slot) } })).toBe(
        monitors.length,
      );
      // None left running for the stalled-job check to find.
      expect(await queue.getActiveCount()).toBe(0);
    } finally {
      await queue.close();
      connection.disconnect();
      await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}-w:*`]).catch(() => undefined);
    }
  }, 90_000);
});
