/** The bench's outputs: the console table, the results file (small, commit-able), docs/benchmarks.md and its chart. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { ApiScenarioResult } from '../scenarios/api.js';
import type { ChecksResult } from '../scenarios/checks.js';
import type { ConfigBenchResult } from '../scenarios/config.js';
import type { EventLogOverhead } from '../scenarios/event-log.js';
import type { ResponseTimesResult } from '../scenarios/response-times.js';
import type { StatusPageResult } from '../scenarios/status-page.js';
import type { CheckCost, ReferenceWork, ServersAtRest } from './cost.js';
import type { DetectionResult, SchedulingResult } from '../scenarios/scheduling.js';
import { UPTIME_REPORT_GOAL_CASE, type UptimeReportResult } from '../scenarios/uptime-report.js';
import { CHART_FILE, DOCS_FILE, RESULTS_DIR, ROOT } from './paths.js';
import { percentile } from './prom.js';

export interface BenchResults {
  date: string;
  mode: 'quick' | 'full';
  /** Wall-clock seconds of the run from start to results, the build excluded (a quick run must stay under 120). */
  durationSeconds: number;
  /** Seconds spent bringing the build up to date (0 with --skip-build). */
  buildSeconds: number;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    platform: string;
    /** PostgreSQL's and Redis's own CPU before the run started anything (absent in results written before it). */
    serversAtRest?: ServersAtRest;
    /** The machine's speed when the run started (absent in results written before it). */
    referenceWork?: ReferenceWork;
  };
  /** The full commit the run measured, and whether the checkout had uncommitted changes (gitState: the bench's outputs aside). */
  commit: string | null;
  dirty: boolean | null;
  api: {
    baselineRps: number;
    getMonitorRps: number;
    ratio: number;
    connections: number;
    durationSeconds: number;
    scenarios: ApiScenarioResult[];
  };
  checks: Omit<ChecksResult, never>;
  /** `capacity`: absent in results written before it. */
  scheduling: Omit<SchedulingResult, 'lateness'> & { capacity?: CapacityVerdict };
  pings: { rps: number; p50Ms: number; p99Ms: number; ratio: number };
  /** GET /api/v1/monitors?perPage=100 (issue 20: at least 10% of bare Express). */
  list: { rps: number; p99Ms: number; ratio: number };
  /**
   * Issue 14: the same page with filters (`query`, matching `matching` of the workspace's `monitors`): its req/s over
   * bare Express's (`ratio`) and over the unfiltered list's (`vsUnfiltered`) in the same run (absent in results
   * written before it).
   */
  filteredList?: {
    query: string;
    matching: number;
    monitors: number;
    rps: number;
    p99Ms: number;
    ratio: number;
    vsUnfiltered: number;
  };
  /** The public page of a status page with 50 components and 90 days of history (issue 17). */
  statusPage: StatusPageResult;
  detection: DetectionResult;
  responseTimes: ResponseTimesResult;
  /** Issue 19 (absent in results written before it). */
  config?: ConfigBenchResult;
  /** Issue 18: what the event log adds to POST /monitors and to a check's store time (A/B in the run). */
  eventLog?: EventLogOverhead;
  /** Issue 29: GET /reports/uptime of a month (absent in results written before it). */
  uptimeReport?: UptimeReportResult;
  goals: Goal[];
}

/** Issue 19: plan and apply of a 1,000-monitor document each under this. */
export const CONFIG_GOAL_SECONDS = 10;

/** A quick run's limit, the build excluded: CI runs it on every change. */
export const QUICK_LIMIT_SECONDS = 120;
/** Issue 4: a month of one-minute results for one monitor, the month query under 50 ms. */
export const MONTH_QUERY_GOAL_MS = 50;
/**
 * Issue 14: filters may not make the list slower than it was before they came. The best full-run ratio of
 * `GET /monitors?perPage=100` to bare Express then (bench/results/2026-11-23T221319Z.json).
 */
const LIST_WHEN_FILTERS_CAME = 0.047;
/** Issue 17: the public page's p99 under the bench's load, HTML and JSON. */
export const STATUS_PAGE_GOAL_MS = 50;
/** Issue 29: a report of one month for 1,000 monitors (the CSV of all of them) answers in p99 under this. */
export const UPTIME_REPORT_GOAL_MS = 300;
const UPTIME_REPORT_GOAL_MONITORS = 1000;
const MONTH_ROWS = 30 * 1440;

/**
 * The results file's name: the run's start in ISO 8601 (basic time, no colons, so valid on every file system),
 * `-quick` for a quick run. Names sort by time, and several runs a day each keep their file.
 */
