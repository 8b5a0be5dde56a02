import { describe, expect, it } from '@jest/globals';
import {
  capacityLines,
  capacityVerdict,
  consoleReport,
  goalsOf,
  p99AfterFirstInterval,
  cpuAfterFirstInterval,
  replaceResultsBlock,
  resultsFileName,
  resultsMarkdown,
  sideResults,
  sideResultsPath,
  uptimeReportLines,
  type BenchResults,
} from './report.js';
import { UPTIME_REPORT_GOAL_CASE } from '../scenarios/uptime-report.js';

type Results = Omit<BenchResults, 'goals'>;

/** An API scenario's figures: `efficiency` is bare Express's CPU per request over its own (issue 33). */
function apiScenario(name: string, rps: number, efficiency: number) {
  const total = Math.round(100 / efficiency);
  return {
    name,
    rps,
    p50Ms: 5,
    p99Ms: 20,
    ratio: rps / 5000,
    requests: rps * 10,
    bad: 0,
    cpuUsPerRequest: { process: total - 20, postgres: 15, redis: 5, total },
    efficiency,
  };
}

/** A full run that meets every goal; tests override what they look at. */
function makeResults(over: { [K in keyof Results]?: Partial<Results[K]> } = {}): Results {
  const base: Results = {
    date: '2026-11-22T04:20:44.761Z',
    mode: 'full',
    durationSeconds: 350.2,
    buildSeconds: 0.4,
    machine: { cpus: 2, cpuModel: 'AMD EPYC', memoryGiB: 24, node: '20.20.2', platform: 'linux' },
    commit: '80e8bec1a9c698634322e1cb4a42c7111722de4b',
    dirty: false,
    api: {
      baselineRps: 5000,
      getMonitorRps: 2500,
      ratio: 0.5,
      connections: 50,
      durationSeconds: 10,
      scenarios: [
        apiScenario('GET /api/v1/monitors/{id}', 2500, 0.5),
        apiScenario('GET /api/v1/monitors?perPage=100', 800, 0.15),
        apiScenario('POST /api/v1/monitors', 300, 0.05),
        apiScenario('POST /ping/{secret} (1 KB log)', 5000, 0.55),
      ],
    },
    checks: {
      jobs: 10_000,
      monitors: 1000,
      perSecond: 1500,
      baselinePerSecond: 2000,
      ratio: 0.75,
      concurrency: 200,
      eventLoopDelayP99Ms: 30,
      eventLoopDelayMaxMs: 80,
      checkDurationP50Ms: 250,
      checkDurationP99Ms: 250,
      failures: 0,
    },
    scheduling: {
      monitors: 10_000,
      workers: 1,
      intervalSeconds: 60,
      intervals: 3,
      windowStart: '2026-11-22T04:15:09.400Z',
      expected: 30_000,
      stored: 30_000,
      missed: 0,
      recordedMissed: 0,
      checksPerMonitor: { min: 3, max: 3 },
      meanLatenessPerMonitorMs: { min: 5, max: 40 },
      lagWarnings: [],
      cpuPercent: { workers: [90], postgres: 60, redis: 10 },
      duplicated: 0,
      offSlot: 0,
      latenessP50Ms: 12,
      latenessP99Ms: 122,
      latenessMaxMs: 408,
      workerLatenessP99BucketMs: 250,
      createMonitorsMs: 5000,
      reconcileMs: 1400,
      redisMemoryBytes: 22_000_000,
      redisKeys: 20_000,
      redisServerUsedBytes: 40_000_000,
      workerRssBytes: 400_000_000,
      workerEventLoopDelayP99Ms: 4,
      resultsLost: 0,
      cost: {
        cpuMsPerCheck: { worker: 0.4, postgres: 0.3, redis: 0.05, total: 0.75 },
        bytesPerResult: 160,
        resultRows: 40_000,
        bytesPerResultPacked: 30,
        packedRows: 700,
        wholeDay: {
          monitors: 200,
          intervalSeconds: 60,
          days: 1,
          resultRows: 288_000,
          bytesPerResult: 195.5,
          bytesPerResultPacked: 12.84,
          packedRows: 200,
          packMs: 6900,
        },
      },
    },
    pings: { rps: 5100, p50Ms: 8, p99Ms: 21, ratio: 0.9 },
    list: { rps: 900, p99Ms: 90, ratio: 0.12 },
    statusPage: {
      components: 50,
      days: 90,
      connections: 50,
      durationSeconds: 10,
      html: { rps: 3000, p50Ms: 12, p99Ms: 30, requests: 30_000, bad: 0, bytes: 18_000 },
      json: { rps: 3000, p50Ms: 12, p99Ms: 31, requests: 30_000, bad: 0, bytes: 14_000 },
    },
    detection: {
      intervalSeconds: 60,
      openThreshold: 2,
      confirmAfterSeconds: 15,
      theoreticalMaxSeconds: 75,
      runs: [20, 35, 41, 50, 62].map((t) => ({
        secondsToIncident: t,
        secondsToFirstFailure: t - 15.4,
        boundSeconds: t + 1.6,
        withinBound: true,
      })),
      meanSeconds: 41.6,
      maxSeconds: 62,
    },
    responseTimes: {
      rows: 43_200,
      days: 30,
      load: 'createMany + rebuildRollups',
      loadMs: 3000,
      requests: 500,
      monthP50Ms: 6.1,
      monthP95Ms: 8.2,
      monthP99Ms: 12.5,
      monthMaxMs: 30,
    },
  };
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(over))
    out[k] =
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? { ...(base as unknown as Record<string, object>)[k], ...v }
        : v;
  return out as unknown as Results;
}

