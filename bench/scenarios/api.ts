/**
 * API scenarios with autocannon (50 connections; a warm-up run, then the measured run): bare Express 5 (the baseline,
 * measured before and after the others and averaged), GET /monitors/{id}, GET /monitors?perPage=100, the same page
 * with filters (issue 14: no slower than without), POST /monitors with a fresh Idempotency-Key per request, and the
 * heartbeat ping receiver.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { sampleScoped, scopedCpuPerUnit, type ScopedSources } from '../lib/cost.js';

export interface ApiScenarioResult {
  name: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** rps / baseline rps: moves with whatever else the machine runs. */
  ratio: number;
  /**
   * CPU µs per request (issue 33): the serving process (the API, or the baseline's own), the PostgreSQL backends of
   * the bench's database, and the Redis server; absent in results written before it.
   */
  cpuUsPerRequest?: { process: number; postgres: number; redis: number; total: number };
  /**
   * Bare Express's CPU per request over the scenario's (all three sides): how close to bare Express a request is in
   * work done, which contention hardly moves (absent in results written before it).
   */
  efficiency?: number;
  requests: number;
  /** Non-2xx answers and socket errors: anything above 1% fails the bench. */
  bad: number;
}

export interface ApiScenarioInput {
  apiUrl: string;
  baselineUrl: string;
  token: string;
  monitorId: string;
  pingSecrets: string[];
  /**
   * The filtered list's query (after `perPage=100&`), how many monitors it matches (a full page at least), and the
   * token of the workspace they are in (its own: the other scenarios' workspace keeps the size it had).
   */
  filteredList: { query: string; matching: number; token: string };
  targetUrl: string;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  /** Whose CPU a request costs: the API's and the baseline's processes, the database's backends, Redis. */
  cpu: { apiPid: number; baselinePid: number; backends: ScopedSources['backends']; redisPid: number | null };
}

type Options = Parameters<typeof autocannon>[0];

/**
 * A warm-up run, then the measured one: req/s, p50 and p99 latency, requests, and the bad answers among them; with
 * `cpu`, the CPU a request cost over the measured run.
 */
export async function measure(opts: Options, warmupSeconds: number, durationSeconds: number, cpu?: ScopedSources) {
  if (warmupSeconds > 0) await autocannon({ ...opts, duration: warmupSeconds });
  const before = cpu ? await sampleScoped(cpu) : null;
  const r = await autocannon({ ...opts, duration: durationSeconds });
  const after = cpu ? await sampleScoped(cpu) : null;
  return {
    rps: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    bad: r.non2xx + r.errors + r.timeouts,
    ...(before && after ? { cpuUsPerRequest: scopedCpuPerUnit(before, after, r.requests.total) } : {}),
  };
}

/** A 1 KB run log, as a cron job's output would be. */
const PING_LOG = 'backup: 1,204 files, 3.1 GB copied in 412 s, 0 errors\n'.repeat(20).slice(0, 1024);

export const LIST_SCENARIO = 'GET /api/v1/monitors?perPage=100';
export const FILTERED_LIST_SCENARIO = 'GET /api/v1/monitors?perPage=100 with 4 filters';

/** The filtered list answers a full page of the monitors the seed says match, or the bench would measure nothing. */
async function checkFilteredList(url: string, auth: Record<string, string>, matching: number): Promise<void> {
  const res = await fetch(url, { headers: auth });
  const body = (await res.json()) as { data?: unknown[]; pagination?: { total?: number } };
  if (res.status !== 200 || body.data?.length !== Math.min(100, matching) || body.pagination?.total !== matching)
    throw new Error(
      `the filtered list answered ${res.status} with ${body.data?.length} of ${body.pagination?.total}, not ${matching}`,
    );
}