export function resultsFileName(date: Date, quick: boolean): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)}T${iso.slice(11, 19).replaceAll(':', '')}Z${quick ? '-quick' : ''}.json`;
}

export interface Goal {
  goal: string;
  target: string;
  actual: string;
  met: boolean | null;
}

const r0 = (n: number) => Math.round(n).toLocaleString('en-US');
const secs = (n: number) => `${n.toFixed(1)} s`;
const r1 = (n: number | null | undefined) =>
  n === null || n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(1);
const pct = (n: number) => `${Math.round(n * 100)}%`;
const pct1 = (n: number) => `${(n * 100).toFixed(1)}%`;
const mib = (b: number | null) => (b === null ? '-' : `${(b / 1048576).toFixed(1)} MiB`);

export function goalsOf(r: Omit<BenchResults, 'goals'>): Goal[] {
  const atScale = r.scheduling.monitors >= 10_000;
  return [
    ...efficiencyGoals(r.api.scenarios),
    { goal: 'worker vs plain got loop', target: '>= 50%', actual: pct(r.checks.ratio), met: r.checks.ratio >= 0.5 },
    {
      goal: `scheduling p99 lateness (${r0(r.scheduling.monitors)} monitors)`,
      target: '< 1000 ms at 10,000',
      actual: `${r0(r.scheduling.latenessP99Ms)} ms`,
      met: atScale ? r.scheduling.latenessP99Ms < 1000 : null,
    },
    {
      goal: 'missed / duplicated slots',
      target: '0 / 0',
      actual: `${r.scheduling.missed} / ${r.scheduling.duplicated}`,
      met: r.scheduling.missed === 0 && r.scheduling.duplicated === 0,
    },
    {
      goal: `CPU per stored check, worker + PostgreSQL + Redis (${r0(r.scheduling.monitors)} monitors)`,
      target: `<= ${CHECK_CPU_GOAL_MS} ms at 10,000`,
      actual: `${r.scheduling.cost.cpuMsPerCheck.total.toFixed(2)} ms`,
      met: atScale ? r.scheduling.cost.cpuMsPerCheck.total <= CHECK_CPU_GOAL_MS : null,
    },
    ...(r.scheduling.cost.wholeDay
      ? [
          {
            goal: `bytes per stored result once packed, a whole day (${r0(r.scheduling.cost.wholeDay.monitors)} monitors every ${r.scheduling.cost.wholeDay.intervalSeconds} s)`,
            target: `<= ${PACKED_BYTES_GOAL}`,
            actual: r1(r.scheduling.cost.wholeDay.bytesPerResultPacked),
            met: r.scheduling.cost.wholeDay.bytesPerResultPacked <= PACKED_BYTES_GOAL,
          },
        ]
      : []),
    {
      goal: 'ping receiver throughput',
      target: '>= 5,000 req/s',
      actual: `${r0(r.pings.rps)} req/s`,
      met: r.pings.rps >= 5000,
    },
    ...(r.filteredList
      ? [
          {
            goal: 'GET /monitors?perPage=100 with filters vs bare Express',
            target: `>= ${pct1(LIST_WHEN_FILTERS_CAME)} (the list without filters before them)`,
            actual: `${pct1(r.filteredList.ratio)} (${pct(r.filteredList.vsUnfiltered)} of the list without filters)`,
            met: r.filteredList.ratio >= LIST_WHEN_FILTERS_CAME,
          },
        ]
      : []),
    {
      goal: `status page p99, HTML / JSON (${r.statusPage.components} components x ${r.statusPage.days} days)`,
      target: `< ${STATUS_PAGE_GOAL_MS} ms`,
      actual: `${r.statusPage.html.p99Ms} / ${r.statusPage.json.p99Ms} ms`,
      met: r.statusPage.html.p99Ms < STATUS_PAGE_GOAL_MS && r.statusPage.json.p99Ms < STATUS_PAGE_GOAL_MS,
    },
    {
      goal: `month response-times query p99 (${r0(r.responseTimes.rows)} results)`,
      target: `< ${MONTH_QUERY_GOAL_MS} ms at a month`,
      actual: `${r.responseTimes.monthP99Ms} ms`,
      met: r.responseTimes.rows >= MONTH_ROWS ? r.responseTimes.monthP99Ms < MONTH_QUERY_GOAL_MS : null,
    },
    ...(r.config
      ? [
          {
            goal: `config plan / apply (${r0(r.config.monitors)} monitors)`,
            target: `< ${CONFIG_GOAL_SECONDS} s each`,
            actual: `${r.config.planSeconds.toFixed(2)} s / ${r.config.applySeconds.toFixed(2)} s`,
            met: r.config.planSeconds < CONFIG_GOAL_SECONDS && r.config.applySeconds < CONFIG_GOAL_SECONDS,
          },
          {
            goal: 'config second apply',
            target: '0 changes',
            actual: `${r.config.secondApplyChanges} changes (${r.config.secondApplySeconds.toFixed(2)} s)`,
            met: r.config.secondApplyChanges === 0,
          },
        ]
      : []),
    ...(r.uptimeReport ? [uptimeReportGoal(r.uptimeReport)] : []),
    detectionGoal(r.detection),
    {
      goal: 'quick run wall-clock (build excluded)',
      target: `< ${QUICK_LIMIT_SECONDS} s`,
      actual: secs(r.durationSeconds),
      met: r.mode === 'quick' ? r.durationSeconds < QUICK_LIMIT_SECONDS : null,
    },
  ];
}

/**
 * Issue 33: per API scenario, bare Express's CPU per request over the scenario's (API, PostgreSQL and Redis
 * together), which contention hardly moves; and POST /monitors at 300 req/s or more.
 */
export const EFFICIENCY_GOALS: ReadonlyArray<{ scenario: string; label: string; min: number }> = [
  { scenario: 'GET /api/v1/monitors/{id}', label: 'GET /monitors/{id}', min: 0.5 },
  { scenario: 'POST /ping/{secret} (1 KB log)', label: 'ping receiver (1 KB log)', min: 0.55 },
  { scenario: 'GET /api/v1/monitors?perPage=100', label: 'GET /monitors?perPage=100', min: 0.15 },
  { scenario: 'POST /api/v1/monitors', label: 'POST /monitors', min: 0.05 },
];
export const POST_MONITORS_GOAL_RPS = 300;
/** Issue 33: CPU per stored check at 10,000 monitors (worker, PostgreSQL and Redis), and bytes per packed result. */
const CHECK_CPU_GOAL_MS = 0.8;
const PACKED_BYTES_GOAL = 100;

function efficiencyGoals(scenarios: ApiScenarioResult[]): Goal[] {
  const goals: Goal[] = EFFICIENCY_GOALS.map(({ scenario, label, min }) => {
    const e = scenarios.find((s) => s.name === scenario)?.efficiency;
    return {
      goal: `${label}: CPU efficiency vs bare Express`,
      target: `>= ${pct(min)}`,
      actual: e === undefined ? '-' : pct1(e),
      met: e === undefined ? null : e >= min,
    };
  });
  const post = scenarios.find((s) => s.name === 'POST /api/v1/monitors');
  goals.push({
    goal: 'POST /monitors throughput',
    target: `>= ${r0(POST_MONITORS_GOAL_RPS)} req/s`,
    actual: post ? `${r0(post.rps)} req/s` : '-',
    met: post ? post.rps >= POST_MONITORS_GOAL_RPS : null,
  });
  return goals;
}

/** CPU µs per request (API + PostgreSQL + Redis) and the efficiency, for the API tables. */
function cpuCells(s: ApiScenarioResult): string[] {
  const c = s.cpuUsPerRequest;
  return c
    ? [`${r0(c.process)} + ${r0(c.postgres)} + ${r0(c.redis)} = ${r0(c.total)}`, pct1(s.efficiency ?? NaN)]
    : ['-', '-'];
}

/** Issue 29's goal, judged only at 1,000 monitors or more. */
export function uptimeReportGoal(u: UptimeReportResult): Goal {
  const c = u.cases.find((x) => x.name === UPTIME_REPORT_GOAL_CASE)!;
  return {
    goal: `uptime report of a month p99 (${r0(u.monitors)} monitors, CSV)`,
    target: `< ${UPTIME_REPORT_GOAL_MS} ms at ${r0(UPTIME_REPORT_GOAL_MONITORS)}`,
    actual: `${c.p99Ms} ms`,
    met: u.monitors >= UPTIME_REPORT_GOAL_MONITORS ? c.p99Ms < UPTIME_REPORT_GOAL_MS : null,
  };
}

/** The uptime report's cases, one line each, and its goal. */
export function uptimeReportLines(u: UptimeReportResult): string {
  const g = uptimeReportGoal(u);
  return (
    `GET /reports/uptime of ${u.month}, ${r0(u.monitors)} monitors, ${u.requests} requests each, one at a time:\n` +
    u.cases
      .map(
        (c) =>
          `  ${c.name}: p50 ${c.p50Ms} / p95 ${c.p95Ms} / p99 ${c.p99Ms} / max ${c.maxMs} ms, ${r0(c.bytes)} bytes; ` +
          `API CPU ${r1(c.apiCpuMsPerRequest)} ms a request, machine ${r1(c.machineBusyPercent)}% busy\n`,
      )
      .join('') +
    `goal: ${g.goal} ${g.target}: ${g.actual}, ${g.met === null ? 'not at scale' : g.met ? 'met' : 'NOT met'}\n`
  );
}

/** Issue 15: at least 5 outages of a 60 s monitor (2/2, default confirmation); judged only on such a run. */
export const DETECTION_GOAL = { runs: 5, meanSeconds: 50, maxSeconds: 80 } as const;
function detectionGoal(d: DetectionResult): Goal {
  const found = d.runs.filter((x) => x.secondsToIncident !== null).length;
  const within = d.runs.filter((x) => x.withinBound).length;
  const judged = d.intervalSeconds === 60 && d.runs.length >= DETECTION_GOAL.runs;
  return {
    goal: `detection, ${d.runs.length} outage(s) (${d.openThreshold}/${d.openThreshold} x ${d.intervalSeconds} s, confirm ${d.confirmAfterSeconds} s)`,
    target: `each <= first failure + ${d.confirmAfterSeconds} + 2 s; mean < ${DETECTION_GOAL.meanSeconds} s; max < ${DETECTION_GOAL.maxSeconds} s (>= ${DETECTION_GOAL.runs} runs of 60 s)`,
    actual: `${within}/${d.runs.length} within; mean ${r1(d.meanSeconds)} s; max ${r1(d.maxSeconds)} s`,
    met: judged
      ? found === d.runs.length &&
        within === d.runs.length &&
        (d.meanSeconds ?? Infinity) < DETECTION_GOAL.meanSeconds &&
        (d.maxSeconds ?? Infinity) < DETECTION_GOAL.maxSeconds
      : null,
  };
}

/** A run as `12.3 s (first failure 10.1 s)`. */
const detectionRun = (x: DetectionResult['runs'][number]) =>
  x.secondsToIncident === null
    ? 'no incident'
    : `${x.secondsToIncident.toFixed(1)} s (first failure ${r1(x.secondsToFirstFailure)} s${x.withinBound === false ? ', OVER its bound' : ''})`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map(
      (r, ri) =>
        r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ') +
        (ri === 0 ? `\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : ''),
    )
    .join('\n');
}

