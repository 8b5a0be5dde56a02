/**
 * What a 3-step api monitor costs against an http check (issue 30: "a 3-step api monitor costs no more than 3.5 times
 * an http check's CPU"), measured as A/B within one run as the event log's overhead is (scenarios/event-log.ts): each
 * round runs a batch of http checks and a batch of api checks (in alternating order, so that drift on a shared
 * machine falls on both alike) and gives its own ratio of CPU per check; the ratio reported is the median of the
 * rounds' ratios, each round's kept beside it.
 *
 * A check is the worker runtime's own path (createCheckRunnerDeps, runCheck: load, probe, store with rollups) run in
 * this process, against the bench's local target in its own process. CPU is this process's (the worker's part) and
 * PostgreSQL's (every backend), from /proc (bench/lib/cost.ts). The http monitor reads its body (a keyword); the api
 * monitor's three steps template a url and a header from an extract, assert on a body, and the last one is `always`.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { createLogger, createSsrfGuard, type CreateMonitorInput, type PrismaClient } from '@statusvane/shared';
import { monitorCreateData } from '../../apps/api/src/services/monitors/monitor-data.js';
import { runCheck } from '../../apps/worker/src/checks/run-check.js';
import { createCheckRunnerDeps } from '../../apps/worker/src/runtime.js';
import { costSources, sampleCpu, type CostSources } from '../lib/cost.js';
import { inLanes } from '../lib/lanes.js';
import { seedWorkspace } from '../lib/seed.js';
import { inProcessConfig } from '../lib/stack.js';

export interface ApiStepsInput {
  prisma: PrismaClient;
  databaseUrl: string;
  redisUrl: string;
  encryptionKey: string;
  /** The local target's root (`http://127.0.0.1:<port>`): 200 "ok" to every request. */
  targetBase: string;
  rounds: number;
  /** Checks of each type per round. */
  checksPerRound: number;
  /** Monitors of each type, checked in turn (`concurrency` at once). */
  monitors: number;
  concurrency: number;
}

export interface ApiStepsCost {
  /** The goal: at most this many times an http check's CPU, for `ratio` and `workerRatio` both. */
  goalRatio: number;
  met: boolean;
  /**
   * The median round's (api CPU per check) / (http CPU per check), worker and PostgreSQL together. PostgreSQL's CPU is
   * the whole server's: on a server shared with other work it carries that work's noise (workerRatio does not).
   */
  ratio: number;
  /** The worker's part alone (this process). */
  workerRatio: number;
  roundRatios: number[];
  roundWorkerRatios: number[];
  /** CPU ms per check over all rounds, by side. */
  http: { workerMs: number; postgresMs: number };
  api: { workerMs: number; postgresMs: number };
  /** Outcomes other than `up` (a broken run measures nothing). */
  notUp: number;
  checksPerRound: number;
  rounds: number;
}

const API_STEPS_GOAL_RATIO = 3.5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The api monitor of the measure: three steps, an extract carried into the next two, the last one cleanup. */
function apiMonitor(base: string): CreateMonitorInput {
  return {
    type: 'api',
    name: 'Bench api',
    intervalSeconds: 86_400,
    steps: [
      {
        name: 'login',
        method: 'POST',
        url: `${base}/login`,
        body: '{"user":"bench"}',
        assertions: [{ source: 'body', operator: 'contains', value: 'ok' }],
        extract: [{ as: 'session', from: 'header', path: 'content-length' }],
      },
      {
        name: 'read',
        method: 'GET',
        url: `${base}/items/{{session}}`,
        headers: { Authorization: 'Bearer {{session}}' },
        assertions: [{ source: 'status', operator: 'eq', value: 200 }],
      },
      { name: 'clean up', method: 'DELETE', url: `${base}/items/{{session}}`, always: true },
    ],
  } as CreateMonitorInput;
}

