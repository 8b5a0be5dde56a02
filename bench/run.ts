/**
 * `npm run bench [-- --quick] [-- --monitors 100000 [--workers 2]] [-- --event-log] [-- --over-capacity]`: builds, starts PostgreSQL and Redis (scripts/services.mjs), a
 * fresh `statusvane_bench` database, the API and a worker as child processes, local targets and baselines, runs the
 * scenarios of docs/benchmarks.md, prints a table and writes bench/results/<ISO date-time>[-quick].json (and, for a
 * full run, docs/benchmarks.md with its chart). Only 127.0.0.1 is ever contacted; every wait is bounded. A quick run
 * over QUICK_LIMIT_SECONDS (build excluded) misses that goal, but does not fail: a slow machine is no defect. `--event-log` runs only the event log's A/B
 * (scenarios/event-log.ts) and writes bench/results/<ISO date-time>-event-log.json. `--over-capacity` runs only
 * one worker at twice its capacity (scenarios/over-capacity.ts) and writes `-over-capacity.json`. `--workers N` runs
 * the scheduling scenario on N worker processes. `--uptime-report` runs only the uptime report of a month for 1,000
 * monitors (scenarios/uptime-report.ts; `--monitors` sets how many) and writes `-uptime-report.json`. `--console` runs only the console's monitors pages at 10,000
 * monitors (scenarios/console-pages.ts; `--monitors` changes how many) and writes `-console.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createPrisma } from '@statusvane/shared';
import { buildAssets } from '../scripts/build-assets.mjs';
import { atRestLine, databaseBackends, redisServerPid, referenceWork, referenceWorkLine } from './lib/cost.js';
import { measurePackedDays, packedDaysLine } from './lib/packed-days.js';
import { CHART_FILE, DOCS_FILE, RESULTS_DIR, ROOT } from './lib/paths.js';
import { startHelper, stopAll, type Child } from './lib/processes.js';
import {
  capacityLines,
  capacityVerdict,
  consoleReport,
  gitState,
  goalsOf,
  latenessSvg,
  p99AfterFirstInterval,
  cpuAfterFirstInterval,
  resultsFileName,
  resultsMarkdown,
  UPTIME_REPORT_GOAL_MS,
  uptimeReportLines,
  writeDocs,
  writeResults,
  writeSideResults,
  type BenchResults,
} from './lib/report.js';
import { createMonitorsBulk, seedFilterableMonitors, seedWorkspace } from './lib/seed.js';
import {
  benchTargets,
  build,
  clearBenchKeys,
  newEncryptionKey,
  prepareDatabases,
  startApi,
  startWorker,
  type AppProcess,
} from './lib/stack.js';
import { FILTERED_LIST_SCENARIO, LIST_SCENARIO, runApiScenarios } from './scenarios/api.js';
import { runCheckThroughput } from './scenarios/checks.js';
import { runConfigScenario } from './scenarios/config.js';
import { CONSOLE_REGIONS, runConsolePages, seedConsolePages } from './scenarios/console-pages.js';
import { runEventLogOverhead, type EventLogInput } from './scenarios/event-log.js';
import { runApiStepsCost } from './scenarios/api-steps.js';
import { runResponseTimes } from './scenarios/response-times.js';
import { runOverCapacity } from './scenarios/over-capacity.js';
import { runScheduling } from './scenarios/scheduling.js';
import { runStatusPage, seedStatusPage } from './scenarios/status-page.js';
import { runUptimeReport } from './scenarios/uptime-report.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    monitors: { type: 'string' },
    intervals: { type: 'string' },
    // Worker processes sharing the check queue in the scheduling scenario (issue 20: 100,000 monitors on two).
    workers: { type: 'string' },
    // Only the over-capacity scenario (scenarios/over-capacity.ts): one worker at twice its capacity.
    'over-capacity': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    'event-log': { type: 'boolean', default: false },
    // Only the console's monitors pages (scenarios/console-pages.ts): issue 27's page times and weights.
    console: { type: 'boolean', default: false },
    // Only the API and status page scenarios, printed and not recorded: for trying a change to the API quickly.
    'api-only': { type: 'boolean', default: false },
    // Only the scheduling scenario (with its cost per check and what ran out), printed and recorded in
    // bench/results/<start>[-quick]-cost.json: for trying a change to the check path quickly, and for the
    // 100,000-monitor run (`--monitors 100000 --workers 2 --cost-only`).
    'cost-only': { type: 'boolean', default: false },
    // Only a 3-step api monitor's CPU per check against an http check's (scenarios/api-steps.ts), in this process
    // from the sources (no build), recorded in bench/results/<start>-api-steps.json.
    'api-steps': { type: 'boolean', default: false },
    // Only the uptime report scenario (scenarios/uptime-report.ts), recorded in bench/results/<start>-uptime-report.json.
    'uptime-report': { type: 'boolean', default: false },
  },
});
const quick = args.quick!;
const sizes = quick
  ? {
      apiSeconds: 3,
      warmupSeconds: 3,
      checkJobs: 2000,
      checkMonitors: 100,
      monitors: 500,
      interval: 10,
      intervals: 2,
      detectionRuns: 1,
      detectionInterval: 10,
      historyDays: 7,
      historyRequests: 50,
      reportMonitors: 100,
      reportRequests: 10,
    }
  : {
      apiSeconds: 10,
      warmupSeconds: 3,
      checkJobs: 10_000,
      checkMonitors: 1000,
      monitors: 10_000,
      interval: 60,
      intervals: 3,
      // Issue 15 judges detection over at least 5 outages.
      detectionRuns: 6,
      detectionInterval: 60,
      historyDays: 30,
      historyRequests: 500,
      // Issue 29: a month's report of 1,000 monitors.
      reportMonitors: 1000,
      reportRequests: 50,
    };
if (args.monitors) sizes.monitors = Number(args.monitors);
// --uptime-report: --monitors sizes the report (not the scheduling scenario, which it does not run).
if (args['uptime-report'] && args.monitors) sizes.reportMonitors = sizes.monitors;
/** The event log's A/B (scenarios/event-log.ts): the median of the rounds' ratios (odd counts: no tie). */
const eventLogSizes: Omit<EventLogInput, 'prisma' | 'databaseUrl' | 'redisUrl' | 'encryptionKey' | 'targetUrl'> = quick
  ? { rounds: 3, createsPerRound: 15, monitors: 100, batchesPerRound: 3 }
  : { rounds: 15, createsPerRound: 31, monitors: 200, batchesPerRound: 7 };