const goal = (r: Results, prefix: string) => {
  const g = goalsOf(r).find((x) => x.goal.startsWith(prefix));
  if (!g) throw new Error(`no goal starting with ${prefix}`);
  return g;
};

describe('consoleReport', () => {
  it('prints the CPU per stored check by process and the bytes per stored result', () => {
    const results = makeResults();
    const text = consoleReport({ ...results, goals: goalsOf(results) });
    expect(text).toMatch(
      /CPU ms per stored check: worker \/ PostgreSQL \/ Redis = total\s+0\.40 \/ 0\.30 \/ 0\.05 = 0\.75/,
    );
    expect(text).toMatch(/bytes per stored result \(check_results\) \/ once packed\s+160 \/ 30 \(700 packed rows\)/);
  });

  it('adds the whole day packed to the bytes, and judges it and the CPU per check (issue 33)', () => {
    const results = makeResults();
    const cost = results.scheduling.cost;
    const withCost = (c: Partial<typeof cost>) => ({
      ...results,
      scheduling: { ...results.scheduling, cost: { ...cost, ...c } },
    });
    expect(consoleReport({ ...results, goals: goalsOf(results) })).toMatch(
      /once packed\s+160 \/ 30 \(700 packed rows\); a whole day packed: 12\.8 \(200 monitors every 60 s\)/,
    );
    expect(goal(results, 'bytes per stored result once packed, a whole day')).toMatchObject({
      target: '<= 100',
      actual: '12.8',
      met: true,
    });
    const bulky = withCost({ wholeDay: { ...cost.wholeDay!, bytesPerResultPacked: 100.5 } });
    expect(goal(bulky, 'bytes per stored result once packed').met).toBe(false);
    // Without the whole day (an older results file), no bytes goal and no whole-day figure.
    const older = withCost({ wholeDay: undefined });
    expect(goalsOf(older).some((g) => g.goal.startsWith('bytes per stored result'))).toBe(false);
    expect(consoleReport({ ...older, goals: goalsOf(older) })).not.toMatch(/a whole day packed/);

    expect(goal(results, 'CPU per stored check')).toMatchObject({
      target: '<= 0.8 ms at 10,000',
      actual: '0.75 ms',
      met: true,
    });
    const dear = withCost({ cpuMsPerCheck: { worker: 0.6, postgres: 0.3, redis: 0.1, total: 1 } });
    expect(goal(dear, 'CPU per stored check')).toMatchObject({ actual: '1.00 ms', met: false });
    const small = { ...results, scheduling: { ...results.scheduling, monitors: 4000 } };
    expect(goal(small, 'CPU per stored check').met).toBeNull();
  });
});

