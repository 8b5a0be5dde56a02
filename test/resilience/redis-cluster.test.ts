/**
 * Statusvane on a Redis Cluster (REDIS_CLUSTER_NODES): a real three-master cluster from the same redis-server binary
 * on loopback ports. The API (rate limiter, schedules, one-off checks), a worker runtime (checks, escalation steps,
 * housekeeping with the schedule reconciler) and their queues all run through it, with every queue's keys under a
 * hash tag of its own, so BullMQ's multi-key scripts never cross slots.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Cluster } from 'ioredis';
import {
  CHECK_JOB_NAME,
  ESCALATION_QUEUE,
  SUBSCRIBER_QUEUE,
  SubscriberQueue,
  checkQueueName,
  partitionQueueName,
  partitionSchedulerId,
  schedulerId,
  type Partition,
} from '@statusvane/shared';
import { createPolicy } from '../../apps/api/src/admin/policy-commands.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from '../support/harness.js';
import { startTarget, type Target } from '../support/targets.js';
import { scheduledRegions, startWorker, removeSchedules, waitFor } from '../support/worker-harness.js';
import {
  createScratchDatabase,
  startRedisCluster,
  type PrivateRedisCluster,
  type ScratchDatabase,
} from './support/processes.js';

let cluster: PrivateRedisCluster;
let db: ScratchDatabase;
let h: Harness;
let target: Target;
let worker: ReturnType<typeof startWorker>;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  db = await createScratchDatabase('cluster');
  target = await startTarget();
  h = makeHarness({
    DATABASE_URL: db.url,
    REDIS_CLUSTER_NODES: cluster.nodes.join(','),
    ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
    HOUSEKEEPING_INTERVAL_MS: '1000',
  });
  // The API's connection fails fast while not ready (no offline queue): wait for the cluster's slot map.
  await waitFor(async () => (await h.redis.ping().catch(() => null)) === 'PONG', 15_000, 'the API cluster connection');
  // Prisma loads its query compiler at its first query; the first test makes none, so housekeeping's timer would make
  // it, and Jest refuses a module load between two tests: loaded here, within the hook.
  await h.prisma.workspace.count();
  // Its own database: housekeeping may reconcile every monitor it sees.
  worker = startWorker(h, 'local', { housekeeping: true });
  await worker.worker.waitUntilReady();
}, 60_000);

afterAll(async () => {
  await worker?.close();
  await h?.close();
  await target?.close();
  await db?.drop();
  await cluster?.destroy();
}, 60_000);

const resultsOf = (monitorId: string) => h.prisma.checkResult.findMany({ where: { monitorId } });

describe('on a Redis Cluster', () => {
  it('connects through the cluster client, and every queue key carries its queue hash tag', async () => {
    expect(h.redis).toBeInstanceOf(Cluster);
    expect(worker.worker.opts.prefix).toBe(`{${h.queuePrefix}:${checkQueueName('local')}}`);
    expect(worker.runtime.partitionWorker!.opts.prefix).toBe(`{${h.queuePrefix}:${partitionQueueName('local')}}`);
    expect(worker.runtime.escalationWorker!.opts.prefix).toBe(`{${h.queuePrefix}:${ESCALATION_QUEUE}}`);
    // The status page subscribers' queue (a worker process's third queue): its sweep scheduler goes in.
    const subscribers = new SubscriberQueue(h.redis, h.queuePrefix);
    await subscribers.ensureSweep();
    await subscribers.close();
    // BullMQ has written its meta keys by now; each queue's keys are on one node, under its own tag.
    const keys = await cluster.keys(`{${h.queuePrefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const queue of [checkQueueName('local'), partitionQueueName('local'), ESCALATION_QUEUE, SUBSCRIBER_QUEUE]) {
      const own = keys.filter((k) => k.startsWith(`{${h.queuePrefix}:${queue}}:${queue}:`));
      expect(own.length).toBeGreaterThan(0);
      expect(new Set(await Promise.all(own.map((k) => cluster.nodeOfKey(k)))).size).toBe(1);
    }
    expect(keys.filter((k) => !/^\{[^}]+\}:/.test(k))).toEqual([]);
  });

  it('the API schedules a monitor and the worker checks it', async () => {
    const { tokens } = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ name: 'Up', target: target.url('/status/200') });
    expect(created.status).toBe(201);
    // The per-token budget is counted in the cluster.
    expect(Number(created.headers['ratelimit-remaining'])).toBeLessThan(600);
    const id = created.body.data.id as string;
    const [result] = await waitFor(
      async () => {
        const r = await resultsOf(id);
        return r.length ? r : null;
      },
      15_000,
      'the first check',
    );
    expect(result).toMatchObject({ outcome: 'up', region: 'local', statusCode: 200 });
    // Its partition's scheduler, in the partition queue's own slot.
    expect(await scheduledRegions(h, id)).toEqual(['local']);
  }, 30_000);

  it('the reconciler adds missing schedules, restores lost ones and removes strays', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ name: 'Lost', target: target.url('/status/200') });
    expect(created.status).toBe(201);
    const lost = created.body.data.id as string;
    // Written to PostgreSQL only: nothing scheduled it.
    const component = await h.prisma.component.create({ data: { workspaceId: ws.id, name: 'Direct' } });
    const direct = await h.prisma.monitor.create({
      data: { workspaceId: ws.id, componentId: component.id, name: 'Direct', target: target.url('/status/200') },
    });
    for (const m of [lost, direct.id]) await removeSchedules(h, m);
    // Strays: an empty partition's scheduler, and a per-monitor one of the previous release.
    const empty: Partition = { everyMs: 60_000, offsetMs: 1, region: 'local' };
    await h.deps.scheduler.ensurePartition(empty);
    const legacy = schedulerId(randomUUID(), 'local');
    await h.deps.scheduler.queues
      .get('local')!
      .upsertJobScheduler(
        legacy,
        { every: 60_000, offset: 1 },
        { name: CHECK_JOB_NAME, data: { monitorId: legacy.split(':')[1], region: 'local' } },
      );

    await waitFor(
      async () => {
        const partitions = (await h.deps.scheduler.listPartitions()).get('local')!;
        const legacyLeft = (await h.deps.scheduler.listSchedulers()).get('local')!;
        return (
          (await scheduledRegions(h, lost)).length === 1 &&
          (await scheduledRegions(h, direct.id)).length === 1 &&
          !partitions.has(partitionSchedulerId(empty)) &&
          !legacyLeft.has(legacy)
        );
      },
      15_000,
      'housekeeping to reconcile the schedules',
    );
  }, 30_000);

  it('an incident opened by a failing check pages through the escalation queue', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    await createPolicy(
      h.prisma,
      {
        workspace: ws.slug,
        json: JSON.stringify({
          name: 'On call',
          steps: [{ delayMinutes: 0, targets: [{ channel: 'webhook', target: target.url(`/hook/${ws.id}`) }] }],
        }),
        default: true,
      },
      { guard: h.deps.guard, encryption: h.config.encryption.current },
    );
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(tokens.owner))
      .send({ name: 'Down', target: target.url('/status/500'), openThreshold: 1 });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;

    const [page] = await waitFor(
      async () => {
        const hits = target.requests.filter((r) => r.path === `/hook/${ws.id}`);
        return hits.length ? hits : null;
      },
      20_000,
      'the webhook page',
    );
    expect(page!.method).toBe('POST');
    const incident = await h.prisma.incident.findFirstOrThrow({ where: { monitorId: id } });
    expect(JSON.parse(page!.body)).toMatchObject({ incident: { id: incident.id } });
    await waitFor(
      async () =>
        (await h.prisma.escalationDelivery.findMany({ where: { incidentId: incident.id } })).some(
          (d) => d.status === 'sent',
        ),
      10_000,
      'the delivery to be recorded as sent',
    );
  }, 40_000);
});
