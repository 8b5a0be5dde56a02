/**
 * Scheduling at scale: `monitors` http monitors at `intervalSeconds` against the fast local target, created in bulk in
 * PostgreSQL and scheduled by `reconcileSchedules` (what the API and workers run), then watched for `intervals` whole
 * intervals. Every monitor has exactly one slot per interval (t % every === its offset), so the window
 * [start, start + intervals x every) must hold exactly `intervals` results per monitor.
 *
 * Detection runs in the same window, on monitors of its own (thresholds 2/2, the default confirmAfterSeconds): each
 * has its own target, which goes down at a random moment of the first interval. Each run's time to the incident is
 * compared with its own bound, (time to its first failing check) + confirmAfterSeconds + 2 s: the first failure is
 * re-checked confirmAfterSeconds after it, and that re-check opens the incident (issue 15). Theory: uniform 0 to 60 s
 * to the first failing check, plus 15 s.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Redis } from 'ioredis';
import {
  CheckScheduler,
  DEFAULT_CONFIRM_AFTER_SECONDS,
  monitorSource,
  reconcileSchedules,
  spreadOffsetMs,
  type PrismaClient,
} from '@statusvane/shared';
import { sleep, until } from '../lib/processes.js';
import { bucketDelta, bucketQuantile, buckets, scrape, valueOf, percentile } from '../lib/prom.js';
import { createMonitorsBulk, seedWorkspace } from '../lib/seed.js';
import {
  bytesPerResult,
  packedBytesPerResult,
  costSources,
  cpuPerCheck,
  cpuUse,
  sampleCpu,
  type CheckCost,
  type CpuSample,
  type CpuUse,
} from '../lib/cost.js';
import { redisMemory } from '../lib/stack.js';

export interface SchedulingResult {
  monitors: number;
  /** Worker processes sharing the queue. */
  workers: number;
  intervalSeconds: number;
  intervals: number;
  windowStart: string;
  expected: number;
  /** Slots whose check ran and was stored. */
  stored: number;
  /** Slots without a check: expected - stored. */
  missed: number;
  /** Of those, the ones the workers recorded as `missed` (no data) rather than left without a row. */
  recordedMissed: number;
  /** Checks that ran per monitor over the window: how evenly a shortage was shared. */
  checksPerMonitor: { min: number; max: number };
  /** Each monitor's mean lateness (ms), lowest and highest: how evenly the lateness was shared. */
  meanLatenessPerMonitorMs: { min: number; max: number };
  /** The workers' lag warnings during the window (`checks are N s behind; about K workers would catch up`). */
  lagWarnings: string[];
  /** Each process's CPU over the window, percent of one core: which resource ran out. */
  cpuPercent: CpuUse;
  duplicated: number;
  /** Results whose slot is not one of the monitor's slots (0 unless the schedule drifted). */
  offSlot: number;
  latenessP50Ms: number;
  latenessP99Ms: number;
  latenessMaxMs: number;
  /**
   * p99 of the slots from the window's second interval on: every monitor's first check (pending -> up, an event and
   * an index entry each, in the first interval) and the workers' start are behind them. Shown beside latenessP99Ms,
   * which the goal judges; absent from results before it (2026-12-01).
   */
  latenessP99AfterFirstIntervalMs?: number;
  /** From the worker's own histogram over the window (bucket upper bound). */
  workerLatenessP99BucketMs: number | null;
  createMonitorsMs: number;
  reconcileMs: number;
  redisMemoryBytes: number;
  redisKeys: number;
  redisServerUsedBytes: number;
  workerRssBytes: number | null;
  workerEventLoopDelayP99Ms: number | null;
  resultsLost: number;
  /** CPU per stored check (worker, PostgreSQL and Redis processes over the window) and bytes per stored result. */
  cost: CheckCost;
  /** Sorted lateness values (ms), for the chart; not written to the results file. */
  lateness: number[];
}

export interface DetectionResult {
  intervalSeconds: number;
  openThreshold: number;
  /** The detection monitors' confirmAfterSeconds (the default): the first failure is re-checked this much later. */
  confirmAfterSeconds: number;
  /** interval + confirmAfterSeconds: the longest it may take, plus the checks themselves. */
  theoreticalMaxSeconds: number;
  runs: Array<{
    secondsToIncident: number | null;
    /** From the target going down to the first failing check's result. */
    secondsToFirstFailure: number | null;
    /** secondsToFirstFailure + confirmAfterSeconds + 2 s: what the incident must open within. */
    boundSeconds: number | null;
    withinBound: boolean | null;
  }>;
  meanSeconds: number | null;
  maxSeconds: number | null;
}

/**
 * The lowest and highest of one figure per monitor. Not Math.min(...xs): spreading an array into arguments overflows
 * the stack from about 125,000 elements, which `--monitors 150000` would reach after the whole run.
 */