export async function runApiScenarios(
  input: ApiScenarioInput,
  log: (msg: string) => void,
): Promise<{ baselineRps: number; scenarios: ApiScenarioResult[] }> {
  const common = { connections: input.connections, pipelining: 1, timeout: 10 } as const;
  const auth = { authorization: `Bearer ${input.token}` };
  const body = JSON.stringify({ name: 'Bench', target: input.targetUrl, intervalSeconds: 86400 });
  let ping = 0;
  if (input.filteredList.matching < 100) throw new Error('the filtered list needs a full page of matching monitors');
  const filteredUrl = `${input.apiUrl}/api/v1/monitors?perPage=100&${input.filteredList.query}`;
  const filteredAuth = { authorization: `Bearer ${input.filteredList.token}` };
  await checkFilteredList(filteredUrl, filteredAuth, input.filteredList.matching);
  const scenarios: Array<[string, Options]> = [
    [
      'GET /api/v1/monitors/{id}',
      { ...common, url: `${input.apiUrl}/api/v1/monitors/${input.monitorId}`, headers: auth },
    ],
    [LIST_SCENARIO, { ...common, url: `${input.apiUrl}/api/v1/monitors?perPage=100`, headers: auth }],
    [FILTERED_LIST_SCENARIO, { ...common, url: filteredUrl, headers: filteredAuth }],
    [
      'POST /api/v1/monitors',
      {
        ...common,
        url: input.apiUrl,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/monitors',
            headers: { ...auth, 'content-type': 'application/json' },
            body,
            // A fresh key per request: every POST creates a monitor (a replay would measure the cache).
            setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }),
          },
        ],
      },
    ],
    [
      'POST /ping/{secret} (1 KB log)',
      {
        ...common,
        url: input.apiUrl,
        // Many heartbeat monitors, as in life: one hot row would measure PostgreSQL's row lock instead. Each ping
        // carries a 1 KB run log, stored with the ping (issue 16).
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'text/plain' },
            body: PING_LOG,
            setupRequest: (req) => ({ ...req, path: `/ping/${input.pingSecrets[ping++ % input.pingSecrets.length]}` }),
          },
        ],
      },
    ],
  ];

  const baselineOpts: Options = { ...common, url: input.baselineUrl };
  const baselineCpu: ScopedSources = { pid: input.cpu.baselinePid, backends: null, redisPid: null };
  const apiCpu: ScopedSources = { pid: input.cpu.apiPid, backends: input.cpu.backends, redisPid: input.cpu.redisPid };
  const before = await measure(baselineOpts, input.warmupSeconds, input.durationSeconds, baselineCpu);
  log(`baseline (bare Express 5): ${Math.round(before.rps)} req/s`);
  const measured: Array<Omit<ApiScenarioResult, 'ratio'>> = [];
  for (const [name, opts] of scenarios) {
    // Right after the unfiltered list, the filtered one runs the same code warm: a second of warm-up is plenty (and
    // keeps a quick run within its time).
    const warmup = name === FILTERED_LIST_SCENARIO ? Math.min(1, input.warmupSeconds) : input.warmupSeconds;
    const r = await measure(opts, warmup, input.durationSeconds, apiCpu);
    const c = r.cpuUsPerRequest!;
    log(
      `${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${r.bad ? `, ${r.bad} errors` : ''}; ` +
        `CPU µs a request: API ${c.process} + PostgreSQL ${c.postgres} + Redis ${c.redis} = ${c.total}`,
    );
    measured.push({ name, ...r });
  }
  const after = await measure(baselineOpts, 0, input.durationSeconds, baselineCpu);
  log(`baseline again: ${Math.round(after.rps)} req/s`);
  // Bare Express's CPU per request, both runs together (weighted by their requests).
  const baselineUs =
    (before.cpuUsPerRequest!.total * before.requests + after.cpuUsPerRequest!.total * after.requests) /
    Math.max(1, before.requests + after.requests);
  // The machine is shared with PostgreSQL and Redis: the baseline's mean of both runs is what the others compare to.
  const baselineRps = (before.rps + after.rps) / 2;
  const baseline: ApiScenarioResult = {
    name: 'bare Express 5 (baseline)',
    rps: baselineRps,
    p50Ms: Math.max(before.p50Ms, after.p50Ms),
    p99Ms: Math.max(before.p99Ms, after.p99Ms),
    requests: before.requests + after.requests,
    bad: before.bad + after.bad,
    ratio: 1,
    cpuUsPerRequest: {
      process: Math.round(baselineUs * 10) / 10,
      postgres: 0,
      redis: 0,
      total: Math.round(baselineUs * 10) / 10,
    },
    efficiency: 1,
  };
  return {
    baselineRps,
    scenarios: [
      baseline,
      ...measured.map((m) => ({ ...m, ratio: m.rps / baselineRps, efficiency: baselineUs / m.cpuUsPerRequest!.total })),
    ],
  };
}