describe('capacityVerdict', () => {
  /** The scheduling figures of a run that fell behind (100,000 monitors every 60 s on two workers). */
  const behind = (cpuPercent: Results['scheduling']['cpuPercent'], total = 2) =>
    capacityVerdict({
      ...makeResults().scheduling,
      monitors: 100_000,
      intervalSeconds: 60,
      latenessP99Ms: 4600,
      missed: 0,
      cpuPercent,
      cost: {
        ...makeResults().scheduling.cost,
        cpuMsPerCheck: { worker: total / 2, postgres: total / 4, redis: total / 4, total },
      },
    });

  it('says nothing ran out when the goal was met, and still shows the machine', () => {
    const v = capacityVerdict({
      ...makeResults().scheduling,
      cpuPercent: { workers: [40], postgres: 20, redis: 10, machine: { cores: 2, busyPercent: 40 } },
    });
    expect(v).toMatchObject({ goalMet: true, ranOut: null });
    expect(v.machine).toBe('0.80 of 2 cores busy (40%), the workers, PostgreSQL and Redis 0.70 of them');
    expect(capacityLines(v)).toBe(
      'machine CPU over the window: used of available: 0.80 of 2 cores busy (40%), the workers, PostgreSQL and Redis 0.70 of them\n',
    );
  });

  it('names the CPU when the machine was busy, and says whether a single process reached a full core', () => {
    const v = behind({ workers: [80, 78], postgres: 30, redis: 6, machine: { cores: 2, busyPercent: 97 } });
    expect(v.goalMet).toBe(false);
    expect(v.ranOut).toBe('CPU — the 2 cores were 97% busy; no single process reached a full core');
    const hot = behind({ workers: [60, 50], postgres: 20, redis: 96, machine: { cores: 2, busyPercent: 90 } });
    expect(hot.ranOut).toBe('CPU — the 2 cores were 90% busy; Redis (96% of one core) also reached a full core');
  });

  it('names a single-threaded process at a full core when the machine had CPU left', () => {
    const v = behind({ workers: [99, 40], postgres: 30, redis: 20, machine: { cores: 4, busyPercent: 55 } });
    expect(v.ranOut).toBe(
      "one core — worker 1 (99% of one core) reached a full core (one thread each) while the machine's 4 cores were 55% busy",
    );
    // PostgreSQL runs a process per connection: above one core it is not a single thread's limit.
    const pg = behind({ workers: [50], postgres: 150, redis: 20, machine: { cores: 4, busyPercent: 60 } });
    expect(pg.ranOut).toMatch(/^not CPU — the 4 cores were 60% busy and no single process reached a full core/);
  });

  it('counts a missed or duplicated slot as the goal not met, whatever the lateness', () => {
    const base = { ...makeResults().scheduling, cpuPercent: { workers: [40], postgres: 20, redis: 10, machine: null } };
    expect(capacityVerdict({ ...base, missed: 1 }).goalMet).toBe(false);
    expect(capacityVerdict({ ...base, duplicated: 1 }).goalMet).toBe(false);
    expect(capacityVerdict({ ...base, latenessP99Ms: 1000 }).goalMet).toBe(false);
    expect(capacityVerdict({ ...base, missed: 1 }).ranOut).toMatch(/^unknown — /);
  });

  it('says what one more core buys at the measured CPU per check, and how many cores the due checks need', () => {
    const v = behind({ workers: [80, 78], postgres: 30, redis: 6, machine: { cores: 2, busyPercent: 97 } }, 2.5);
    expect(v.oneMoreCoreChecksPerSecond).toBe(400);
    expect(v.oneMoreCore).toBe(
      'about 400 checks/s at 2.50 ms of CPU per check (worker + PostgreSQL + Redis); the 1,667 checks/s due need about 4.2 cores at that cost',
    );
    expect(capacityLines(v)).toContain('ran out: CPU — the 2 cores were 97% busy');
    expect(capacityLines(v)).toContain('one more core buys: about 400 checks/s');
    // No check stored: no cost per check, nothing to divide.
    const none = behind({ workers: [0], postgres: 0, redis: 0, machine: { cores: 2, busyPercent: 5 } }, NaN);
    expect([none.oneMoreCoreChecksPerSecond, none.oneMoreCore]).toEqual([null, null]);
  });

  it('is in the console table and the document when the goal was not met', () => {
    const results = makeResults({
      scheduling: {
        latenessP99Ms: 4600,
        cpuPercent: { workers: [80, 78], postgres: 30, redis: 6, machine: { cores: 2, busyPercent: 97 } },
      },
    });
    const full = { ...results, goals: goalsOf(results) };
    for (const text of [
      consoleReport(full),
      resultsMarkdown(full, '/r/docs/c.svg', '/r/docs/b.md', '/r/bench/results/x.json'),
    ]) {
      expect(text).toContain('CPU — the 2 cores were 97% busy; no single process reached a full core');
      expect(text).toContain('about 1,333 checks/s at 0.75 ms of CPU per check');
      expect(text).toContain('1.94 of 2 cores busy (97%)');
    }
  });
});