export async function runApiStepsCost(input: ApiStepsInput, log: (msg: string) => void): Promise<ApiStepsCost> {
  const config = inProcessConfig(input);
  const { prisma } = input;
  const ws = await seedWorkspace(prisma, 'bench-api-steps');
  const create = async (m: CreateMonitorInput, i: number) => {
    const component = await prisma.component.create({ data: { workspaceId: ws.id, name: `${m.name} ${i}` } });
    const data = monitorCreateData(
      config,
      { workspaceId: ws.id, componentId: component.id },
      { ...m, name: `${m.name} ${i}` },
    );
    return (await prisma.monitor.create({ data, select: { id: true } })).id;
  };
  const http = {
    type: 'http',
    name: 'Bench http',
    target: `${input.targetBase}/health`,
    keyword: 'ok',
    intervalSeconds: 86_400,
  } as CreateMonitorInput;
  const sides = {
    http: await Promise.all(Array.from({ length: input.monitors }, (_, i) => create(http, i))),
    api: await Promise.all(Array.from({ length: input.monitors }, (_, i) => create(apiMonitor(input.targetBase), i))),
  };
  const deps = createCheckRunnerDeps({
    config: { ...config, region: config.checkRegions[0]! },
    prisma,
    guard: createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs }),
    logger: createLogger({ level: 'error', json: true, service: 'bench', silent: true }),
  });
  const redis = new Redis(input.redisUrl);
  const sources: CostSources = await costSources(prisma, redis, [process.pid]);
  redis.disconnect();

  // Slots one minute apart per monitor: every check is a new result, as the schedule makes them.
  let slot = Date.UTC(2030, 0, 1);
  let notUp = 0;
  const batch = async (ids: string[]) => {
    const one = async (i: number) => {
      slot += 60_000;
      const outcome = await runCheck(deps, {
        monitorId: ids[i % ids.length]!,
        region: config.checkRegions[0]!,
        slot: new Date(slot),
      });
      if (!('result' in outcome) || outcome.result.outcome !== 'up') notUp++;
    };
    const before = sampleCpu(sources);
    await inLanes(input.checksPerRound, input.concurrency, one);
    const after = sampleCpu(sources);
    return {
      workerMs: (after.workerMs - before.workerMs) / input.checksPerRound,
      postgresMs: (after.postgresMs - before.postgresMs) / input.checksPerRound,
    };
  };

  // A warm-up of each side (connections, JIT, compiled patterns) that is not counted.
  await batch(sides.http);
  await batch(sides.api);
  const totals = { http: { workerMs: 0, postgresMs: 0 }, api: { workerMs: 0, postgresMs: 0 } };
  const roundRatios: number[] = [];
  const roundWorkerRatios: number[] = [];
  for (let r = 0; r < input.rounds; r++) {
    const t = performance.now();
    const order = r % 2 === 0 ? (['http', 'api'] as const) : (['api', 'http'] as const);
    const cost = { http: { workerMs: 0, postgresMs: 0 }, api: { workerMs: 0, postgresMs: 0 } };
    for (const side of order) cost[side] = await batch(sides[side]);
    for (const side of order) {
      totals[side].workerMs += cost[side].workerMs / input.rounds;
      totals[side].postgresMs += cost[side].postgresMs / input.rounds;
    }
    roundRatios.push((cost.api.workerMs + cost.api.postgresMs) / (cost.http.workerMs + cost.http.postgresMs));
    roundWorkerRatios.push(cost.api.workerMs / cost.http.workerMs);
    log(
      `round ${r + 1}/${input.rounds}: api/http ${roundRatios.at(-1)!.toFixed(2)} (worker ${roundWorkerRatios.at(-1)!.toFixed(2)}) in ${Math.round(performance.now() - t)} ms`,
    );
  }
  const round2 = (x: number) => Math.round(x * 1000) / 1000;
  const ratio = round2(median(roundRatios));
  const workerRatio = round2(median(roundWorkerRatios));
  return {
    goalRatio: API_STEPS_GOAL_RATIO,
    met: ratio <= API_STEPS_GOAL_RATIO && workerRatio <= API_STEPS_GOAL_RATIO,
    ratio,
    workerRatio,
    roundRatios: roundRatios.map(round2),
    roundWorkerRatios: roundWorkerRatios.map(round2),
    http: { workerMs: round2(totals.http.workerMs), postgresMs: round2(totals.http.postgresMs) },
    api: { workerMs: round2(totals.api.workerMs), postgresMs: round2(totals.api.postgresMs) },
    notUp,
    checksPerRound: input.checksPerRound,
    rounds: input.rounds,
  };
}
