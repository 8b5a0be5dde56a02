/**
 * Redis restart (AOF) and Redis data loss (FLUSHALL), on a PRIVATE redis-server: the API answers 503 envelopes at
 * once while Redis is away and recovers without a restart; the worker process survives and consumes again; the
 * append-only file brings the schedules back on restart; after a FLUSHALL the worker's housekeeping reconciler
 * (period shortened through HOUSEKEEPING_INTERVAL_MS) gives every enabled monitor its schedulers again.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { parsePartitionSchedulerId, partitionSchedulerId } from '@statusvane/shared';
import type { Redis } from 'ioredis';
import { bearer, makeHarness, makeWorkspace, type Harness } from '../support/harness.js';
import { startTarget, startTcpTarget, type Target, type TcpTarget } from '../support/targets.js';
import {
  createScratchDatabase,
  killAll,
  sleep,
  startPrivateRedis,
  startWorkerProcess,
  until,
  type PrivateRedis,
  type Proc,
  type ScratchDatabase,
} from './support/processes.js';

let db: ScratchDatabase;
let redis: PrivateRedis;
let h: Harness;
let http: Target;
let tcp: TcpTarget;
let worker: Proc;
let token: string;
let direct: Redis;

beforeAll(async () => {
  [db, redis] = await Promise.all([createScratchDatabase('redis'), startPrivateRedis()]);
  h = makeHarness({ DATABASE_URL: db.url, REDIS_URL: redis.url, ALLOWED_TARGET_CIDRS: '127.0.0.1/32' });
  [http, tcp] = await Promise.all([startTarget(), startTcpTarget()]);
  token = (await makeWorkspace(h.prisma)).tokens.owner;
  direct = redis.client();
  worker = await startWorkerProcess('worker', {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: h.queuePrefix,
    ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
    HOUSEKEEPING_INTERVAL_MS: '2000',
  });
}, 90_000);

afterAll(async () => {
  await killAll();
  await h?.close();
  await Promise.all([http?.close(), tcp?.close()]);
  await redis?.destroy();
  await db?.drop();
}, 60_000);

const api = () => request(h.app);

async function createMonitor(body: object): Promise<string> {
  const res = await api().post('/api/v1/monitors').set(bearer(token)).send(body);
  expect(res.status).toBe(201);
  return res.body.data.id as string;
}

/**
 * The partition scheduler ids Redis holds, against the ones PostgreSQL says it should hold: one per interval and
 * offset of the enabled monitors (docs/adr/0020-partitioned-scheduling.md).
 */
async function schedules(): Promise<{ have: string[]; want: string[] }> {
  const have = [...((await h.deps.scheduler.listPartitions()).get('local')?.keys() ?? [])].sort();
  const enabled = await h.prisma.monitor.findMany({
    where: { enabled: true },
    select: { intervalSeconds: true, checkOffsetMs: true },
  });
  const want = enabled.map((m) =>
    partitionSchedulerId({ everyMs: m.intervalSeconds * 1000, offsetMs: m.checkOffsetMs, region: 'local' }),
  );
  return { have, want: [...new Set(want)].sort() };
}
const scheduledAsWanted = async () => {
  const s = await schedules();
  return s.have.length === s.want.length && s.have.every((id, i) => id === s.want[i]) ? s : null;
};

function expect503(res: request.Response, startedAt: number) {
  expect(Date.now() - startedAt).toBeLessThan(5000);
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ error: { code: 'internal', message: expect.any(String) } });
  expect(res.headers['retry-after']).toBe('5');
}