describe('goalsOf', () => {
  it('meets every goal of a good full run, and leaves the quick-run limit to quick runs', () => {
    const goals = goalsOf(makeResults());
    expect(goals.map((g) => [g.goal, g.met])).toEqual([
      ['GET /monitors/{id}: CPU efficiency vs bare Express', true],
      ['ping receiver (1 KB log): CPU efficiency vs bare Express', true],
      ['GET /monitors?perPage=100: CPU efficiency vs bare Express', true],
      ['POST /monitors: CPU efficiency vs bare Express', true],
      ['POST /monitors throughput', true],
      ['worker vs plain got loop', true],
      ['scheduling p99 lateness (10,000 monitors)', true],
      ['missed / duplicated slots', true],
      ['CPU per stored check, worker + PostgreSQL + Redis (10,000 monitors)', true],
      ['bytes per stored result once packed, a whole day (200 monitors every 60 s)', true],
      ['ping receiver throughput', true],
      ['status page p99, HTML / JSON (50 components x 90 days)', true],
      ['month response-times query p99 (43,200 results)', true],
      ['detection, 5 outage(s) (2/2 x 60 s, confirm 15 s)', true],
      ['quick run wall-clock (build excluded)', null],
    ]);
  });

  it('judges detection on at least 5 runs of a 60 s monitor: every run within its bound, mean < 50 s, max < 80 s', () => {
    const d = makeResults().detection;
    const runs = (over: Partial<(typeof d.runs)[number]>) => d.runs.map((x, i) => (i === 0 ? { ...x, ...over } : x));
    expect(goal(makeResults(), 'detection').met).toBe(true);
    expect(goal(makeResults({ detection: { runs: runs({ withinBound: false }) } }), 'detection').met).toBe(false);
    expect(goal(makeResults({ detection: { runs: runs({ secondsToIncident: null }) } }), 'detection').met).toBe(false);
    expect(goal(makeResults({ detection: { meanSeconds: 50 } }), 'detection').met).toBe(false);
    expect(goal(makeResults({ detection: { maxSeconds: 80 } }), 'detection').met).toBe(false);
    expect(goal(makeResults({ detection: { runs: d.runs.slice(0, 4) } }), 'detection').met).toBeNull();
    expect(goal(makeResults({ detection: { intervalSeconds: 10 } }), 'detection').met).toBeNull();
  });

  it('applies each threshold at its boundary', () => {
    // Issue 33's efficiency goals, each at its boundary and just under it; POST /monitors at 300 req/s.
    for (const [name, label, min] of [
      ['GET /api/v1/monitors/{id}', 'GET /monitors/{id}:', 0.5],
      ['POST /ping/{secret} (1 KB log)', 'ping receiver (1 KB log):', 0.55],
      ['GET /api/v1/monitors?perPage=100', 'GET /monitors?perPage=100:', 0.15],
      ['POST /api/v1/monitors', 'POST /monitors:', 0.05],
    ] as const) {
      const withEfficiency = (e: number) =>
        makeResults({
          api: {
            scenarios: makeResults().api.scenarios.map((x) => (x.name === name ? { ...x, efficiency: e } : x)),
          },
        });
      expect([label, goal(withEfficiency(min), label).met]).toEqual([label, true]);
      expect([label, goal(withEfficiency(min - 0.001), label).met]).toEqual([label, false]);
    }
    const withPostRps = (rps: number) =>
      makeResults({
        api: {
          scenarios: makeResults().api.scenarios.map((x) => (x.name === 'POST /api/v1/monitors' ? { ...x, rps } : x)),
        },
      });
    expect(goal(withPostRps(299), 'POST /monitors throughput').met).toBe(false);
    expect(goal(withPostRps(300), 'POST /monitors throughput').met).toBe(true);
    expect(goal(makeResults({ checks: { ratio: 0.5 } }), 'worker vs').met).toBe(true);
    expect(goal(makeResults({ checks: { ratio: 0.49 } }), 'worker vs').met).toBe(false);
    expect(goal(makeResults({ scheduling: { latenessP99Ms: 999 } }), 'scheduling').met).toBe(true);
    expect(goal(makeResults({ scheduling: { latenessP99Ms: 1000 } }), 'scheduling').met).toBe(false);
    expect(goal(makeResults({ scheduling: { missed: 1 } }), 'missed').met).toBe(false);
    expect(goal(makeResults({ scheduling: { duplicated: 1 } }), 'missed').met).toBe(false);
    expect(goal(makeResults({ pings: { rps: 4999 } }), 'ping receiver throughput').met).toBe(false);
    const page = makeResults().statusPage;
    expect(goal(makeResults({ statusPage: { json: { ...page.json, p99Ms: 49 } } }), 'status page').met).toBe(true);
    expect(goal(makeResults({ statusPage: { json: { ...page.json, p99Ms: 50 } } }), 'status page').met).toBe(false);
    expect(goal(makeResults({ statusPage: { html: { ...page.html, p99Ms: 50 } } }), 'status page').met).toBe(false);
    expect(goal(makeResults({ responseTimes: { monthP99Ms: 49.9 } }), 'month').met).toBe(true);
    expect(goal(makeResults({ responseTimes: { monthP99Ms: 50 } }), 'month').met).toBe(false);
  });

  it('does not judge what a smaller run cannot show: scheduling below 10,000 monitors, history below a month', () => {
    expect(goal(makeResults({ scheduling: { monitors: 500, latenessP99Ms: 5000 } }), 'scheduling')).toMatchObject({
      met: null,
      goal: 'scheduling p99 lateness (500 monitors)',
      actual: '5,000 ms',
    });
    expect(goal(makeResults({ responseTimes: { rows: 7 * 1440, monthP99Ms: 80 } }), 'month')).toMatchObject({
      met: null,
      actual: '80 ms',
    });
  });

  it('holds the filtered list to the list before filters came, when the run measured it (issue 14)', () => {
    const filteredList = { query: 'status=down', matching: 125, monitors: 951, rps: 900, p99Ms: 90, vsUnfiltered: 0.7 };
    const prefix = 'GET /monitors?perPage=100 with filters';
    expect(goal(makeResults({ filteredList: { ...filteredList, ratio: 0.047 } } as never), prefix)).toMatchObject({
      met: true,
      actual: '4.7% (70% of the list without filters)',
    });
    expect(goal(makeResults({ filteredList: { ...filteredList, ratio: 0.046 } } as never), prefix).met).toBe(false);
    expect(goalsOf(makeResults()).some((g) => g.goal.startsWith(prefix))).toBe(false);
  });

  it("holds a month's uptime report of 1,000 monitors to p99 < 300 ms (the CSV), judged at 1,000 or more (issue 29)", () => {
    const c = {
      query: '',
      bytes: 1,
      apiCpuMsPerRequest: 70,
      machineBusyPercent: 50,
      p50Ms: 100,
      p95Ms: 150,
      maxMs: 400,
    };
    const report = (monitors: number, p99Ms: number) => ({
      monitors,
      month: '2026-10',
      incidents: 3000,
      spans: 10_600,
      loadMs: 1,
      requests: 50,
      cases: [
        { ...c, name: 'JSON page of 250, month', accept: 'application/json' as const, p99Ms: 900 },
        { ...c, name: UPTIME_REPORT_GOAL_CASE, accept: 'text/csv' as const, p99Ms },
      ],
    });
    const prefix = 'uptime report of a month';
    expect(goal(makeResults({ uptimeReport: report(1000, 299.9) } as never), prefix)).toMatchObject({
      met: true,
      goal: 'uptime report of a month p99 (1,000 monitors, CSV)',
      actual: '299.9 ms',
    });
    expect(goal(makeResults({ uptimeReport: report(1000, 300) } as never), prefix).met).toBe(false);
    expect(goal(makeResults({ uptimeReport: report(100, 900) } as never), prefix).met).toBeNull();
    expect(goalsOf(makeResults()).some((g) => g.goal.startsWith(prefix))).toBe(false);
    expect(uptimeReportLines(report(1000, 450))).toContain(
      'goal: uptime report of a month p99 (1,000 monitors, CSV) < 300 ms at 1,000: 450 ms, NOT met',
    );
  });

  it('holds a quick run to 120 seconds, the build excluded', () => {
    expect(goal(makeResults({ mode: 'quick', durationSeconds: 119.9 } as never), 'quick run')).toMatchObject({
      met: true,
      actual: '119.9 s',
    });
    expect(goal(makeResults({ mode: 'quick', durationSeconds: 120 } as never), 'quick run').met).toBe(false);
  });
});