const r2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');

/** Each process's CPU over the scheduling window (percent of one core): which one ran out. */
function cpuLine(s: Pick<SchedulingResult, 'cpuPercent'>): string {
  return `${s.cpuPercent.workers.map((w) => `${r0(w)}%`).join(' + ')} / ${r0(s.cpuPercent.postgres)}% / ${r0(s.cpuPercent.redis)}%`;
}

/** A process on one thread (a worker's event loop, Redis) at this share of one core has no more CPU to give. */
export const FULL_CORE_PERCENT = 95;
/** A machine whose cores are this busy (share of all of them) has no more CPU to give. */
export const BUSY_MACHINE_PERCENT = 90;

/**
 * What the scheduling scenario's CPU figures say about capacity (issue 20: "if 2 cores cannot hold it, the report says
 * which resource ran out, and the per-check cost figures show what one more core buys").
 */
export interface CapacityVerdict {
  /** The scheduling goal: p99 lateness under 1 s, nothing missed, nothing duplicated. */
  goalMet: boolean;
  /** The machine's CPU used vs available over the window, and the share of it the bench's processes used. */
  machine: string | null;
  /** Which resource ran out; null when the goal was met. */
  ranOut: string | null;
  /** Checks a second one more core holds at the measured CPU per stored check (worker + PostgreSQL + Redis). */
  oneMoreCoreChecksPerSecond: number | null;
  oneMoreCore: string | null;
}