function rangeOf(xs: readonly number[]): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { min, max };
}

/** Slack over (first failing check) + confirmAfterSeconds for the re-check's own run (issue 15). */
const DETECTION_SLACK_SECONDS = 2;

async function switchTarget() {
  let up = true;
  const server = http.createServer((_req, res) => {
    res.writeHead(up ? 200 : 503, { 'content-type': 'text/plain' });
    res.end(up ? 'ok' : 'down');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    down: () => (up = false),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export async function runScheduling(
  input: {
    prisma: PrismaClient;
    redisUrl: string;
    /** One per worker process; their figures are summed. */
    workerMetricsUrls: string[];
    /** The worker processes, whose CPU time counts toward the cost per check. */
    workerPids: number[];
    /** What the workers printed (for their lag warnings; checks only fall behind in this scenario). */
    workerOutput: () => string;
    targetUrl: string;
    monitors: number;
    intervalSeconds: number;
    intervals: number;
    detectionRuns: number;
    detectionIntervalSeconds: number;
  },
  log: (msg: string) => void,
): Promise<{ scheduling: SchedulingResult; detection: DetectionResult }> {
  const { prisma } = input;
  const every = input.intervalSeconds * 1000;
  const openThreshold = 2;

  const ws = await seedWorkspace(prisma, 'bench-scale');
  let t = Date.now();
  const monitors = await createMonitorsBulk(prisma, {
    workspaceId: ws.id,
    count: input.monitors,
    type: 'http',
    target: input.targetUrl,
    intervalSeconds: input.intervalSeconds,
    enabled: true,
    name: 'Scale',
  });
  const createMonitorsMs = Date.now() - t;
  log(`created ${input.monitors} monitors in ${createMonitorsMs} ms`);

  const detectWs = await seedWorkspace(prisma, 'bench-detect');
  const targets = await Promise.all(Array.from({ length: input.detectionRuns }, () => switchTarget()));
  const detectMonitors: string[] = [];
  for (const target of targets) {
    const [m] = await createMonitorsBulk(prisma, {
      workspaceId: detectWs.id,
      count: 1,
      type: 'http',
      target: target.url,
      intervalSeconds: input.detectionIntervalSeconds,
      enabled: true,
      openThreshold,
      name: 'Detect',
    });
    detectMonitors.push(m!.id);
  }

  const connection = new Redis(input.redisUrl, { maxRetriesPerRequest: null });
  const scheduler = new CheckScheduler(['local'], connection);
  try {
    t = Date.now();
    const report = await reconcileSchedules(scheduler, monitorSource(prisma));
    const reconcileMs = Date.now() - t;
    log(
      `reconciled ${report.desired} partition schedulers (${report.added} added, ${report.removed} removed) in ${reconcileMs} ms`,
    );

    // The window starts once every scheduler exists: each later slot must be run exactly once.
    const windowStart = Date.now() + 1000;
    const windowEnd = windowStart + input.intervals * every;
    // Where the figures "from the second interval" start: every monitor's first check and the workers' start behind.
    const secondInterval = windowStart + every;
    const sources = await costSources(prisma, connection, input.workerPids);
    await sleep(windowStart - Date.now());
    const scrapeAll = async () => (await Promise.all(input.workerMetricsUrls.map(scrape))).flat();
    const before = await scrapeAll();
    const cpuBefore = sampleCpu(sources);
    const cpuFrom = new Date();

    // Detection: each target goes down once in the first interval, at a phase of its monitor's schedule of its own.
    const detectEvery = input.detectionIntervalSeconds * 1000;
    const detectOffsets = await prisma.monitor.findMany({
      where: { id: { in: detectMonitors } },
      select: { id: true, checkOffsetMs: true },
    });
    const offsetOf = new Map(detectOffsets.map((m) => [m.id, m.checkOffsetMs]));
    const downs = targets.map((target, i) => {
      const at = outageMoment({
        from: windowStart,
        everyMs: detectEvery,
        offsetMs: offsetOf.get(detectMonitors[i]!)!,
        phase: (i + 0.5) / targets.length,
      });
      return sleep(at - Date.now()).then(() => {
        target.down();
        return { monitorId: detectMonitors[i]!, downAt: at };
      });
    });
    const detection = Promise.all(
      downs.map(async (d) => {
        const { monitorId, downAt } = await d;
        const deadline = 2 * detectEvery + DEFAULT_CONFIRM_AFTER_SECONDS * 1000 + 15_000;
        const incident = await until(
          () => prisma.incident.findFirst({ where: { monitorId }, select: { startedAt: true } }),
          deadline,
          'an incident',
          200,
        ).catch(() => null);
        const [first] = await prisma.$queryRaw<Array<{ at: Date | null }>>`
          SELECT min("checkedAt") AS at FROM check_results
          WHERE "monitorId" = ${monitorId}::uuid AND outcome = 'down' AND "checkedAt" >= ${new Date(downAt)}`;
        const secondsToIncident = incident ? (incident.startedAt.getTime() - downAt) / 1000 : null;
        const secondsToFirstFailure = first?.at ? (first.at.getTime() - downAt) / 1000 : null;
        const boundSeconds =
          secondsToFirstFailure === null
            ? null
            : secondsToFirstFailure + DEFAULT_CONFIRM_AFTER_SECONDS + DETECTION_SLACK_SECONDS;
        return {
          secondsToIncident,
          secondsToFirstFailure,
          boundSeconds,
          withinBound: secondsToIncident === null || boundSeconds === null ? null : secondsToIncident <= boundSeconds,
        };
      }),
    );

    log(`watching ${input.intervals} interval(s) of ${input.intervalSeconds} s...`);
    // The CPU is read again when the second interval starts, for the cost from there on (cpuMsPerCheckAfterFirstInterval).
    let second: { cpu: CpuSample; from: Date } | null = null;
    if (input.intervals > 1) {
      await sleep(secondInterval - Date.now());
      second = { cpu: sampleCpu(sources), from: new Date() };
    }
    // Progress every interval; the last results of the window may land a little after it ends.
    while (Date.now() < windowEnd) await sleep(Math.min(every, windowEnd - Date.now()));
    const grace = Math.min(15_000, Math.max(5000, every / 4));
    await sleep(grace);
    const cpuAfter = sampleCpu(sources);
    const cpuTo = new Date();
    const perWorker = await Promise.all(input.workerMetricsUrls.map(scrape));
    const after = perWorker.flat();
    const lagWarnings = [...input.workerOutput().matchAll(/checks are \d+ s behind;[^"\n]*/g)].map((m) => m[0]);
    const cpuPercent = cpuUse(cpuBefore, cpuAfter);
    log(
      `CPU over the window (% of one core, ${os.availableParallelism()} cores): workers ${cpuPercent.workers.join(' + ')}, PostgreSQL ${cpuPercent.postgres}, Redis ${cpuPercent.redis}; the machine ${cpuPercent.machine ? `${cpuPercent.machine.busyPercent}% busy` : 'n/a'}`,
    );
    const runs = await detection;
    // Every check stored while the CPU was counted, the detection monitors' included: they cost the same.
    const checksFrom = async (from: Date) => {
      const [counted] = await prisma.$queryRaw<Array<{ checks: bigint }>>`
        SELECT COUNT(*)::bigint AS checks FROM check_results WHERE "checkedAt" >= ${from} AND "checkedAt" < ${cpuTo}`;
      return Number(counted?.checks ?? 0);
    };
    const cost: CheckCost = {
      cpuMsPerCheck: cpuPerCheck(cpuBefore, cpuAfter, await checksFrom(cpuFrom)),
      ...(second && {
        cpuMsPerCheckAfterFirstInterval: cpuPerCheck(second.cpu, cpuAfter, await checksFrom(second.from)),
      }),
      ...(await bytesPerResult(prisma)),
      ...(await packedBytesPerResult(prisma)),
    };

    const ids = monitors.map((m) => m.id);
    const rows = await prisma.$queryRaw<
      Array<{ monitorId: string; slot: Date; checkedAt: Date; responseMs: number | null; missed: boolean }>
    >`
      SELECT "monitorId", slot, "checkedAt", "responseMs", outcome = 'missed' AS missed FROM check_results
      WHERE "monitorId" = ANY(${ids}::uuid[]) AND slot >= ${new Date(windowStart)} AND slot < ${new Date(windowEnd)}`;
    const offsets = new Map(ids.map((id) => [id, spreadOffsetMs(id, every)]));
    let offSlot = 0;
    const seen = new Set<string>();
    let duplicatesInDb = 0;
    const lateness: number[] = [];
    const afterFirstInterval: number[] = [];
    let recordedMissed = 0;
    const checksOf = new Map(ids.map((id) => [id, 0]));
    const latenessOf = new Map(ids.map((id) => [id, 0]));
    for (const r of rows) {
      if (r.slot.getTime() % every !== offsets.get(r.monitorId)) {
        offSlot++;
        continue;
      }
      // The unique key (monitor, region, slot) makes this impossible; counted anyway, as the proof.
      const key = `${r.monitorId}@${r.slot.getTime()}`;
      if (seen.has(key)) duplicatesInDb++;
      if (r.missed) {
        recordedMissed++;
        continue;
      }
      seen.add(key);
      checksOf.set(r.monitorId, checksOf.get(r.monitorId)! + 1);
      // checkedAt is taken after the probe: minus the probe's own time, it is when the check started (plus the
      // monitor read, a millisecond or two).
      const late = Math.max(0, r.checkedAt.getTime() - r.slot.getTime() - (r.responseMs ?? 0));
      lateness.push(late);
      if (r.slot.getTime() >= secondInterval) afterFirstInterval.push(late);
      latenessOf.set(r.monitorId, latenessOf.get(r.monitorId)! + late);
    }
    lateness.sort((a, b) => a - b);
    afterFirstInterval.sort((a, b) => a - b);
    const expected = input.monitors * input.intervals;
    const stored = seen.size;
    const delta = (name: string) => (valueOf(after, name) ?? 0) - (valueOf(before, name) ?? 0);
    const duplicated = delta('statusvane_check_results_duplicate_total') + duplicatesInDb;
    const resultsLost = delta('statusvane_check_results_lost_total');
    const workerLateness = bucketDelta(
      buckets(after, 'statusvane_check_lateness_seconds'),
      buckets(before, 'statusvane_check_lateness_seconds'),
    );
    const p99Bucket = bucketQuantile(workerLateness, 0.99);
    const mem = await redisMemory(input.redisUrl);
    // The worst worker's (a sum over workers means nothing).
    const loops = perWorker
      .map((w) => valueOf(w, 'statusvane_event_loop_delay_seconds', { quantile: '0.99' }))
      .filter((v): v is number => v !== null);
    const loop = loops.length ? Math.max(...loops) : null;
    const perMonitor = [...checksOf.values()];
    const meanLateness = ids.filter((id) => checksOf.get(id)! > 0).map((id) => latenessOf.get(id)! / checksOf.get(id)!);
    const detectionRuns = runs;
    const found = detectionRuns.map((r) => r.secondsToIncident).filter((s): s is number => s !== null);
    return {
      scheduling: {
        monitors: input.monitors,
        workers: input.workerPids.length,
        intervalSeconds: input.intervalSeconds,
        intervals: input.intervals,
        windowStart: new Date(windowStart).toISOString(),
        expected,
        stored,
        missed: Math.max(0, expected - stored),
        recordedMissed,
        checksPerMonitor: rangeOf(perMonitor),
        meanLatenessPerMonitorMs: rangeOf(meanLateness.map(Math.round)),
        lagWarnings,
        cpuPercent,
        duplicated,
        offSlot,
        latenessP50Ms: percentile(lateness, 50),
        latenessP99Ms: percentile(lateness, 99),
        latenessMaxMs: lateness.at(-1) ?? NaN,
        latenessP99AfterFirstIntervalMs: percentile(afterFirstInterval, 99),
        workerLatenessP99BucketMs: p99Bucket === null ? null : p99Bucket * 1000,
        createMonitorsMs,
        reconcileMs,
        redisMemoryBytes: mem.benchKeysBytes,
        redisKeys: mem.keys,
        redisServerUsedBytes: mem.serverUsedBytes,
        workerRssBytes: valueOf(after, 'process_resident_memory_bytes'),
        workerEventLoopDelayP99Ms: loop === null ? null : loop * 1000,
        resultsLost,
        cost,
        lateness,
      },
      detection: {
        intervalSeconds: input.detectionIntervalSeconds,
        openThreshold,
        confirmAfterSeconds: DEFAULT_CONFIRM_AFTER_SECONDS,
        theoreticalMaxSeconds: input.detectionIntervalSeconds + DEFAULT_CONFIRM_AFTER_SECONDS,
        runs: detectionRuns,
        meanSeconds: found.length ? found.reduce((a, b) => a + b, 0) / found.length : null,
        maxSeconds: found.length ? Math.max(...found) : null,
      },
    };
  } finally {
    await scheduler.close();
    connection.disconnect();
    await Promise.all(targets.map((x) => x.close()));
  }
}

/**
 * When a detection run's target goes down: the first moment from `from` on that lies `phase` of an interval before
 * one of its monitor's slots (slots are `offsetMs` past each multiple of `everyMs`, ADR 0020). How long the first
 * failing check waits depends only on where in its interval an outage starts, which the system does not choose; the
 * runs take phases spread evenly over the interval ((i + 0.5) / n) rather than drawn at random, so the mean of a
 * handful of runs measures the detection path, not the draw (six random phases put its mean anywhere from about 30 s
 * to 60 s of a 60 s interval plus the confirmation: full runs of nearly the same code gave 43, 47 and 56 s).
 */
export function outageMoment(input: { from: number; everyMs: number; offsetMs: number; phase: number }): number {
  const { from, everyMs, offsetMs, phase } = input;
  const lead = phase * everyMs;
  // The first slot at or after from + lead.
  const slot = Math.ceil((from + lead - offsetMs) / everyMs) * everyMs + offsetMs;
  return slot - lead;
}