describe('resultsFileName', () => {
  it('carries the date and the time (no colons), and -quick for a quick run', () => {
    expect(resultsFileName(new Date('2026-11-22T04:20:44.761Z'), false)).toBe('2026-11-22T042044Z.json');
    expect(resultsFileName(new Date('2026-11-22T04:20:44.761Z'), true)).toBe('2026-11-22T042044Z-quick.json');
  });

  it('sorts by time, after the older date-only names of the same day', () => {
    const times = [
      '2026-11-22T23:59:59Z',
      '2026-11-22T04:20:44Z',
      '2026-11-23T00:00:00Z',
      '2026-11-22T04:20:45Z',
      '2026-11-22T10:00:00Z',
    ];
    const names = times.map((t, i) => resultsFileName(new Date(t), i % 2 === 0));
    const byName = [...names].sort();
    const byTime = times
      .map((t, i) => [Date.parse(t), names[i]!] as const)
      .sort((a, b) => a[0] - b[0])
      .map((x) => x[1]);
    expect(byName).toEqual(byTime);
    expect(['2026-11-22T000000Z.json', '2026-11-22.json', '2026-11-22-quick.json'].sort().slice(-1)).toEqual([
      '2026-11-22T000000Z.json',
    ]);
  });
});

const START = '<!-- bench:results:start (written by npm run bench; edit outside these markers) -->';
const END = '<!-- bench:results:end -->';

