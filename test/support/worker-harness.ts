import http from 'node:http';
import { expect } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Job } from 'bullmq';
import { CHECK_JOB_NAME, createLogger, createPrisma, createWorkerRedis, type PrismaClient } from '@statusvane/shared';
import {
  readPartitionMembers,
  runCheck,
  type CheckOutcome,
  type CheckRunnerDeps,
} from '../../apps/worker/src/checks/run-check.js';
import { checkProcessor, type PartitionOutcome } from '../../apps/worker/src/processors/check.processor.js';
import {
  createCheckRunnerDeps,
  createWorkerRuntime,
  type WorkerParts,
  type WorkerRuntimeDeps,
} from '../../apps/worker/src/runtime.js';
import type { Harness } from './harness.js';

/**
 * What runCheck needs, for a test that runs checks itself (the runtime's createCheckRunnerDeps): the harness's
 * database, keys, regions and SSRF guard, and a silent logger. `extraCa`: certificates the http probe trusts besides
 * Node's (self-signed test targets).
 */
export function checkRunnerDeps(h: Harness, { extraCa }: { extraCa?: string[] } = {}): CheckRunnerDeps {
  return createCheckRunnerDeps({
    config: h.config,
    prisma: h.prisma,
    guard: h.deps.guard,
    logger: createLogger({ level: 'error', json: true, service: 'test', silent: true }),
    ...(extraCa ? { extraCa } : {}),
  });
}

/** One check of `monitorId` for `slot` in region `local`, as the runtime's check runner runs it; a skip throws. */
export async function checkAt(h: Harness, monitorId: string, slot: Date) {
  const outcome = await runCheck(checkRunnerDeps(h), { monitorId, region: 'local', slot });
  if ('skipped' in outcome) throw new Error(`check skipped: ${outcome.skipped}`);
  return outcome.result;
}

export interface RuntimeOptions extends Partial<
  Pick<WorkerRuntimeDeps, 'logger' | 'deliverer' | 'housekeeping' | 'parts' | 'timing' | 'tracing'>
> {
  region?: string;
  prisma?: PrismaClient;
  concurrency?: number;
}

/**
 * The worker runtime as apps/worker/src/main.ts runs it (createWorkerRuntime: its workers, metrics, lock settings),
 * on the harness's queues and SSRF guard, with its own Redis connection, and its own database pool when given one.
 * Housekeeping, subscribers and webhooks are off unless asked for: each reads every workspace of the database (it
 * would reconcile every suite's monitors into this suite's queues, or sweep and deliver their events); a suite on a
 * scratch database of its own, or one that exercises them, turns them on. `completed` and `escalations` list the
 * finished check and escalation jobs with what they returned, in order.
 */
export function startRuntime(h: Harness, opts: RuntimeOptions = {}) {
  const connection = createWorkerRedis(h.config.redis);
  connection.on('error', () => undefined);
  const runtime = createWorkerRuntime({
    config: {
      ...h.config,
      region: opts.region ?? 'local',
      queuePrefix: h.queuePrefix,
      ...(opts.concurrency ? { workerConcurrency: opts.concurrency } : {}),
    },
    prisma: opts.prisma ?? h.prisma,
    connection,
    logger:
      opts.logger ??
      createLogger({ level: 'error', json: true, service: 'test-worker', silent: !process.env.TEST_LOG }),
    housekeeping: opts.housekeeping ?? false,
    parts: { subscribers: false, webhooks: false, reports: false, ...opts.parts },
    // The API's guard: a suite that injects a resolver into it (resilience/ssrf) gets it in the worker too.
    guard: h.deps.guard,
    ...(opts.deliverer ? { deliverer: opts.deliverer } : {}),
    ...(opts.timing ? { timing: opts.timing } : {}),
    ...(opts.tracing ? { tracing: opts.tracing } : {}),
  });
  const completed: Array<{ job: Job; outcome: CheckOutcome; monitorId: string }> = [];
  runtime.checkWorker?.on('completed', (job, outcome: CheckOutcome) =>
    completed.push({ job, outcome, monitorId: (job.data as { monitorId: string }).monitorId }),
  );
  // A partition job's members, each with the partition's job.
  runtime.partitionWorker?.on('completed', (job, out: PartitionOutcome) => {
    for (const [monitorId, outcome] of out.outcomes) completed.push({ job, outcome, monitorId });
  });
  const escalations: Array<{ id: string; outcome: unknown }> = [];
  runtime.escalationWorker?.on('completed', (job, outcome: unknown) => escalations.push({ id: job.id!, outcome }));
  return {
    runtime,
    completed,
    escalations,
    async close() {
      await runtime.close();
      connection.disconnect();
    },
  };
}