const cores = (n: number) => `${n} core${n === 1 ? '' : 's'}`;

/** latenessP99AfterFirstIntervalMs when the run had a second interval (and recorded it), else null. */
export function p99AfterFirstInterval(s: Pick<SchedulingResult, 'latenessP99AfterFirstIntervalMs'>): number | null {
  const v = s.latenessP99AfterFirstIntervalMs;
  return v !== undefined && Number.isFinite(v) ? v : null;
}

export function capacityVerdict(
  s: Pick<
    SchedulingResult,
    'cpuPercent' | 'cost' | 'latenessP99Ms' | 'missed' | 'duplicated' | 'monitors' | 'intervalSeconds'
  >,
): CapacityVerdict {
  const goalMet = s.latenessP99Ms < 1000 && s.missed === 0 && s.duplicated === 0;
  const { workers, postgres, redis, machine } = s.cpuPercent;
  const processes = workers.reduce((sum, w) => sum + w, 0) + postgres + redis;
  const machineLine = machine
    ? `${((machine.busyPercent / 100) * machine.cores).toFixed(2)} of ${cores(machine.cores)} busy (${r0(machine.busyPercent)}%), the workers, PostgreSQL and Redis ${(processes / 100).toFixed(2)} of them`
    : null;
  // PostgreSQL runs a process per connection: it can use every core. A worker's event loop and Redis each use one.
  const single = [
    ...workers.map((percent, i) => ({ name: workers.length > 1 ? `worker ${i + 1}` : 'the worker', percent })),
    { name: 'Redis', percent: redis },
  ]
    .filter((p) => p.percent >= FULL_CORE_PERCENT)
    .sort((a, b) => b.percent - a.percent);
  const atFullCore = single.map((p) => `${p.name} (${r0(p.percent)}% of one core)`).join(' and ');
  let ranOut: string | null = null;
  if (!goalMet) {
    if (machine && machine.busyPercent >= BUSY_MACHINE_PERCENT)
      ranOut = `CPU — the ${cores(machine.cores)} were ${r0(machine.busyPercent)}% busy; ${single.length ? `${atFullCore} also reached a full core` : 'no single process reached a full core'}`;
    else if (single.length)
      ranOut = `one core — ${atFullCore} reached a full core (one thread each) while the machine${machine ? `'s ${cores(machine.cores)} were ${r0(machine.busyPercent)}% busy` : ' had CPU left'}`;
    else if (machine)
      ranOut = `not CPU — the ${cores(machine.cores)} were ${r0(machine.busyPercent)}% busy and no single process reached a full core: the limit lies elsewhere (round trips to PostgreSQL or Redis, locks, the workers' concurrency)`;
    else ranOut = `unknown — no process reached a full core, and the machine's CPU (/proc/stat) could not be read`;
  }
  const perCheck = s.cost.cpuMsPerCheck.total;
  const perCore = Number.isFinite(perCheck) && perCheck > 0 ? 1000 / perCheck : null;
  const due = s.monitors / s.intervalSeconds;
  return {
    goalMet,
    machine: machineLine,
    ranOut,
    oneMoreCoreChecksPerSecond: perCore === null ? null : Math.round(perCore),
    oneMoreCore:
      perCore === null
        ? null
        : `about ${r0(perCore)} checks/s at ${r2(perCheck)} ms of CPU per check (worker + PostgreSQL + Redis); the ${r0(due)} checks/s due need about ${((due * perCheck) / 1000).toFixed(1)} cores at that cost`,
  };
}