if (args.intervals) sizes.intervals = Number(args.intervals);
const workerCount = Number(args.workers ?? 1);
if (
  !Number.isInteger(sizes.monitors) ||
  sizes.monitors < 1 ||
  !Number.isInteger(sizes.intervals) ||
  sizes.intervals < 1 ||
  !Number.isInteger(workerCount) ||
  workerCount < 1 ||
  workerCount > 16
) {
  console.error('--monitors and --intervals take positive integers, --workers 1 to 16');
  process.exit(2);
}

/** Issue 19: plan and apply of a 1,000-monitor document, each under 10 s (quick runs too: it takes seconds). */
const CONFIG_MONITORS = 1000;
/** Issue 17: the public page of a status page with 50 components and 90 days of history. */
const STATUS_PAGE_COMPONENTS = 50;
const STATUS_PAGE_DAYS = 90;
/** Issue 14: monitors of the filtered list's own workspace (5 in 24 match its filters: 125). */
const FILTERABLE_MONITORS = 600;

/** The worker's default concurrency, set explicitly so that the got loop runs with exactly the same. */
const WORKER_CONCURRENCY = 200;

// The run's clock starts with the process (tsx's own start-up included): what someone waiting for it sees.
const started = performance.timeOrigin;
const startedAt = new Date(started);
/** The machine's load when the run started (the figures of a busy machine are not the final word). */
const loadAverageAtStart = os.loadavg().map((l) => Number(l.toFixed(2)));
const log = (msg: string) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${msg}\n`);
const targets = (() => {
  try {
    return benchTargets();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
})();

const source = gitState();

// Bounded: whatever hangs, the bench ends (and its children with it).
const limitMs = (quick ? 5 : 30) * 60_000 + sizes.intervals * sizes.interval * 1000;
const watchdog = setTimeout(() => {
  log(`gave up after ${limitMs / 60_000} minutes`);
  process.exit(1);
}, limitMs);
watchdog.unref();

const children: Array<Child | undefined> = [];
let api: AppProcess | undefined;
let worker: AppProcess | undefined;
let failure: string | null = null;
try {
  log(
    `${quick ? 'quick' : 'full'} run on ${os.cpus().length} cores, commit ${source.commit?.slice(0, 10) ?? 'unknown'}${source.dirty ? ' with uncommitted changes' : ''}`,
  );
  const buildSeconds = args['skip-build'] || args['api-steps'] ? 0 : build(log);
  const { atRest, ...urls } = await prepareDatabases(targets, log);
  log(atRestLine(atRest));
  const speed = referenceWork();
  log(referenceWorkLine(speed));
  /** The machine's state when the run began, recorded with every run's results. */
  const atStart = { serversAtRest: atRest, referenceWork: speed };
  const prisma = createPrisma(urls.databaseUrl, { max: 10 });
  const encryptionKey = newEncryptionKey();
  if (args['api-steps']) {
    const target = await startHelper('target', 'target.ts');
    children.push(target.child);
    log('api steps against http checks...');
    const apiSteps = await runApiStepsCost(
      {
        prisma,
        ...urls,
        encryptionKey,
        targetBase: `http://127.0.0.1:${target.port}`,
        ...(quick
          ? { rounds: 3, checksPerRound: 200, monitors: 20, concurrency: 10 }
          : { rounds: 7, checksPerRound: 600, monitors: 50, concurrency: 20 }),
      },
      log,
    );
    const { path, loadAverage } = writeSideResults(RESULTS_DIR, 'api-steps', { startedAt, quick, source }, apiSteps);
    process.stdout.write(
      `${JSON.stringify(apiSteps, null, 2)}\n3-step api check / http check CPU: ${apiSteps.ratio}, the worker's alone ` +
        `${apiSteps.workerRatio} (goal <= ${apiSteps.goalRatio}: ${apiSteps.met ? 'met' : 'missed'}); load average ` +
        `${loadAverage.join(' ')}\n` +
        `wrote ${path.slice(ROOT.length + 1)}\n`,
    );
    await prisma.$disconnect();
    await stopAll(children);
    process.exit(apiSteps.notUp > 0 ? 1 : 0);
  }
  if (args['over-capacity']) {
    const overCapacity = await runOverCapacity({ prisma, urls, encryptionKey, children }, log);
    const { path, loadAverage } = writeSideResults(RESULTS_DIR, 'over-capacity', { startedAt, source }, overCapacity);
    process.stdout.write(
      `${JSON.stringify(overCapacity, null, 2)}\nload average ${loadAverage.join(' ')}\nwrote ${path.slice(ROOT.length + 1)}\n`,
    );
    await prisma.$disconnect();
    await stopAll(children);
    process.exit(0);
  }

  /** Issue 29's scenario against a running API (the full run's and --uptime-report's). */
  const uptimeReportOn = (on: AppProcess) => {
    log('uptime report...');
    return runUptimeReport(
      {
        prisma,
        apiUrl: on.baseUrl,
        apiPid: on.child.pid,
        monitors: sizes.reportMonitors,
        requests: sizes.reportRequests,
      },
      log,
    );
  };
  if (args['uptime-report']) {
    api = await startApi(urls, encryptionKey);
    children.push(api.child);
    const { result } = await uptimeReportOn(api);
    const { path, loadAverage } = writeSideResults(
      RESULTS_DIR,
      'uptime-report',
      { startedAt, quick, source },
      { loadAverageAtStart, goalP99Ms: UPTIME_REPORT_GOAL_MS, uptimeReport: result },
    );
    process.stdout.write(
      `${uptimeReportLines(result)}load average at start: ${loadAverageAtStart.join(' ')}; at the end: ${loadAverage.join(' ')}\n` +
        `wrote ${path.slice(ROOT.length + 1)}\n`,
    );
    await prisma.$disconnect();
    await stopAll(children);
    process.exit(0);
  }

  if (args.console) {
    // The pages' own assets, as `npm run build` leaves them (build() above compiles the server only).
    await buildAssets();
    const days = 90;
    const monitors = args.monitors ? sizes.monitors : 10_000;
    log(`console pages: seeding ${monitors} monitors with ${days} days of rollups...`);
    // Seeded through a client of its own: statements of a hundred thousand rows may take minutes on a busy machine.
    const seeder = createPrisma(urls.databaseUrl, { max: 2, statementTimeoutMs: 600_000 });
    const seeded = await seedConsolePages(seeder, { monitors, days, targetUrl: 'http://127.0.0.1:9/health' });
    await seeder.$disconnect();
    log(`seeded in ${seeded.seedSeconds.toFixed(1)} s`);
    api = await startApi(urls, encryptionKey, { CHECK_REGIONS: CONSOLE_REGIONS.join(','), REGION: CONSOLE_REGIONS[0] });
    children.push(api.child);
    // The API brings Redis's schedules in line with 10,000 enabled monitors as it starts: measured after, not during.
    await api.child.waitFor(/schedules reconciled/, 600_000);
    // Bare Express beside it: the efficiency's baseline (issue 33).
    const consoleBaseline = await startHelper('express-baseline', 'express-baseline.ts');
    children.push(consoleBaseline.child);
    const consolePages = await runConsolePages(
      {
        prisma,
        apiUrl: api.baseUrl,
        apiPid: api.child.pid,
        ...seeded,
        monitors,
        days,
        connections: [1, 4],
        durationSeconds: sizes.apiSeconds,
        warmupSeconds: sizes.warmupSeconds,
        baseline: { url: `http://127.0.0.1:${consoleBaseline.port}/`, pid: consoleBaseline.child.pid },
        backends: databaseBackends(prisma),
        redisPid: await redisServerPid(urls.redisUrl),
      },
      log,
    );
    const { path } = writeSideResults(
      RESULTS_DIR,
      'console',
      { startedAt, quick, source },
      { loadAverageAtStart, ...atStart, consolePages },
    );
    process.stdout.write(
      `${consolePages.goals.map((g) => `${g.met ? 'met   ' : 'MISSED'} ${g.goal}: ${g.value} (${g.target})`).join('\n')}\n` +
        `wrote ${path.slice(ROOT.length + 1)}\n`,
    );
    await prisma.$disconnect();
    await stopAll([api.child, ...children]);
    process.exit(0);
  }

  const target = await startHelper('target', 'target.ts');
  children.push(target.child);
  const targetUrl = `http://127.0.0.1:${target.port}/health`;
  const baseline = await startHelper('express-baseline', 'express-baseline.ts');
  children.push(baseline.child);
  /** The scheduling scenario's input, for the worker it watches (the full run's and --cost-only's). */
  const schedulingInput = (ws: AppProcess[]) => ({
    prisma,
    redisUrl: urls.redisUrl,
    workerMetricsUrls: ws.map((w) => w.metricsUrl),
    workerPids: ws.map((w) => w.child.pid),
    workerOutput: () => ws.map((w) => w.child.output()).join('\n'),
    targetUrl,
    monitors: sizes.monitors,
    intervalSeconds: sizes.interval,
    intervals: sizes.intervals,
    detectionRuns: sizes.detectionRuns,
    detectionIntervalSeconds: sizes.detectionInterval,
  });
  /** Starts `n` worker processes (each stopped with the other children at the end). */
  const startWorkers = async (n: number) => {
    const started: AppProcess[] = [];
    for (let i = 0; i < n; i++) {
      const w = await startWorker(urls, encryptionKey, { WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) });
      children.push(w.child);
      started.push(w);
    }
    return started;
  };
  /** Bytes per result of whole days packed, as housekeeping packs them (the run's minutes pack into far emptier rows). */
  const packWholeDay = async () => {
    log('bytes per result of a whole day, packed...');
    const figures = await measurePackedDays({
      monitors: quick ? 50 : 200,
      intervalSeconds: 60,
      days: 1,
      nextTo: urls.databaseUrl,
    });
    log(packedDaysLine(figures));
    return figures;
  };
  const workersLabel = `${workerCount} worker process${workerCount > 1 ? 'es' : ''}`;
  if (args['cost-only']) {
    await baseline.child.stop();
    const workers = await startWorkers(workerCount);
    log(`scheduling at scale (cost per check only, ${workersLabel})...`);
    const { scheduling: s, detection: d } = await runScheduling(schedulingInput(workers), log);
    s.cost.wholeDay = await packWholeDay();
    const c = s.cost.cpuMsPerCheck;
    const capacity = capacityVerdict(s);
    const steadyP99 = p99AfterFirstInterval(s);
    const steadyCost = cpuAfterFirstInterval(s.cost);
    // Recorded like the other runs (the 100,000-monitor run is one of these): bench/results/<start>[-quick]-cost.json.
    const { lateness: _lateness, ...schedulingFigures } = s;
    const { path, loadAverage } = writeSideResults(
      RESULTS_DIR,
      'cost',
      { startedAt, quick, source },
      {
        loadAverageAtStart,
        ...atStart,
        scheduling: { ...schedulingFigures, capacity },
        detection: d,
      },
    );
    process.stdout.write(
      `CPU ms per stored check: worker ${c.worker.toFixed(2)} / PostgreSQL ${c.postgres.toFixed(2)} / Redis ${c.redis.toFixed(2)} = ${c.total.toFixed(2)}${steadyCost === null ? '' : ` (from the second interval: ${steadyCost})`}\n` +
        `bytes per stored result: ${Math.round(s.cost.bytesPerResult)} (${s.cost.resultRows} rows); once packed ${Math.round(s.cost.bytesPerResultPacked)} (${s.cost.packedRows} packed rows); a whole day packed ${s.cost.wholeDay!.bytesPerResultPacked.toFixed(1)}\n` +
        `slots expected ${s.expected}, stored ${s.stored}, missed ${s.missed}, duplicated ${s.duplicated}; lateness p50 ${s.latenessP50Ms} ms, p99 ${s.latenessP99Ms} ms${steadyP99 === null ? '' : ` (from the second interval: p99 ${steadyP99} ms)`}\n` +
        `CPU over the window (% of one core): workers ${s.cpuPercent.workers.join(' + ')}, PostgreSQL ${s.cpuPercent.postgres}, Redis ${s.cpuPercent.redis}\n` +
        capacityLines(capacity) +
        `detection (${d.intervalSeconds} s monitors, confirm ${d.confirmAfterSeconds} s): ${d.runs
          .map(
            (r) =>
              `${r.secondsToIncident?.toFixed(1) ?? 'none'} s (first failure ${r.secondsToFirstFailure?.toFixed(1) ?? '-'} s, bound ${r.boundSeconds?.toFixed(1) ?? '-'} s)`,
          )
          .join(', ')}\n` +
        `load average at start: ${loadAverageAtStart.join(' ')}; at the end: ${loadAverage.join(' ')}\n` +
        `wrote ${path.slice(ROOT.length + 1)}\n`,
    );
    await prisma.$disconnect();
    await stopAll(children);
    process.exit(0);
  }

  // API: a workspace with enough monitors for a full page, paused so that no check disturbs the API's numbers.
  const apiWs = await seedWorkspace(prisma, 'bench-api');
  const [monitor] = await createMonitorsBulk(prisma, {
    workspaceId: apiWs.id,
    count: 150,
    type: 'http',
    target: targetUrl,
    intervalSeconds: 60,
    enabled: false,
    name: 'Api',
  });
  const beats = await createMonitorsBulk(prisma, {
    workspaceId: apiWs.id,
    count: 200,
    type: 'heartbeat',
    intervalSeconds: 3600,
    enabled: false,
    name: 'Beat',
  });
  const [history] = await createMonitorsBulk(prisma, {
    workspaceId: apiWs.id,
    count: 1,
    type: 'http',
    target: targetUrl,
    intervalSeconds: 60,
    enabled: false,
    name: 'History',
  });
  // Issue 14: a list with filters, matching a full page and more (not the first monitors listed). In a workspace of
  // its own: in the API's workspace its 600 monitors made GET /monitors/{id}, the plain list and the ping measure a
  // bigger workspace than they did before filters came (docs/benchmarks.md, "API ratios and the filtered list").
  const filterWs = await seedWorkspace(prisma, 'bench-filter');
  const filteredList = {
    ...(await seedFilterableMonitors(prisma, {
      workspaceId: filterWs.id,
      count: FILTERABLE_MONITORS,
      target: targetUrl,
    })),
    token: filterWs.token,
  };
  const filterWorkspaceMonitors = await prisma.monitor.count({ where: { workspaceId: filterWs.id } });
  const statusPage = await seedStatusPage(prisma, {
    components: STATUS_PAGE_COMPONENTS,
    days: STATUS_PAGE_DAYS,
    targetUrl,
  });
  api = await startApi(urls, encryptionKey);
  children.push(api.child);
  if (args['event-log']) {
    log('event log overhead...');
    const eventLog = await runEventLogOverhead({ prisma, ...urls, encryptionKey, targetUrl, ...eventLogSizes }, log);
    const { path } = writeSideResults(
      RESULTS_DIR,
      'event-log',
      { startedAt, source },
      { sizes: eventLogSizes, eventLog },
    );
    process.stdout.write(`${JSON.stringify(eventLog, null, 2)}\nwrote ${path.slice(ROOT.length + 1)}\n`);
    await stopAll([api.child, ...children]);
    process.exit(0);
  }
  log('API scenarios...');
  const apiResults = await runApiScenarios(
    {
      apiUrl: api.baseUrl,
      baselineUrl: `http://127.0.0.1:${baseline.port}/`,
      token: apiWs.token,
      monitorId: monitor!.id,
      pingSecrets: beats.map((b) => b.pingSecret!),
      filteredList,
      targetUrl,
      durationSeconds: sizes.apiSeconds,
      warmupSeconds: sizes.warmupSeconds,
      connections: 50,
      cpu: {
        apiPid: api.child.pid,
        baselinePid: baseline.child.pid,
        backends: databaseBackends(prisma),
        redisPid: await redisServerPid(urls.redisUrl),
      },
    },
    log,
  );
  await baseline.child.stop();
  log('status page...');
  const statusPageResults = await runStatusPage(
    {
      apiUrl: api.baseUrl,
      slug: statusPage.slug,
      components: STATUS_PAGE_COMPONENTS,
      days: STATUS_PAGE_DAYS,
      connections: 50,
      durationSeconds: sizes.apiSeconds,
      warmupSeconds: sizes.warmupSeconds,
    },
    log,
  );
  if (args['api-only']) {
    process.stdout.write(
      `${apiResults.scenarios.map((s) => `${s.name}: ${Math.round(s.rps)} req/s, p99 ${s.p99Ms} ms, ${Math.round(s.ratio * 100)}%; CPU ${s.cpuUsPerRequest?.total} µs a request, efficiency ${((s.efficiency ?? NaN) * 100).toFixed(1)}%`).join('\n')}\n` +
        `status page HTML: ${Math.round(statusPageResults.html.rps)} req/s, p50 ${statusPageResults.html.p50Ms} ms, p99 ${statusPageResults.html.p99Ms} ms\n` +
        `status page JSON: ${Math.round(statusPageResults.json.rps)} req/s, p50 ${statusPageResults.json.p50Ms} ms, p99 ${statusPageResults.json.p99Ms} ms\n`,
    );
    await prisma.$disconnect();
    await stopAll([api.child, ...children]);
    process.exit(0);
  }
  log('event log overhead...');
  const eventLog = await runEventLogOverhead({ prisma, ...urls, encryptionKey, targetUrl, ...eventLogSizes }, log);
  // Before the worker starts: nothing else writes results or runs housekeeping meanwhile.
  log('response-times history...');
  const responseTimes = await runResponseTimes(
    {
      prisma,
      apiUrl: api.baseUrl,
      token: apiWs.token,
      monitorId: history!.id,
      days: sizes.historyDays,
      requests: sizes.historyRequests,
    },
    log,
  );
  log('config plan and apply...');
  const config = await runConfigScenario({ prisma, apiUrl: api.baseUrl, targetUrl, monitors: CONFIG_MONITORS }, log);
  const { workspaceId: reportWsId, result: uptimeReport } = await uptimeReportOn(api);
  // The monitors POSTed above queued first checks and schedules: gone before the worker starts.
  await prisma.workspace.deleteMany({
    where: { id: { in: [apiWs.id, filterWs.id, statusPage.workspaceId, reportWsId] } },
  });
  // Those were every stored result: give their space back, so that bytes per result counts only the rows stored from
  // here on (left in place, a quick run's few thousand results shared the space of 10,080 deleted ones: 2,000+ bytes).
  await prisma.$executeRawUnsafe('VACUUM FULL check_results');
  await clearBenchKeys(urls.redisUrl, targets.redisDb);

  worker = (await startWorkers(1))[0]!;
  log('check throughput...');
  const checks = await runCheckThroughput(
    {
      prisma,
      redisUrl: urls.redisUrl,
      workerMetricsUrl: worker.metricsUrl,
      targetUrl,
      jobs: sizes.checkJobs,
      monitors: sizes.checkMonitors,
      concurrency: WORKER_CONCURRENCY,
    },
    log,
  );

  const moreWorkers = await startWorkers(workerCount - 1);
  log(`scheduling at scale and detection (${workersLabel})...`);
  const { scheduling, detection } = await runScheduling(schedulingInput([worker, ...moreWorkers]), log);
  scheduling.cost.wholeDay = await packWholeDay();
  await prisma.$disconnect();
  // The run is over once its processes are: the duration covers starting and stopping them, and nothing measured.
  await stopAll([worker?.child, api?.child, ...children]);
  const durationSeconds = performance.now() / 1000 - buildSeconds;

  const ping = apiResults.scenarios.find((s) => s.name.startsWith('POST /ping'))!;
  const getOne = apiResults.scenarios.find((s) => s.name === 'GET /api/v1/monitors/{id}')!;
  const list = apiResults.scenarios.find((s) => s.name === LIST_SCENARIO)!;
  const filtered = apiResults.scenarios.find((s) => s.name === FILTERED_LIST_SCENARIO)!;
  const { lateness, ...schedulingFigures } = scheduling;
  const cpus = os.cpus();
  const partial: Omit<BenchResults, 'goals'> = {
    date: startedAt.toISOString(),
    mode: quick ? 'quick' : 'full',
    durationSeconds: Math.round(durationSeconds * 10) / 10,
    buildSeconds: Math.round(buildSeconds * 10) / 10,
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.versions.node,
      platform: `${os.platform()} ${os.release()}`,
      ...atStart,
    },
    commit: source.commit,
    dirty: source.dirty,
    api: {
      baselineRps: apiResults.baselineRps,
      getMonitorRps: getOne.rps,
      ratio: getOne.ratio,
      connections: 50,
      durationSeconds: sizes.apiSeconds,
      scenarios: apiResults.scenarios,
    },
    checks,
    scheduling: { ...schedulingFigures, capacity: capacityVerdict(schedulingFigures) },
    pings: { rps: ping.rps, p50Ms: ping.p50Ms, p99Ms: ping.p99Ms, ratio: ping.ratio },
    list: { rps: list.rps, p99Ms: list.p99Ms, ratio: list.ratio },
    filteredList: {
      query: filteredList.query,
      matching: filteredList.matching,
      monitors: filterWorkspaceMonitors,
      rps: filtered.rps,
      p99Ms: filtered.p99Ms,
      ratio: filtered.ratio,
      vsUnfiltered: filtered.rps / list.rps,
    },
    statusPage: statusPageResults,
    detection,
    responseTimes,
    config,
    eventLog,
    uptimeReport,
  };
  const results: BenchResults = { ...partial, goals: goalsOf(partial) };

  const resultsPath = join(RESULTS_DIR, resultsFileName(startedAt, quick));
  writeResults(resultsPath, results);
  // A quick run (CI) exercises the document writer without replacing the published figures.
  const docPath = quick ? join(ROOT, '.data/bench/benchmarks-quick.md') : DOCS_FILE;
  const chartPath = quick ? join(ROOT, '.data/bench/lateness-quick.svg') : CHART_FILE;
  mkdirSync(join(chartPath, '..'), { recursive: true });
  writeFileSync(
    chartPath,
    latenessSvg(
      lateness,
      `Scheduling lateness: ${scheduling.monitors.toLocaleString('en-US')} monitors every ${scheduling.intervalSeconds} s, ${scheduling.intervals} interval(s)`,
    ),
  );
  writeDocs(docPath, resultsMarkdown(results, chartPath, docPath, resultsPath));

  process.stdout.write(consoleReport(results));
  process.stdout.write(`\nwrote ${resultsPath.slice(ROOT.length + 1)} and ${docPath.slice(ROOT.length + 1)}\n`);

  // What makes the bench fail (CI): a broken harness or a broken product, not a slow machine.
  const bad = [
    ...apiResults.scenarios,
    { name: 'status page (HTML)', ...statusPageResults.html },
    { name: 'status page (JSON)', ...statusPageResults.json },
  ].filter((s) => s.bad > s.requests * 0.01);
  if (bad.length) failure = `error answers in ${bad.map((s) => `${s.name} (${s.bad}/${s.requests})`).join(', ')}`;
  else if (checks.failures > 0) failure = `${checks.failures} checks of the healthy target failed`;
  else if (detection.runs.some((r) => r.secondsToIncident === null))
    failure = 'a target went down and no incident opened';
  else if (config.secondApplyChanges > 0)
    failure = `the second apply of the same document made ${config.secondApplyChanges} change(s)`;
  else if (scheduling.duplicated > 0) failure = `${scheduling.duplicated} duplicated slots`;
  else if (scheduling.stored === 0) failure = 'no scheduled check ran';
  // The quick run's wall-clock (QUICK_LIMIT_SECONDS) is a goal in the table, not a failure: it measures the machine.
} catch (err) {
  failure = (err as Error).stack ?? String(err);
} finally {
  await stopAll([worker?.child, api?.child, ...children]);
}
if (failure) {
  log(`FAILED: ${failure}`);
  process.exit(1);
}
log('done');
process.exit(0);