describe('replaceResultsBlock', () => {
  it('replaces only what lies between the markers, keeping the text around them byte for byte', () => {
    const before = '# Benchmarks\n\nHand-written intro, with a `code` span.\n\n## Latest figures\n\n';
    const after = '\n\nNotes after the block.\n<!-- another comment -->\n';
    const doc = `${before}${START}\nold figures\n${END}${after}`;
    const block = `${START}\nnew figures\n${END}`;
    const next = replaceResultsBlock(doc, block);
    expect(next).toBe(`${before}${block}${after}`);
    // Idempotent: running it again changes nothing.
    expect(replaceResultsBlock(next, block)).toBe(next);
  });

  it('appends the block to a document without markers, and starts a document when there is none', () => {
    const block = `${START}\nfigures\n${END}`;
    expect(replaceResultsBlock('# Benchmarks\n\nJust notes.\n\n', block)).toBe(
      `# Benchmarks\n\nJust notes.\n\n${block}\n`,
    );
    expect(replaceResultsBlock(null, block)).toBe(`# Benchmarks\n\n${block}\n`);
  });

  it('a block written by resultsMarkdown carries both markers', () => {
    const md = resultsMarkdown(
      { ...makeResults(), goals: [] },
      '/r/docs/benchmarks/lateness.svg',
      '/r/docs/benchmarks.md',
      '/r/bench/results/2026-11-22T042044Z.json',
    );
    expect(md.startsWith(START)).toBe(true);
    expect(md.endsWith(END)).toBe(true);
    expect(md).toContain('[`../bench/results/2026-11-22T042044Z.json`](../bench/results/2026-11-22T042044Z.json)');
  });
});