/** startRuntime for `region` with its check worker (and escalations: an opened incident pages). */
export function startWorker(
  h: Harness,
  region = 'local',
  opts: Omit<RuntimeOptions, 'region' | 'parts'> & { parts?: Omit<Partial<WorkerParts>, 'checks'> } = {},
) {
  const started = startRuntime(h, { ...opts, region, parts: { ...opts.parts, checks: true } });
  const { runtime } = started;
  return {
    ...started,
    worker: runtime.checkWorker!,
    /** The check processor as the runtime's worker runs it, to run a job by hand. */
    processor: checkProcessor(runtime.checkDeps, runtime.metrics),
    deps: runtime.checkDeps,
  };
}

/**
 * A worker per region, each on its own database pool and Redis connection, as workers of different regions run;
 * `checkIn` queues checks of a monitor in some regions at once (slots of their own) and answers their outcomes.
 */
export function startRegionWorkers(h: Harness, regions: readonly string[]) {
  const pools: PrismaClient[] = [];
  const workers: Record<string, ReturnType<typeof startWorker>> = {};
  for (const region of regions) {
    const prisma = createPrisma(h.config.databaseUrl, { max: 5 });
    pools.push(prisma);
    workers[region] = startWorker(h, region, { prisma });
  }
  let n = 0;
  return {
    workers,
    /** `count` checks of the monitor in each of `regions`, all queued at once; resolves when every one has run. */
    async checkIn(monitorId: string, inRegions: string[], count = 1): Promise<Array<CheckOutcome | undefined>> {
      const base = 1_900_000_000_000 + n++ * 1_000_000;
      const jobs = inRegions.flatMap((region) =>
        Array.from({ length: count }, (_, i) => ({
          region,
          jobId: `c-${monitorId}-${region}-${base + i}`,
          slot: base + i,
        })),
      );
      await Promise.all(
        inRegions.map((region) =>
          h.deps.scheduler.queues.get(region)!.addBulk(
            jobs
              .filter((j) => j.region === region)
              .map((j) => ({
                name: CHECK_JOB_NAME,
                data: { monitorId, region },
                opts: { jobId: j.jobId, timestamp: j.slot },
              })),
          ),
        ),
      );
      const outcome = (j: (typeof jobs)[number]) =>
        workers[j.region]!.completed.find((c) => c.job.id === j.jobId)?.outcome;
      await waitFor(async () => jobs.every(outcome), 20_000, `${jobs.length} checks`);
      return jobs.map(outcome);
    },
    async close() {
      await Promise.all(Object.values(workers).map((w) => w.close()));
      await Promise.all(pools.map((p) => p.$disconnect()));
    },
  };
}

let tick = Date.now();
/**
 * One more check of the monitor through the real queue, with a slot of its own; resolves once that very job (runNow's
 * id) has been processed by a worker whose completed jobs are `completed`. Not any job of the monitor: its first check
 * or a scheduled one may complete meanwhile. By default the check counts toward the thresholds as a confirmation
 * would, an interval after the previous one: the region's last counted result is moved back first (agePastGap).
 * `{ confirmation: false }` leaves it, so a check seconds after the previous counted one does not count.
 */
export async function checkOnce(
  h: Harness,
  completed: ReadonlyArray<{ job: Job }>,
  monitorId: string,
  { confirmation = true }: { confirmation?: boolean } = {},
): Promise<void> {
  if (confirmation) await agePastGap(h, monitorId);
  tick += 1000;
  await h.deps.scheduler.runNow({ id: monitorId, type: 'http' }, tick);
  const jobId = `now-${monitorId}-local-${tick}`;
  await waitFor(async () => completed.some((c) => c.job.id === jobId), 10_000, `check ${jobId}`);
}

/**
 * Moves the monitor's last counted results back, as if the next result came long after them: it then counts toward the
 * thresholds instead of being too close to count (within the counting gap: confirmAfterSeconds, or the interval when
 * that is 0). Back an hour, or the interval and confirmAfterSeconds together when longer (CLEAR_OF_SLOTS's day). Under
 * the monitor's lock, as the worker stores results: a group storing a result of it meanwhile (a scheduled check) would
 * otherwise write back the state it read before, undoing this.
 */