/** The table rows of a verdict: the machine always, what ran out and what a core buys when the goal was not met. */
function capacityRows(v: CapacityVerdict): string[][] {
  return [
    ['machine CPU over the window: used of available', v.machine ?? 'n/a (no /proc/stat)'],
    ...(v.goalMet
      ? []
      : [
          ['ran out', v.ranOut ?? '-'],
          ['one more core buys', v.oneMoreCore ?? 'n/a (no checks stored)'],
        ]),
  ];
}

/** The lines the bench prints under the scheduling scenario (--cost-only), from the same verdict. */
export function capacityLines(v: CapacityVerdict): string {
  return capacityRows(v)
    .map(([k, val]) => `${k}: ${val}\n`)
    .join('');
}

/** Process CPU over the scheduling window divided by the checks stored in it (bench/lib/cost.ts). */
const costLine = (c: CheckCost['cpuMsPerCheck']) =>
  `${r2(c.worker)} / ${r2(c.postgres)} / ${r2(c.redis)} = ${r2(c.total)}`;

/** cpuMsPerCheckAfterFirstInterval when the run had a second interval (and recorded it), else null. */
export function cpuAfterFirstInterval(cost: Pick<CheckCost, 'cpuMsPerCheckAfterFirstInterval'>): string | null {
  const c = cost.cpuMsPerCheckAfterFirstInterval;
  return c !== undefined && Number.isFinite(c.total) ? costLine(c) : null;
}

/** The row of cpuAfterFirstInterval in the document's and the console's tables, when there is one. */
function steadyCostRows(s: Omit<SchedulingResult, 'lateness'>): string[][] {
  const steady = cpuAfterFirstInterval(s.cost);
  return steady === null ? [] : [['the same from the second interval (first checks and start-up behind)', steady]];
}

/** Bytes per result as written, and once the run's days are packed. */
function packedLine(s: Omit<SchedulingResult, 'lateness'>): string {
  const w = s.cost.wholeDay;
  return (
    `${r0(s.cost.bytesPerResult)} / ${r0(s.cost.bytesPerResultPacked)} (${r0(s.cost.packedRows)} packed rows)` +
    (w
      ? `; a whole day packed: ${r1(w.bytesPerResultPacked)} (${r0(w.monitors)} monitors every ${w.intervalSeconds} s)`
      : '')
  );
}

export function consoleReport(r: BenchResults): string {
  const api = table([
    ['API scenario (50 connections)', 'req/s', 'p50 ms', 'p99 ms', 'vs baseline', 'CPU µs a request', 'efficiency'],
    ...r.api.scenarios.map((s) => [s.name, r0(s.rps), String(s.p50Ms), String(s.p99Ms), pct(s.ratio), ...cpuCells(s)]),
  ]);
  const sp = r.statusPage;
  const page = table([
    [
      `status page, ${sp.components} components x ${sp.days} days (${sp.connections} connections)`,
      'req/s',
      'p50 ms',
      'p99 ms',
      'bytes',
    ],
    ...(['html', 'json'] as const).map((k) => [
      k === 'html' ? 'GET /status/{slug} (HTML, gzip)' : 'GET /status/{slug} (JSON, gzip)',
      r0(sp[k].rps),
      String(sp[k].p50Ms),
      String(sp[k].p99Ms),
      r0(sp[k].bytes),
    ]),
  ]);
  const s = r.scheduling;
  const other = table([
    ['measure', 'value'],
    ['worker checks/s (stored)', r0(r.checks.perSecond)],
    ['plain got loop req/s (ceiling)', r0(r.checks.baselinePerSecond)],
    ['worker / ceiling', pct(r.checks.ratio)],
    ['worker event-loop delay p99', `${r1(r.checks.eventLoopDelayP99Ms)} ms`],
    [
      `scheduling: monitors x interval x intervals (workers)`,
      `${r0(s.monitors)} x ${s.intervalSeconds} s x ${s.intervals} (${s.workers})`,
    ],
    ['lateness p50 / p99 / max', `${r0(s.latenessP50Ms)} / ${r0(s.latenessP99Ms)} / ${r0(s.latenessMaxMs)} ms`],
    [
      'slots expected / stored / missed / duplicated',
      `${r0(s.expected)} / ${r0(s.stored)} / ${s.missed} / ${s.duplicated}`,
    ],
    ['Redis memory (bench keys) / worker RSS', `${mib(s.redisMemoryBytes)} / ${mib(s.workerRssBytes)}`],
    ['CPU over the window, % of one core: workers / PostgreSQL / Redis', cpuLine(s)],
    ...capacityRows(capacityVerdict(s)),
    ['CPU ms per stored check: worker / PostgreSQL / Redis = total', costLine(s.cost.cpuMsPerCheck)],
    ...steadyCostRows(s),
    ['bytes per stored result (check_results) / once packed', packedLine(s)],
    [
      `detection (${r.detection.intervalSeconds} s + confirm ${r.detection.confirmAfterSeconds} s = ${r.detection.theoreticalMaxSeconds} s max)`,
      r.detection.runs
        .map((x) =>
          x.secondsToIncident === null
            ? 'none'
            : `${x.secondsToIncident.toFixed(1)}${x.withinBound === false ? '!' : ''} s`,
        )
        .join(', '),
    ],
    [
      `response-times?period=month, ${r0(r.responseTimes.rows)} results: p50 / p95 / p99`,
      `${r.responseTimes.monthP50Ms} / ${r.responseTimes.monthP95Ms} / ${r.responseTimes.monthP99Ms} ms`,
    ],
    ...(r.uptimeReport
      ? r.uptimeReport.cases.map((c) => [
          `reports/uptime, ${r0(r.uptimeReport!.monitors)} monitors, ${c.name}: p50 / p99`,
          `${c.p50Ms} / ${c.p99Ms} ms`,
        ])
      : []),
    ['run duration (build excluded) / build', `${secs(r.durationSeconds)} / ${secs(r.buildSeconds)}`],
  ]);
  const goals = table([
    ['goal', 'target', 'actual', 'met'],
    ...r.goals.map((g) => [g.goal, g.target, g.actual, g.met === null ? 'n/a' : g.met ? 'yes' : 'NO']),
  ]);
  const head = `${r.mode} run of ${r.date}, commit ${r.commit ?? 'unknown'}${r.dirty ? ' (uncommitted changes)' : ''}`;
  return `\n${head}\n\n${api}\n\n${page}\n\n${other}\n\n${goals}\n`;
}