describe('Redis restart and Redis data loss', () => {
  it('503 while away, recovery by itself, schedules kept by AOF and rebuilt by the reconciler after FLUSHALL', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createMonitor({ name: `http ${i}`, target: http.url(`/ok/${i}`) }));
    for (let i = 0; i < 4; i++)
      ids.push(await createMonitor({ type: 'tcp', name: `tcp ${i}`, target: `127.0.0.1:${tcp.port}` }));
    for (let i = 0; i < 3; i++)
      ids.push(await createMonitor({ type: 'heartbeat', name: `hb ${i}`, intervalSeconds: 300 }));
    // Paused monitors must come back paused: no partition of theirs alone.
    for (const id of ids.slice(0, 2)) {
      expect((await api().patch(`/api/v1/monitors/${id}`).set(bearer(token)).send({ enabled: false })).status).toBe(
        200,
      );
    }
    // A pause writes nothing to Redis: the reconciler (worker housekeeping) removes the partitions it emptied.
    const before = await until(scheduledAsWanted, 30_000, 'the schedules of the enabled monitors only');
    expect(before.want.length).toBeGreaterThan(0);
    // The worker consumes: every http/tcp monitor's immediate first check is stored.
    await until(
      async () => (await h.prisma.checkResult.groupBy({ by: ['monitorId'] })).length >= 8,
      30_000,
      'the first checks',
    );

    // --- Redis goes away (SIGKILL, after the AOF's once-a-second fsync has written everything above) ----------------
    await direct.set('resilience:marker', 'survives');
    await sleep(1500);
    await redis.kill();
    for (let i = 0; i < 3; i++) {
      let t = Date.now();
      expect503(await api().get('/api/v1/monitors').set(bearer(token)), t);
      t = Date.now();
      expect503(
        await api()
          .post('/api/v1/monitors')
          .set(bearer(token))
          .send({ name: 'during outage', target: http.url('/x') }),
        t,
      );
      t = Date.now();
      const ready = await api().get('/readyz');
      expect(Date.now() - t).toBeLessThan(5000);
      expect(ready.status).toBe(503);
      expect(ready.body.checks.redis).toBe('unavailable');
      await sleep(500);
    }
    // Nothing half-written by the refused create.
    expect(await h.prisma.monitor.count({ where: { name: 'during outage' } })).toBe(0);
    // Heartbeat pings need only PostgreSQL: still recorded.
    const heartbeat = await h.prisma.monitor.findFirstOrThrow({
      where: { type: 'heartbeat', enabled: true },
      select: { id: true, pingSecret: true },
    });
    const pingedAt = Date.now();
    expect((await api().get(`/ping/${heartbeat.pingSecret}`)).status).toBe(200);
    const pinged = await h.prisma.monitor.findUniqueOrThrow({
      where: { id: heartbeat.id },
      select: { lastPingAt: true },
    });
    expect(pinged.lastPingAt!.getTime()).toBeGreaterThanOrEqual(pingedAt - 1000);
    expect(worker.alive()).toBe(true);

    // --- Redis comes back with its append-only file ----------------------------------------------------------------
    await redis.start();
    // Read at once, straight from Redis, before any reconciler round could have put anything back.
    const [marker, kept] = await Promise.all([
      direct.get('resilience:marker'),
      direct.zrange(`${h.queuePrefix}:checks-local-p:repeat`, '0', '-1'),
    ]);
    expect(marker).toBe('survives');
    expect(kept.sort()).toEqual(before.want);
    // The API recovers by itself, without a restart.
    const recoveredIn = Date.now();
    await until(
      async () => (await api().get('/api/v1/monitors').set(bearer(token))).status === 200,
      15_000,
      'the API to answer 200 again',
    );
    expect(Date.now() - recoveredIn).toBeLessThan(15_000);
    // The worker consumes again: a new monitor's first check is stored.
    const fresh = await createMonitor({ name: 'after restart', target: http.url('/after-restart') });
    await until(
      () => h.prisma.checkResult.findFirst({ where: { monitorId: fresh } }),
      30_000,
      'the first check after the restart',
    );

    // --- Redis loses everything ---------------------------------------------------------------------------------------
    await direct.flushall();
    expect((await schedules()).have).toEqual([]);
    const flushedAt = Date.now();
    const restored = await until(scheduledAsWanted, 60_000, 'every enabled monitor to be scheduled again', 250);
    expect(restored.want.length).toBeGreaterThanOrEqual(before.want.length);
    expect(Date.now() - flushedAt).toBeLessThan(60_000);
    // Each partition's scheduler has its interval.
    for (const [id, every] of (await h.deps.scheduler.listPartitions()).get('local')!) {
      expect([id, every]).toEqual([id, parsePartitionSchedulerId(id)!.everyMs]);
    }
    // And the API and the worker still work on the emptied Redis.
    const afterFlush = await createMonitor({ name: 'after flush', target: http.url('/after-flush') });
    await until(
      () => h.prisma.checkResult.findFirst({ where: { monitorId: afterFlush } }),
      30_000,
      'the first check after the flush',
    );

    expect(worker.alive()).toBe(true);
    expect(worker.output()).not.toMatch(/unhandled|uncaught/i);
  }, 150_000);
});
