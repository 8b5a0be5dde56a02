/**
 * Check throughput: N one-off check jobs (distinct slots, the scheduler's job options) for M http monitors against
 * the fast local target, through one worker process, timed from the first enqueue to the last stored result; then a
 * plain got loop (no queue, no database) with the worker's concurrency against the same target: the ceiling.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { CHECK_JOB_NAME, checkQueueName, type PrismaClient } from '@statusvane/shared';
import { spawnChild, until } from '../lib/processes.js';
import { bucketDelta, bucketQuantile, buckets, scrape, valueOf } from '../lib/prom.js';
import { createMonitorsBulk, seedWorkspace } from '../lib/seed.js';
import { ROOT } from '../lib/paths.js';
import { join } from 'node:path';

/** Mirrors CheckScheduler's job options (retries, retention), so a bench job costs what a real one does. */
const JOB_OPTS = { removeOnComplete: { count: 100 }, removeOnFail: { count: 500 }, attempts: 4, backoff: { type: 'exponential', delay: 2000 } };

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
  input: { prisma: PrismaClient; redisUrl: string; workerMetricsUrl: string; targetUrl: string; jobs: number; monitors: number; concurrency: number },
  log: (msg: string) => void,
): Promise<ChecksResult> {
  const ws = await seedWorkspace(input.prisma, 'bench-checks');
  // Enabled (a paused monitor is skipped, not probed), and a day apart so their own schedules stay out of the way.
  const monitors = await createMonitorsBulk(input.prisma, { workspaceId: ws.id, count: input.monitors, type: 'http', target: input.targetUrl, intervalSeconds: 86400, enabled: true, name: 'Throughput' });
  const ids = monitors.map((m) => m.id);

  const connection = new Redis(input.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(checkQueueName('local'), { connection });
  try {
    const before = await scrape(input.workerMetricsUrl); // also starts a fresh event-loop window
    const runId = Date.now().toString(36);
    const t0 = Date.now();
    const firstSlot = t0 - input.jobs; // distinct, already due: slot = creation time for one-off jobs
    for (let i = 0; i < input.jobs; i += 500) {
      await queue.addBulk(
        Array.from({ length: Math.min(500, input.jobs - i) }, (_, j) => ({
          name: CHECK_JOB_NAME,
          data: { monitorId: ids[(i + j) % ids.length]!, region: 'local' },
          opts: { ...JOB_OPTS, jobId: `bench-${runId}-${i + j}`, timestamp: firstSlot + i + j },
        })),
      );
    }
    const count = async () => {
      const [row] = await input.prisma.$queryRaw<Array<{ n: bigint; last: Date | null }>>`
        SELECT count(*) AS n, max("checkedAt") AS last FROM check_results WHERE "monitorId" = ANY(${ids}::uuid[]) AND slot >= ${new Date(firstSlot)}`;
      return { n: Number(row!.n), last: row!.last };
    };
    const done = await until(async () => {
      const c = await count();
      return c.n >= input.jobs ? c : null;
    }, 60_000 + input.jobs * 20, `${input.jobs} stored results`, 100);
    const elapsedMs = Math.max(1, done.last!.getTime() - t0);
    const perSecond = (input.jobs / elapsedMs) * 1000;
    const after = await scrape(input.workerMetricsUrl);
    const loopP99 = valueOf(after, 'statusvane_event_loop_delay_seconds', { quantile: '0.99' });
    const loopMax = valueOf(after, 'statusvane_event_loop_delay_seconds', { quantile: '1' });
    const dur = bucketDelta(buckets(after, 'statusvane_check_duration_seconds'), buckets(before, 'statusvane_check_duration_seconds'));
    const failures =
      (valueOf(after, 'statusvane_checks_total', { result: 'down' }) ?? 0) -
      (valueOf(before, 'statusvane_checks_total', { result: 'down' }) ?? 0) +
      (valueOf(after, 'statusvane_checks_total', { result: 'error' }) ?? 0) -
      (valueOf(before, 'statusvane_checks_total', { result: 'error' }) ?? 0);
    log(`worker: ${input.jobs} checks stored in ${elapsedMs} ms = ${Math.round(perSecond)} checks/s (event-loop delay p99 ${loopP99 === null ? '?' : (loopP99 * 1000).toFixed(1)} ms)`);

    const loop = spawnChild('got-loop', [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'bench/servers/got-loop.ts')], {
      ...process.env,
      TARGET: input.targetUrl,
      COUNT: String(input.jobs),
      CONCURRENCY: String(input.concurrency),
    });
    const line = await loop.waitFor(/\{.*"perSecond".*\}/, 60_000 + input.jobs * 10);
    await loop.stop();
    const baseline = JSON.parse(line) as { perSecond: number; failures: number };
    log(`plain got loop: ${Math.round(baseline.perSecond)} requests/s`);
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