export async function agePastGap(h: Pick<Harness, 'prisma'>, monitorId: string): Promise<void> {
  await h.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM monitors WHERE id = ${monitorId}::uuid FOR NO KEY UPDATE`;
    await tx.$executeRaw`
      UPDATE monitor_region_states s
         SET "lastCountedAt" = s."lastCountedAt"
           - greatest(interval '1 hour', make_interval(secs => m."intervalSeconds" + m."confirmAfterSeconds"))
        FROM monitors m
       WHERE m.id = s."monitorId" AND s."monitorId" = ${monitorId}::uuid`;
  });
}

/** The monitor's flap state per region, as the worker stored it. */
export async function regionStates(h: Pick<Harness, 'prisma'>, monitorId: string) {
  const rows = await h.prisma.monitorRegionState.findMany({ where: { monitorId }, orderBy: { region: 'asc' } });
  return rows.map(({ region, consecutiveFailures, consecutivePasses, failing, lastCountedAt }) => ({
    region,
    consecutiveFailures,
    consecutivePasses,
    failing,
    lastCountedAt,
  }));
}

/** A target whose answer the test switches between healthy and failing. */
export async function startSwitchTarget() {
  let status = 200;
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(status === 200 ? 'all good' : 'broken');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/health`,
    setStatus(s: number) {
      status = s;
    },
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function waitFor<T>(
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 10_000,
  label = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Fields for a monitor whose scheduled slots a test does not meet: its partition's slot falls once a day at an
 * instant its id hashes to (docs/adr/0020-partitioned-scheduling.md), so a scheduled check lands within the seconds of
 * a test about once in thousands of runs, not once in dozens as with the default 60 s. For the tests that count
 * results: the create's immediate check, then only the checks the test runs (or promotes: runNextSlotNow). Counting
 * (confirmAfterSeconds, its default 15 s) does not depend on the interval.
 */
export const CLEAR_OF_SLOTS = { intervalSeconds: 86_400 } as const;

/**
 * A new monitor's first stored result, from the check its create queued, waited for up to `timeoutMs`. A timeout means
 * none came; a second result as well (a scheduled slot landing beside the first check) fails at once, listing both:
 * create the monitor with CLEAR_OF_SLOTS.
 */
export async function firstResult(h: Pick<Harness, 'prisma'>, monitorId: string, timeoutMs: number) {
  const stored = await waitFor(
    async () => {
      const r = await h.prisma.checkResult.findMany({ where: { monitorId }, orderBy: { slot: 'asc' } });
      return r.length ? r : null;
    },
    timeoutMs,
    'the first check',
  );
  expect(stored.map((r) => `${r.outcome} slot ${r.slot.toISOString()} at ${r.checkedAt.toISOString()}`)).toHaveLength(
    1,
  );
  return stored[0]!;
}

/** A probe's result as an http check against the switch target gives it (200 up, 503 down), to store directly. */
export function probeResult(outcome: 'up' | 'down') {
  return {
    outcome,
    reason: outcome === 'up' ? null : 'unexpected_status:503',
    responseMs: 5,
    statusCode: outcome === 'up' ? 200 : 503,
    phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 2 },
  };
}

/**
 * Removes the schedulers of a monitor's partitions from this suite's queues, as a Redis data loss would (which also
 * stops this suite's other monitors in the same partitions: same interval and offset). The reconciler restores them.
 */
export async function removeSchedules(h: Pick<Harness, 'prisma' | 'deps'>, monitorId: string): Promise<void> {
  const m = await h.prisma.monitor.findUnique({
    where: { id: monitorId },
    select: { id: true, intervalSeconds: true, type: true, regions: true },
  });
  if (m) await Promise.all(h.deps.scheduler.partitionsOf(m).map((p) => h.deps.scheduler.removePartition(p)));
}

/** Later than any slot: a partition job runs a member only for slots from its `scheduledSince` on. */
const NEVER_SCHEDULED = new Date('9999-01-01T00:00:00Z');

/**
 * Stops the scheduled checks of a monitor, for a test that runs its checks itself (docs/adr/0020-partitioned-
 * scheduling.md): its `scheduledSince` moves past every slot, so no partition job runs it, whichever queue that job
 * comes from (the partition is re-created whenever another monitor with the same interval and offset is created).
 * Resuming it or giving it a new interval schedules it again. Its partitions' schedulers are removed as well.
 */
export async function stopScheduledChecks(h: Pick<Harness, 'prisma' | 'deps'>, monitorId: string): Promise<void> {
  await h.prisma.monitor.updateMany({ where: { id: monitorId }, data: { scheduledSince: NEVER_SCHEDULED } });
  await removeSchedules(h, monitorId);
}

/**
 * The regions whose partition jobs would check the monitor at its next slot: its partition has a scheduler there, and
 * the job's member read (readPartitionMembers) returns it. What a per-monitor scheduler's presence used to say.
 */
export async function scheduledRegions(h: Pick<Harness, 'prisma' | 'deps' | 'config'>, monitorId: string) {
  const m = await h.prisma.monitor.findUnique({
    where: { id: monitorId },
    select: { intervalSeconds: true, checkOffsetMs: true },
  });
  if (!m) return [];
  const at = new Date();
  const found = await Promise.all(
    h.config.checkRegions.map(async (region) => {
      const partition = { everyMs: m.intervalSeconds * 1000, offsetMs: m.checkOffsetMs, region };
      const [next, members] = await Promise.all([
        h.deps.scheduler.nextPartitionSlot(partition),
        readPartitionMembers({ prisma: h.prisma, checkRegions: h.config.checkRegions }, partition, at),
      ]);
      return next !== null && members.some((x) => x.id === monitorId) ? [region] : [];
    }),
  );
  return found.flat().sort();
}
