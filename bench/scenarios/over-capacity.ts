/**
 * Over capacity (`npm run bench -- --over-capacity`, issue 20): one worker, twice as many checks due as it can run.
 * Its capacity is made small and known, so that the scenario is light on a shared machine: concurrency 20 against a
 * target that answers after 100 ms (about 200 checks a second); the check-throughput scenario measures it against
 * that target first, then the scheduling scenario runs 2 x (that rate) x interval monitors for six intervals. The same
 * mechanism holds when the store rate is what runs out (the 100,000-monitor run): the queue falls behind either way.
 * Prints the lateness and how evenly it was shared, the slots missed (and recorded as missed), and the worker's lag
 * warnings.
 */
import type { PrismaClient } from '@statusvane/shared';
import { startHelper, type Child } from '../lib/processes.js';
import { startWorker, type StackUrls } from '../lib/stack.js';
import { runCheckThroughput, type ChecksResult } from './checks.js';
import { runScheduling, type SchedulingResult } from './scheduling.js';

export const OVER_CAPACITY = {
  concurrency: 20,
  targetDelayMs: 100,
  intervalSeconds: 10,
  intervals: 6,
  /** Due checks over the measured capacity. */
  factor: 2,
};

export interface OverCapacityResult {
  settings: typeof OVER_CAPACITY;
  /** One worker's checks a second against the slow target (the check-throughput scenario). */
  capacityPerSecond: number;
  duePerSecond: number;
  capacity: Omit<ChecksResult, 'baselinePerSecond' | 'ratio'>;
  scheduling: Omit<SchedulingResult, 'lateness'>;
}

export async function runOverCapacity(
  input: { prisma: PrismaClient; urls: StackUrls; encryptionKey: string; children: Array<Child | undefined> },
  log: (msg: string) => void,
): Promise<OverCapacityResult> {
  const s = OVER_CAPACITY;
  const target = await startHelper('slow-target', 'target.ts', { DELAY_MS: String(s.targetDelayMs) });
  input.children.push(target.child);
  const targetUrl = `http://127.0.0.1:${target.port}/health`;
  const worker = await startWorker(input.urls, input.encryptionKey, { WORKER_CONCURRENCY: String(s.concurrency) });
  input.children.push(worker.child);

  log(`one worker's capacity: concurrency ${s.concurrency}, target answering after ${s.targetDelayMs} ms...`);
  const capacity = await runCheckThroughput(
    {
      prisma: input.prisma,
      redisUrl: input.urls.redisUrl,
      workerMetricsUrl: worker.metricsUrl,
      targetUrl,
      jobs: 2000,
      monitors: 100,
      concurrency: s.concurrency,
    },
    log,
  );
  const monitors = Math.round(s.factor * capacity.perSecond * s.intervalSeconds);
  log(
    `${Math.round(capacity.perSecond)} checks/s: ${monitors} monitors every ${s.intervalSeconds} s are ${s.factor}x that`,
  );
  const { scheduling } = await runScheduling(
    {
      prisma: input.prisma,
      redisUrl: input.urls.redisUrl,
      workerMetricsUrls: [worker.metricsUrl],
      workerPids: [worker.child.pid],
      workerOutput: () => worker.child.output(),
      targetUrl,
      monitors,
      intervalSeconds: s.intervalSeconds,
      intervals: s.intervals,
      detectionRuns: 0,
      detectionIntervalSeconds: s.intervalSeconds,
    },
    log,
  );
  const { lateness, ...figures } = scheduling;
  const { baselinePerSecond: _b, ratio: _r, ...capacityFigures } = capacity;
  log(
    `lateness of the checks that ran: p50 ${figures.latenessP50Ms} ms, p99 ${figures.latenessP99Ms} ms, max ${figures.latenessMaxMs} ms (${lateness.length} checks)`,
  );
  log(
    `checks per monitor over ${s.intervals} intervals: ${figures.checksPerMonitor.min} to ${figures.checksPerMonitor.max}, each monitor's mean lateness ${figures.meanLatenessPerMonitorMs.min} to ${figures.meanLatenessPerMonitorMs.max} ms; slots missed ${figures.missed} of ${figures.expected}, ${figures.recordedMissed} recorded as missed; duplicated ${figures.duplicated}`,
  );
  for (const w of figures.lagWarnings) log(`worker warned: ${w}`);
  return {
    settings: s,
    capacityPerSecond: capacity.perSecond,
    duePerSecond: monitors / s.intervalSeconds,
    capacity: capacityFigures,
    scheduling: figures,
  };
}