/** The results file: everything but raw samples, a few kilobytes. */
export function writeResults(path: string, r: BenchResults): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(r, null, 2)}\n`);
}

/** A CDF of lateness on a log-scale x axis, hand-written SVG (no dependencies). */
export function latenessSvg(sorted: readonly number[], title: string): string {
  const W = 720;
  const H = 360;
  const m = { l: 64, r: 24, t: 40, b: 52 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const maxMs = Math.max(10, sorted.at(-1) ?? 10);
  const decades = Math.max(1, Math.ceil(Math.log10(Math.max(maxMs, 1000))));
  const x = (ms: number) => m.l + (Math.log10(Math.max(1, ms)) / decades) * pw;
  const y = (f: number) => m.t + (1 - f) * ph;
  const pts: string[] = [];
  if (sorted.length) {
    const steps = Math.min(400, sorted.length);
    for (let i = 0; i <= steps; i++) {
      const f = i / steps;
      const v = sorted[Math.min(sorted.length - 1, Math.floor(f * (sorted.length - 1)))]!;
      pts.push(`${x(v).toFixed(1)},${y(f).toFixed(1)}`);
    }
  }
  const ticks = Array.from({ length: decades + 1 }, (_, i) => 10 ** i);
  const label = (ms: number) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  const marker = (v: number, name: string, color: string, dy: number) =>
    Number.isFinite(v)
      ? `<line x1="${x(v).toFixed(1)}" y1="${m.t}" x2="${x(v).toFixed(1)}" y2="${m.t + ph}" stroke="${color}" stroke-dasharray="4 3"/>` +
        `<text x="${(x(v) + 4).toFixed(1)}" y="${m.t + 14 + dy}" fill="${color}" font-size="12">${name} ${Math.round(v)} ms</text>`
      : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif">
<rect width="${W}" height="${H}" fill="#fff"/>
<text x="${W / 2}" y="22" text-anchor="middle" font-size="14" font-weight="600">${title}</text>
${[0, 0.25, 0.5, 0.75, 0.9, 1]
  .map(
    (f) =>
      `<line x1="${m.l}" y1="${y(f).toFixed(1)}" x2="${m.l + pw}" y2="${y(f).toFixed(1)}" stroke="#eee"/><text x="${m.l - 6}" y="${(y(f) + 4).toFixed(1)}" text-anchor="end" font-size="11">${Math.round(f * 100)}%</text>`,
  )
  .join('\n')}
${ticks.map((t) => `<line x1="${x(t).toFixed(1)}" y1="${m.t + ph}" x2="${x(t).toFixed(1)}" y2="${m.t + ph + 5}" stroke="#333"/><text x="${x(t).toFixed(1)}" y="${m.t + ph + 18}" text-anchor="middle" font-size="11">${label(t)}</text>`).join('\n')}
<line x1="${m.l}" y1="${m.t + ph}" x2="${m.l + pw}" y2="${m.t + ph}" stroke="#333"/>
<line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${m.t + ph}" stroke="#333"/>
${x(1000) <= m.l + pw ? `<line x1="${x(1000).toFixed(1)}" y1="${m.t}" x2="${x(1000).toFixed(1)}" y2="${m.t + ph}" stroke="#c0392b"/><text x="${(x(1000) - 4).toFixed(1)}" y="${m.t + ph - 8}" text-anchor="end" fill="#c0392b" font-size="12">goal: p99 &lt; 1 s</text>` : ''}
${marker(p50, 'p50', '#2c7a3f', 0)}
${marker(p99, 'p99', '#8e44ad', 16)}
<polyline fill="none" stroke="#1f5fa8" stroke-width="2" points="${pts.join(' ')}"/>
<text x="${m.l + pw / 2}" y="${H - 12}" text-anchor="middle" font-size="12">lateness: check start minus scheduled slot (log scale; under 1 ms drawn at 1 ms)</text>
<text x="16" y="${m.t + ph / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${m.t + ph / 2})">checks at or below</text>
</svg>
`;
}

const START = '<!-- bench:results:start (written by npm run bench; edit outside these markers) -->';
const END = '<!-- bench:results:end -->';

