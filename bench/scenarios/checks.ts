/**
 * Check throughput: N one-off check jobs (distinct slots, the scheduler's job options) for M http monitors against
 * the fast local target, through one warmed-up worker process, timed from the first enqueue to the last stored
 * result; and a plain got loop (no queue, no database) with the worker's concurrency against the same target, run
 * just before and just after and averaged: the ceiling.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { CHECK_JOB_NAME, CHECK_JOB_OPTS, checkQueueName, type PrismaClient } from '@statusvane/shared';
import { spawnChild, until } from '../lib/processes.js';
import { bucketDelta, bucketQuantile, buckets, scrape, valueOf } from '../lib/prom.js';
import { createMonitorsBulk, seedWorkspace } from '../lib/seed.js';
import { ROOT } from '../lib/paths.js';
import { join } from 'node:path';

export interface ChecksResult {
  jobs: number;
  monitors: number;
  perSecond: number;
  baselinePerSecond: number;
  ratio: number;
  concurrency: number;
  /** Worker event-loop delay during the run (beyond the monitor's 10 ms period). */
  eventLoopDelayP99Ms: number | null;
  eventLoopDelayMaxMs: number | null;
  /** Upper bound of the bucket holding the median / p99 of the whole check job (read, probe, store). */
  checkDurationP50Ms: number | null;
  checkDurationP99Ms: number | null;
  failures: number;
}

export async function runCheckThroughput(
  input: {
    prisma: PrismaClient;
    redisUrl: string;
    workerMetricsUrl: string;
    targetUrl: string;
    jobs: number;
    monitors: number;
    concurrency: number;
  },
  log: (msg: string) => void,
): Promise<ChecksResult> {
  const ws = await seedWorkspace(input.prisma, 'bench-checks');
  // Enabled (a paused monitor is skipped, not probed), and a day apart so their own schedules stay out of the way.
  const monitors = await createMonitorsBulk(input.prisma, {
    workspaceId: ws.id,
    count: input.monitors,
    type: 'http',
    target: input.targetUrl,
    intervalSeconds: 86400,
    enabled: true,
    name: 'Throughput',
  });
  const ids = monitors.map((m) => m.id);

  const connection = new Redis(input.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(checkQueueName('local'), { connection });
  const runId = Date.now().toString(36);
  let nextSlot = Date.now() - 10 * input.jobs; // distinct and already due: a one-off job's slot is its creation time
  /** Enqueues n jobs and waits until all n results are stored; the time runs to the last result's checkedAt. */
  const runJobs = async (n: number, label: string) => {
    const firstSlot = nextSlot;
    nextSlot += n;
    const t0 = Date.now();
    for (let i = 0; i < n; i += 500) {
      await queue.addBulk(
        Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
          name: CHECK_JOB_NAME,
          data: { monitorId: ids[(i + j) % ids.length]!, region: 'local' },
          // CheckScheduler's own job options (retries, retention), so a bench job costs what a real one does.
          opts: { ...CHECK_JOB_OPTS, jobId: `bench-${runId}-${label}-${i + j}`, timestamp: firstSlot + i + j },
        })),
      );
    }
    const done = await until(
      async () => {
        const [row] = await input.prisma.$queryRaw<Array<{ n: bigint; last: Date | null }>>`
          SELECT count(*) AS n, max("checkedAt") AS last FROM check_results
          WHERE "monitorId" = ANY(${ids}::uuid[]) AND slot >= ${new Date(firstSlot)} AND slot < ${new Date(firstSlot + n)}`;
        return Number(row!.n) >= n ? row!.last! : null;
      },
      60_000 + n * 20,
      `${n} stored results`,
      100,
    );
    return Math.max(1, done.getTime() - t0);
  };
  const gotLoop = async () => {
    const loop = spawnChild(
      'got-loop',
      [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'bench/servers/got-loop.ts')],
      {
        ...process.env,
        TARGET: input.targetUrl,
        COUNT: String(input.jobs),
        CONCURRENCY: String(input.concurrency),
      },
    );
    const line = await loop.waitFor(/\{.*"perSecond".*\}/, 60_000 + input.jobs * 10);
    await loop.stop();
    return JSON.parse(line) as { perSecond: number; failures: number };
  };
  try {
    // A running worker is warm (JIT, Prisma's compiled query plans): a first round, not measured, gets it there.
    await runJobs(Math.min(2000, Math.ceil(input.jobs / 4)), 'warm');
    // The ceiling is measured before and after the worker and averaged: the machine's load drifts.
    const first = await gotLoop();
    const before = await scrape(input.workerMetricsUrl); // also starts a fresh event-loop window
    const elapsedMs = await runJobs(input.jobs, 'run');
    const perSecond = (input.jobs / elapsedMs) * 1000;
    const after = await scrape(input.workerMetricsUrl);
    const second = await gotLoop();
    const baseline = {
      perSecond: (first.perSecond + second.perSecond) / 2,
      failures: first.failures + second.failures,
    };
    const loopP99 = valueOf(after, 'statusvane_event_loop_delay_seconds', { quantile: '0.99' });
    const loopMax = valueOf(after, 'statusvane_event_loop_delay_seconds', { quantile: '1' });
    const dur = bucketDelta(
      buckets(after, 'statusvane_check_duration_seconds'),
      buckets(before, 'statusvane_check_duration_seconds'),
    );
    const failures =
      (valueOf(after, 'statusvane_checks_total', { result: 'down' }) ?? 0) -
      (valueOf(before, 'statusvane_checks_total', { result: 'down' }) ?? 0) +
      (valueOf(after, 'statusvane_checks_total', { result: 'error' }) ?? 0) -
      (valueOf(before, 'statusvane_checks_total', { result: 'error' }) ?? 0);
    log(
      `worker: ${input.jobs} checks stored in ${elapsedMs} ms = ${Math.round(perSecond)} checks/s (event-loop delay p99 ${loopP99 === null ? '?' : (loopP99 * 1000).toFixed(1)} ms)`,
    );
    log(
      `plain got loop: ${Math.round(first.perSecond)} and ${Math.round(second.perSecond)} requests/s (before, after)`,
    );
    const ms = (v: number | null) => (v === null || !Number.isFinite(v) ? null : v * 1000);
    return {
      jobs: input.jobs,
      monitors: input.monitors,
      perSecond,
      baselinePerSecond: baseline.perSecond,
      ratio: perSecond / baseline.perSecond,
      concurrency: input.concurrency,
      eventLoopDelayP99Ms: ms(loopP99),
      eventLoopDelayMaxMs: ms(loopMax),
      checkDurationP50Ms: ms(bucketQuantile(dur, 0.5)),
      checkDurationP99Ms: ms(bucketQuantile(dur, 0.99)),
      failures: failures + baseline.failures,
    };
  } finally {
    await queue.close();
    connection.disconnect();
    // Out of the way of the next scenario: its schedules go with the monitors (the reconciler removes them).
    await input.prisma.workspace.delete({ where: { id: ws.id } });
  }
}