describe('traceability in the outputs', () => {
  /** The document block of a run, written as bench/run.ts writes it. */
  const md = (r: BenchResults) => resultsMarkdown(r, '/r/docs/c.svg', '/r/docs/b.md', '/r/bench/results/x.json');

  it('names the full commit, and says when the checkout had uncommitted changes', () => {
    const clean = { ...makeResults(), goals: [] };
    const dirty = { ...makeResults({ dirty: true } as never), goals: [] };
    expect(md(clean)).toContain('Commit: `80e8bec1a9c698634322e1cb4a42c7111722de4b` (clean checkout).');
    expect(md(dirty)).toContain('Commit: `80e8bec1a9c698634322e1cb4a42c7111722de4b` **with uncommitted changes**.');
    expect(consoleReport(dirty)).toContain(
      'full run of 2026-11-22T04:20:44.761Z, commit 80e8bec1a9c698634322e1cb4a42c7111722de4b (uncommitted changes)\n',
    );
    expect(consoleReport(clean)).toContain('commit 80e8bec1a9c698634322e1cb4a42c7111722de4b\n');
    expect(consoleReport(clean)).toMatch(/run duration \(build excluded\) \/ build\s+350\.2 s \/ 0\.4 s/);
    expect(md(clean)).toContain('350.2 s (build 0.4 s more)');
  });

  it('shows the p99 from the second interval when the run recorded it, and nothing for older results', () => {
    const before = { ...makeResults(), goals: [] };
    const steady = { ...before, scheduling: { ...before.scheduling, latenessP99AfterFirstIntervalMs: 87 } };
    const single = { ...before, scheduling: { ...before.scheduling, latenessP99AfterFirstIntervalMs: NaN } };
    const row = /\| lateness p99 from the second interval \(first checks and start-up behind\) \| 87 ms \|/;
    expect(md(steady)).toMatch(row);
    expect(md(before)).not.toContain('from the second interval');
    expect(md(single)).not.toContain('from the second interval');
    expect(p99AfterFirstInterval(steady.scheduling)).toBe(87);
    expect(p99AfterFirstInterval(single.scheduling)).toBeNull();
  });

  it('shows the CPU per check from the second interval when the run recorded it, and nothing for older results', () => {
    const before = { ...makeResults(), goals: [] };
    const cost = before.scheduling.cost;
    const after = (c: typeof cost.cpuMsPerCheck) => ({
      ...before,
      scheduling: { ...before.scheduling, cost: { ...cost, cpuMsPerCheckAfterFirstInterval: c } },
    });
    const steady = after({ worker: 0.5, postgres: 0.25, redis: 0.04, total: 0.79 });
    const single = after({ worker: NaN, postgres: NaN, redis: NaN, total: NaN });
    const row = '| the same from the second interval (first checks and start-up behind) | 0.50 / 0.25 / 0.04 = 0.79 |';
    expect(md(steady)).toContain(row);
    expect(consoleReport(steady)).toMatch(
      /the same from the second interval \(first checks and start-up behind\)\s+0\.50 \/ 0\.25 \/ 0\.04 = 0\.79/,
    );
    for (const without of [before, single]) {
      expect(md(without)).not.toContain('the same from the second interval');
      expect(consoleReport(without)).not.toContain('the same from the second interval');
    }
    expect(cpuAfterFirstInterval(steady.scheduling.cost)).toBe('0.50 / 0.25 / 0.04 = 0.79');
    expect(cpuAfterFirstInterval(single.scheduling.cost)).toBeNull();
  });

  it("states the machine's speed at the start when the run measured it", () => {
    const before = { ...makeResults(), goals: [] };
    const timed = { ...before, machine: { ...before.machine, referenceWork: { cpuMs: 187, runs: [190, 187, 250] } } };
    expect(md(before)).not.toContain('Machine speed');
    expect(md(timed)).toContain('Machine speed at the start: a fixed piece of JavaScript took 187 ms of CPU');
  });

  it('reports the month query figures in the table and the document', () => {
    const r = { ...makeResults(), goals: [] };
    expect(consoleReport(r)).toMatch(
      /response-times\?period=month, 43,200 results: p50 \/ p95 \/ p99\s+6\.1 \/ 8\.2 \/ 12\.5 ms/,
    );
    expect(resultsMarkdown(r, '/r/docs/c.svg', '/r/docs/b.md', '/r/bench/results/x.json')).toContain(
      'p50 6.1 ms, p95 8.2 ms, p99 12.5 ms, max 30 ms',
    );
  });
});

describe('side results files', () => {
  const startedAt = new Date('2026-11-26T05:30:00.000Z');
  it('are named <start>[-quick]-<kind>.json next to the full runs', () => {
    expect(sideResultsPath('/r', 'packed', { startedAt })).toBe(
      `/r/${resultsFileName(startedAt, false).replace(/\.json$/, '-packed.json')}`,
    );
    expect(sideResultsPath('/r', 'cost', { startedAt, quick: true })).toBe(
      `/r/${resultsFileName(startedAt, true).replace(/\.json$/, '-cost.json')}`,
    );
  });
  it('start with the run, commit and load, then the figures', () => {
    const run = { startedAt, source: { commit: 'abc', dirty: false } };
    expect(sideResults(run, [0.5, 0.4, 0.3], { rows: 10 })).toEqual({
      date: '2026-11-26T05:30:00.000Z',
      mode: 'full',
      commit: 'abc',
      dirty: false,
      cpus: expect.any(Number),
      loadAverage: [0.5, 0.4, 0.3],
      rows: 10,
    });
  });
});