export function resultsMarkdown(r: BenchResults, chartPath: string, docPath: string, resultsPath: string): string {
  const s = r.scheduling;
  const steadyP99 = p99AfterFirstInterval(s);
  const rows = (head: string[], body: string[][]) =>
    [
      `| ${head.join(' | ')} |`,
      `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
      ...body.map((b) => `| ${b.join(' | ')} |`),
    ].join('\n');
  return `${START}
Latest run: ${r.date} (${r.mode}), ${r.machine.cpus} cores (${r.machine.cpuModel}), ${r.machine.memoryGiB} GiB, Node ${r.machine.node}; ${secs(r.durationSeconds)} (build ${secs(r.buildSeconds)} more).${r.machine.referenceWork ? ` Machine speed at the start: a fixed piece of JavaScript took ${r.machine.referenceWork.cpuMs} ms of CPU (lower is faster; every CPU figure moves with it).` : ''}
Commit: ${r.commit ? `\`${r.commit}\`` : 'unknown'}${r.dirty ? ' **with uncommitted changes**' : r.dirty === false ? ' (clean checkout)' : ''}.
Raw figures: [\`${relative(dirname(docPath), resultsPath)}\`](${relative(dirname(docPath), resultsPath)}).

**Goals**

${rows(
  ['goal', 'target', 'actual', 'met'],
  r.goals.map((g) => [g.goal, g.target, g.actual, g.met === null ? 'n/a (not at scale)' : g.met ? 'yes' : '**no**']),
)}

**API** (autocannon, ${r.api.connections} connections, ${r.api.durationSeconds} s per scenario after a warm-up)

${rows(
  [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'vs bare Express (req/s)',
    'CPU µs a request (API + PostgreSQL + Redis)',
    'CPU efficiency',
  ],
  r.api.scenarios.map((x) => [x.name, r0(x.rps), String(x.p50Ms), String(x.p99Ms), pct(x.ratio), ...cpuCells(x)]),
)}

**Status page** (${r.statusPage.components} components x ${r.statusPage.days} days of daily rollups, an open incident, past incidents and maintenance; autocannon, ${r.statusPage.connections} connections, gzip accepted)

${rows(
  ['answer', 'req/s', 'p50 ms', 'p99 ms', 'bytes (gzipped)'],
  (['html', 'json'] as const).map((k) => [
    k === 'html' ? 'HTML' : 'JSON',
    r0(r.statusPage[k].rps),
    String(r.statusPage[k].p50Ms),
    String(r.statusPage[k].p99Ms),
    r0(r.statusPage[k].bytes),
  ]),
)}

**Checks** (${r0(r.checks.jobs)} one-off jobs over ${r0(r.checks.monitors)} http monitors, one worker at concurrency ${r.checks.concurrency}, results stored)

${rows(
  ['measure', 'value'],
  [
    ['worker, checks stored per second', r0(r.checks.perSecond)],
    ['plain got loop, same target and concurrency (ceiling)', r0(r.checks.baselinePerSecond)],
    ['ratio', pct(r.checks.ratio)],
    [
      'worker event-loop delay p99 / max',
      `${r1(r.checks.eventLoopDelayP99Ms)} / ${r1(r.checks.eventLoopDelayMaxMs)} ms`,
    ],
    [
      'check job duration p50 / p99 (histogram bucket)',
      `<= ${r1(r.checks.checkDurationP50Ms)} / <= ${r1(r.checks.checkDurationP99Ms)} ms`,
    ],
  ],
)}

**Scheduling at scale** (${r0(s.monitors)} monitors every ${s.intervalSeconds} s, watched for ${s.intervals} interval(s), ${s.workers} worker process(es))

${rows(
  ['measure', 'value'],
  [
    ['lateness p50 / p99 / max', `${r0(s.latenessP50Ms)} / ${r0(s.latenessP99Ms)} / ${r0(s.latenessMaxMs)} ms`],
    ...(steadyP99 === null
      ? []
      : [['lateness p99 from the second interval (first checks and start-up behind)', `${r0(steadyP99)} ms`]]),
    ["worker's lateness histogram, p99 bucket", `<= ${r0(s.workerLatenessP99BucketMs ?? NaN)} ms`],
    ['slots expected / stored', `${r0(s.expected)} / ${r0(s.stored)}`],
    ['missed / duplicated / off-slot / lost', `${s.missed} / ${s.duplicated} / ${s.offSlot} / ${s.resultsLost}`],
    [
      'missed slots recorded as missed (no data) / checks per monitor',
      `${s.recordedMissed} / ${s.checksPerMonitor.min} to ${s.checksPerMonitor.max}`,
    ],
    ['CPU over the window, % of one core: workers / PostgreSQL / Redis', cpuLine(s)],
    ...capacityRows(capacityVerdict(s)),
    ['Redis memory of the bench keys (keys)', `${mib(s.redisMemoryBytes)} (${r0(s.redisKeys)})`],
    ['worker RSS / event-loop delay p99', `${mib(s.workerRssBytes)} / ${r1(s.workerEventLoopDelayP99Ms)} ms`],
    ['create monitors (createMany) / reconcileSchedules', `${r0(s.createMonitorsMs)} / ${r0(s.reconcileMs)} ms`],
    ['CPU ms per stored check: worker / PostgreSQL / Redis = total', costLine(s.cost.cpuMsPerCheck)],
    ...steadyCostRows(s),
    ['bytes per stored result (check_results, after VACUUM) / once packed', packedLine(s)],
  ],
)}

![Scheduling lateness CDF](${relative(dirname(docPath), chartPath)})

**Response times** (${r0(r.responseTimes.rows)} one-minute results of one monitor, ${r.responseTimes.days} days, loaded with ${r.responseTimes.load}; \`GET /api/v1/monitors/{id}/response-times?period=month\` over HTTP, ${r.responseTimes.requests} requests one at a time): p50 ${r.responseTimes.monthP50Ms} ms, p95 ${r.responseTimes.monthP95Ms} ms, p99 ${r.responseTimes.monthP99Ms} ms, max ${r.responseTimes.monthMaxMs} ms.

${
  r.uptimeReport
    ? `**Uptime report** (\`GET /api/v1/reports/uptime\` of ${r.uptimeReport.month} over HTTP, ${r0(r.uptimeReport.monitors)} monitors with ${r0(r.uptimeReport.incidents)} incidents and ${r0(r.uptimeReport.spans)} spans, ${r.uptimeReport.requests} requests one at a time): ${r.uptimeReport.cases.map((c) => `${c.name} p50 ${c.p50Ms} ms, p99 ${c.p99Ms} ms`).join('; ')}.\n\n`
    : ''
}**Pings**: ${r0(r.pings.rps)} req/s (p50 ${r.pings.p50Ms} ms, p99 ${r.pings.p99Ms} ms).

**Detection** (interval ${r.detection.intervalSeconds} s, thresholds ${r.detection.openThreshold}/${r.detection.openThreshold}, confirmAfterSeconds ${r.detection.confirmAfterSeconds}: the first failing check comes 0 to ${r.detection.intervalSeconds} s after the failure, its re-check ${r.detection.confirmAfterSeconds} s later opens the incident; at most ${r.detection.theoreticalMaxSeconds} s plus the checks, ${r.detection.theoreticalMaxSeconds - r.detection.intervalSeconds / 2} s on average; each run must open within its first failure + ${r.detection.confirmAfterSeconds} + 2 s): ${r.detection.runs.map(detectionRun).join(', ')}; mean ${r1(r.detection.meanSeconds)} s, max ${r1(r.detection.maxSeconds)} s.
${END}`;
}

/**
 * The document with its generated block replaced by `block` (which carries the markers), everything outside the
 * markers kept byte for byte; without markers (or without a document) the block is appended.
 */
export function replaceResultsBlock(current: string | null, block: string): string {
  const doc = current ?? `# Benchmarks\n\n${START}\n${END}\n`;
  const a = doc.indexOf(START);
  const b = a >= 0 ? doc.indexOf(END, a) : -1;
  return b > a ? doc.slice(0, a) + block + doc.slice(b + END.length) : `${doc.trimEnd()}\n\n${block}\n`;
}

/** Replaces the generated block of docs/benchmarks.md, keeping the hand-written notes around it. */
export function writeDocs(docPath: string, block: string): void {
  mkdirSync(dirname(docPath), { recursive: true });
  writeFileSync(docPath, replaceResultsBlock(existsSync(docPath) ? readFileSync(docPath, 'utf8') : null, block));
}

/**
 * What the bench itself writes: results of runs not yet committed there do not make the next run's checkout dirty
 * (a full run, the 100,000-monitor run and the console run, one after another, are all of the same code).
 */
const BENCH_OUTPUTS = [RESULTS_DIR, DOCS_FILE, CHART_FILE].map((path) => relative(ROOT, path));

/** The commit and whether the checkout differs from it (BENCH_OUTPUTS aside), read before the run writes anything. */
export function gitState(): { commit: string | null; dirty: boolean | null } {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  try {
    const changed = git('status', '--porcelain', '--', '.', ...BENCH_OUTPUTS.map((p) => `:(exclude)${p}`));
    return { commit: git('rev-parse', 'HEAD').trim(), dirty: changed.trim() !== '' };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** A side run (over-capacity, cost, event-log, packed): when it started, whether quick, and what it ran. */
export interface SideRun {
  startedAt: Date;
  quick?: boolean;
  source: { commit: string | null; dirty: boolean | null };
}

/** Where a side run's results go: `<dir>/<start>[-quick]-<kind>.json`. */
export function sideResultsPath(dir: string, kind: string, run: Pick<SideRun, 'startedAt' | 'quick'>): string {
  return join(dir, resultsFileName(run.startedAt, run.quick ?? false).replace(/\.json$/, `-${kind}.json`));
}

/** The header every side results file starts with, then its figures. */
export function sideResults(run: SideRun, loadAverage: number[], figures: object): object {
  return {
    date: run.startedAt.toISOString(),
    mode: run.quick ? 'quick' : 'full',
    commit: run.source.commit,
    dirty: run.source.dirty,
    cpus: os.availableParallelism(),
    loadAverage,
    ...figures,
  };
}

/** Writes a side run's results file (sideResultsPath, sideResults with the load average now); its path and load. */
export function writeSideResults(
  dir: string,
  kind: string,
  run: SideRun,
  figures: object,
): { path: string; loadAverage: number[] } {
  const path = sideResultsPath(dir, kind, run);
  const loadAverage = os.loadavg().map((l) => Number(l.toFixed(2)));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(sideResults(run, loadAverage, figures), null, 2)}\n`);
  return { path, loadAverage };
}
