import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Job } from 'bullmq';
import { partitionSchedulerId, regionMonitorsWhere, spreadOffsetMs, type Partition } from '@statusvane/shared';
import { readPartitionMembers } from '../apps/worker/src/checks/run-check.js';
import {
  createLimit,
  partitionProcessor,
  type PartitionOutcome,
} from '../apps/worker/src/processors/check.processor.js';
import { makeHarness, makeMonitors, type Harness } from './support/harness.js';
import { makeMonitorInput } from './support/factories.js';
import { checkRunnerDeps, startWorker, waitFor } from './support/worker-harness.js';

// Scheduling per partition (docs/adr/0020-partitioned-scheduling.md): the database keeps each monitor's partition,
// and a partition's job checks its members once per slot.

let h: Harness;
let target: http.Server;
let targetUrl: string;
const hits = new Map<string, number>();
beforeAll(async () => {
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  target = http.createServer((req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => target.close(() => r()));
  await h.close();
});

/** `n` http monitors created through the API, each probing a path of its own on the target. */
async function monitors(n: number): Promise<string[]> {
  const { ids } = await makeMonitors(h, n, (i) =>
    makeMonitorInput({ name: `Member ${i}`, target: `${targetUrl}/${randomUUID()}` }),
  );
  return ids;
}

/**
 * Puts the monitors in one partition of an interval no other suite uses: the interval through an ordinary write (the
 * trigger moves their offsets and scheduledSince), then one offset for all of them, as the hash gives it to many
 * monitors at scale.
 */
async function intoPartition(ids: string[], partition: Partition, since = new Date(Date.now() - 3_600_000)) {
  await h.prisma.monitor.updateMany({
    where: { id: { in: ids } },
    data: { intervalSeconds: partition.everyMs / 1000 },
  });
  await h.prisma.$executeRaw`
    UPDATE monitors SET "checkOffsetMs" = ${partition.offsetMs}, "scheduledSince" = ${since}
     WHERE id = ANY(${ids}::uuid[])`;
}

/** A job of the partition's scheduler for `slot`, as BullMQ hands it to the processor. */
function partitionJob(partition: Partition, slot: number, attemptsMade = 0): Job {
  const key = partitionSchedulerId(partition);
  return {
    id: `repeat:${key}:${slot}`,
    name: 'partition',
    repeatJobKey: key,
    data: partition,
    opts: { repeat: { every: partition.everyMs } },
    attemptsMade,
    stalledCounter: 0,
    timestamp: slot - partition.everyMs,
  } as unknown as Job;
}

const targets = async (ids: string[]) =>
  (await h.prisma.monitor.findMany({ where: { id: { in: ids } }, select: { id: true, target: true } })).map(
    (m) => new URL(m.target!).pathname,
  );

describe('partition membership in the database', () => {
  it('computes the offset with the same hash as spreadOffsetMs, for every interval', async () => {
    const ids = Array.from({ length: 300 }, () => randomUUID());
    const everies = [1000, 10_000, 47_000, 60_000, 300_000, 86_400_000];
    const rows = await h.prisma.$queryRaw<Array<{ id: string; every: number; offset: number }>>`
      SELECT id::text AS id, every, monitor_check_offset_ms(id, every) AS offset
        FROM unnest(${ids}::uuid[]) AS id, unnest(${everies}::int[]) AS every`;
    expect(rows).toHaveLength(ids.length * everies.length);
    for (const r of rows) expect([r.id, r.every, r.offset]).toEqual([r.id, r.every, spreadOffsetMs(r.id, r.every)]);
  });

  it('keeps each monitor offset in step with its interval, and marks when it joined (create, resume, new interval)', async () => {
    const [id] = await monitors(1);
    const read = () =>
      h.prisma.monitor.findUniqueOrThrow({
        where: { id: id! },
        select: { intervalSeconds: true, checkOffsetMs: true, scheduledSince: true, createdAt: true },
      });
    const created = await read();
    expect(created.checkOffsetMs).toBe(spreadOffsetMs(id!, created.intervalSeconds * 1000));
    expect(Math.abs(created.scheduledSince.getTime() - created.createdAt.getTime())).toBeLessThan(5_000);

    await h.prisma.monitor.update({ where: { id: id! }, data: { name: 'renamed' } });
    expect((await read()).scheduledSince).toEqual(created.scheduledSince);
    await h.prisma.monitor.update({ where: { id: id! }, data: { intervalSeconds: 300 } });
    const slower = await read();
    expect(slower.checkOffsetMs).toBe(spreadOffsetMs(id!, 300_000));
    expect(slower.scheduledSince.getTime()).toBeGreaterThan(created.scheduledSince.getTime());
    await h.prisma.monitor.update({ where: { id: id! }, data: { enabled: false } });
    expect((await read()).scheduledSince).toEqual(slower.scheduledSince);
    await h.prisma.monitor.update({ where: { id: id! }, data: { enabled: true } });
    expect((await read()).scheduledSince.getTime()).toBeGreaterThan(slower.scheduledSince.getTime());
  });
});

describe("a partition job's member read", () => {
  it('reads the members each region checks, field for field as Prisma reads them', async () => {
    // Kinds and regions the rule tells apart: none chosen, one, two, only regions no longer configured; a heartbeat
    // and a domain (the first region only).
    const ids = await monitors(6);
    const partition = { everyMs: 47_000, offsetMs: 1250, region: 'eu' };
    await intoPartition(ids, partition);
    const regions = [[], ['us'], ['eu', 'us'], ['gone'], [], []];
    for (const [i, id] of ids.entries())
      await h.prisma.$executeRaw`UPDATE monitors SET regions = ${regions[i]}::text[] WHERE id = ${id}::uuid`;
    await h.prisma.$executeRaw`UPDATE monitors SET type = 'heartbeat', target = NULL WHERE id = ${ids[4]}::uuid`;
    await h.prisma.$executeRaw`UPDATE monitors SET type = 'domain', target = 'example.com' WHERE id = ${ids[5]}::uuid`;
    await h.prisma.monitor.update({ where: { id: ids[0] }, data: { metadata: { team: 'a' }, lastPingAt: new Date() } });
    const checkRegions = ['eu', 'us', 'ap'];
    for (const region of [...checkRegions, 'elsewhere']) {
      const members = await readPartitionMembers(
        { prisma: h.prisma, checkRegions },
        { ...partition, region },
        new Date(),
      );
      const expected = await h.prisma.monitor.findMany({
        where: { id: { in: ids }, enabled: true, ...regionMonitorsWhere(checkRegions, region) },
      });
      expect(members.map((m) => m.id).sort()).toEqual(expected.map((m) => m.id).sort());
      for (const m of members) {
        const row = expected.find((e) => e.id === m.id)!;
        expect(m).toEqual(Object.fromEntries(Object.keys(m).map((k) => [k, row[k as keyof typeof row]])));
      }
    }
    const count = async (region: string) =>
      (await readPartitionMembers({ prisma: h.prisma, checkRegions }, { ...partition, region }, new Date())).length;
    expect([await count('eu'), await count('us'), await count('ap'), await count('elsewhere')]).toEqual([5, 4, 2, 0]);
  });
});

describe('a partition job', () => {
  it('checks each member once for its slot, leaves out the paused and the newly joined, and re-run checks only members without a result', async () => {
    const partition: Partition = { everyMs: 47_000, offsetMs: 12_250, region: 'local' };
    const ids = await monitors(5);
    const [a, b, c, paused, late] = ids as [string, string, string, string, string];
    const slot = Math.floor(Date.now() / partition.everyMs) * partition.everyMs + partition.offsetMs;
    await intoPartition(ids, partition);
    await h.prisma.monitor.update({ where: { id: paused }, data: { enabled: false } });
    // Joined after the slot: its first check is a job of its own; the partition runs it from its next slot.
    await h.prisma.monitor.update({ where: { id: late }, data: { scheduledSince: new Date(slot + 1) } });

    const run = partitionProcessor(checkRunnerDeps(h), createLimit(2));
    const first = await run(partitionJob(partition, slot));
    expect(first.members).toBe(3);
    expect([...first.outcomes.keys()].sort()).toEqual([a, b, c].sort());
    const results = await h.prisma.checkResult.findMany({ where: { monitorId: { in: ids } } });
    expect(results.map((r) => [r.monitorId, r.slot.getTime(), r.outcome]).sort()).toEqual(
      [a, b, c].map((id) => [id, slot, 'up']).sort(),
    );
    const paths = await targets([a, b, c]);
    expect(paths.map((p) => hits.get(p))).toEqual([1, 1, 1]);

    // A retry (or a job back from a crashed worker) after b's result was stored and a's and c's were not.
    await h.prisma.checkResult.deleteMany({ where: { monitorId: { in: [a, c] } } });
    const again = (await run(partitionJob(partition, slot, 1))) as PartitionOutcome;
    expect([...again.outcomes.keys()].sort()).toEqual([a, c].sort());
    expect((await targets([b])).map((p) => hits.get(p))).toEqual([1]);
    expect(await h.prisma.checkResult.count({ where: { monitorId: { in: ids }, slot: new Date(slot) } })).toBe(3);
    // The JSON BullMQ keeps in Redis is a summary.
    expect(JSON.parse(JSON.stringify(again))).toEqual({ members: 2 });
  });

  it('started more than an interval late, checks each member once and records the slots skipped as missed', async () => {
    const partition: Partition = { everyMs: 43_000, offsetMs: 5_000, region: 'local' };
    const ids = await monitors(2);
    const now = Date.now();
    const slot = Math.floor(now / partition.everyMs) * partition.everyMs + partition.offsetMs - 3 * partition.everyMs;
    await intoPartition(ids, partition, new Date(slot - partition.everyMs));
    // BullMQ moved the scheduler on to the first slot still ahead; one read for the whole partition.
    const nextReads: Partition[] = [];
    const deps = {
      ...checkRunnerDeps(h),
      schedules: {
        nextScheduledSlot: () => Promise.reject(new Error('not a per-monitor job')),
        nextPartitionSlot: async (p: Partition) => (nextReads.push(p), new Date(slot + 4 * partition.everyMs)),
      },
    };
    const out = await partitionProcessor(deps, createLimit(5))(partitionJob(partition, slot));
    expect(out.members).toBe(2);
    expect(nextReads).toEqual([partition]);
    const rows = await h.prisma.checkResult.findMany({ where: { monitorId: { in: ids } }, orderBy: { slot: 'asc' } });
    for (const id of ids) {
      const mine = rows.filter((r) => r.monitorId === id);
      expect(mine.map((r) => [r.slot.getTime() - slot, r.outcome])).toEqual(
        [0, 1, 2, 3]
          .map((k) => [k * partition.everyMs, k === 0 ? 'up' : 'missed'])
          .filter(([ms]) => slot + (ms as number) < Date.now()),
      );
    }
  });
});

describe('a worker', () => {
  it('runs the partition jobs of its region queue, at the partition slots', async () => {
    const partition: Partition = { everyMs: 3_000, offsetMs: 1_250, region: 'local' };
    const ids = await monitors(3);
    await intoPartition(ids, partition);
    await h.deps.scheduler.ensurePartition(partition);
    // Ensuring it again is a read: the same scheduler, its next job unchanged.
    const queue = h.deps.scheduler.partitionQueues.get('local')!;
    const before = await queue.getJobScheduler(partitionSchedulerId(partition));
    await h.deps.scheduler.ensurePartition(partition);
    expect(await queue.getJobScheduler(partitionSchedulerId(partition))).toEqual(before);
    expect(before?.every).toBe(partition.everyMs);
    const w = startWorker(h);
    try {
      const inPartition = () =>
        h.prisma.checkResult.findMany({
          where: { monitorId: { in: ids } },
          select: { monitorId: true, slot: true },
        });
      await waitFor(
        async () =>
          new Set(
            (await inPartition())
              .filter((r) => r.slot.getTime() % partition.everyMs === partition.offsetMs)
              .map((r) => r.monitorId),
          ).size === ids.length,
        10_000,
        'a partition run',
      );
    } finally {
      await h.deps.scheduler.removePartition(partition);
      await w.close();
    }
  });
});
