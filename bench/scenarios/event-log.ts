/**
 * What the event log costs (issue 18: "the event log write adds no more than 10% to POST /monitors and to a check's
 * store time"), measured as A/B within one run. Each round interleaves both sides sample by sample (on, off, off,
 * on, ...) so that drift on a shared machine falls on both alike, and gives its own ratio (the medians of its on
 * samples over its off samples); the overhead reported is the median of the rounds' ratios, so one round disturbed by
 * other work on the machine cannot decide it (each round's ratio is kept in the results, to show the spread):
 *
 * - POST /monitors: its service, createMonitor, in this process (see below). "off": a BEFORE INSERT trigger on
 *   `events` drops the row, so the row and its indexes are not written. What "off" cannot remove is recordEvents'
 *   own statement round trip in the transaction: it is measured apart (one more statement in an interactive
 *   transaction) and added to the difference.
 * - A check's store time: storeCheckResults (the worker's group commit, the code the worker runs) of batches of
 *   results for `monitors` monitors, in-process. "flapping": every result changes its monitor's status, so every
 *   stored check writes a monitor.status_changed event (the worst case); "steady": no status changes (the usual
 *   case: only the trigger's WHEN is evaluated). "off": the trigger disabled, so nothing of the event log runs.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  CheckScheduler,
  createApiRedis,
  createLogger,
  createMonitorSchema,
  createSsrfGuard,
  type PrismaClient,
} from '@statusvane/shared';
import { authenticate } from '../../apps/api/src/services/auth/authenticate.js';
import { createMonitor } from '../../apps/api/src/services/monitors/create-monitor.js';
import { createMonitorChecks } from '../../apps/api/src/services/monitors/monitor-validation.js';
import { judgeInput } from '../../apps/api/src/services/validation.js';
import { storeCheckResults, type StoreInput } from '../../apps/worker/src/checks/store-result.js';
import { createMonitorsBulk, seedWorkspace } from '../lib/seed.js';
import { inProcessConfig } from '../lib/stack.js';

export interface EventLogOverhead {
  postMonitors: {
    /** Medians of all the samples of each side (the overhead is not computed from these: see roundOverheads). */
    onMedianMs: number;
    offMedianMs: number;
    /** The extra statement of recordEvents in a transaction, measured apart. */
    statementMs: number;
    /** The median of roundOverheads, as a fraction. */
    overhead: number;
    /** Each round's (on - off + statement) / off, from the medians of that round's samples. */
    roundOverheads: number[];
    creates: number;
  };
  store: {
    monitors: number;
    batches: number;
    flappingOnMsPerCheck: number;
    flappingOffMsPerCheck: number;
    /** The median of flappingRoundOverheads. */
    flappingOverhead: number;
    /** Each round's on / off - 1, from the medians of that round's batches. */
    flappingRoundOverheads: number[];
    steadyOnMsPerCheck: number;
    steadyOffMsPerCheck: number;
    steadyOverhead: number;
    steadyRoundOverheads: number[];
  };
}

export interface EventLogInput {
  prisma: PrismaClient;
  databaseUrl: string;
  redisUrl: string;
  encryptionKey: string;
  targetUrl: string;
  /** Rounds: each gives one ratio of on to off; the overhead is their median (an odd number avoids a tie). */
  rounds: number;
  /** createMonitor calls per side and round. */
  createsPerRound: number;
  monitors: number;
  /** Stored batches per side and round (each flapping and steady). */
  batchesPerRound: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** on, off, off, on, on, off, ...: each side is as often first as second. */
const schedule = (samples: number) =>
  Array.from({ length: samples * 2 }, (_, i) => ((i + 1) >> 1) % 2 === 0) as boolean[];
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const spread = (xs: number[]) => `rounds ${pct(Math.min(...xs))} to ${pct(Math.max(...xs))}`;

/** Samples of both sides, kept by round. */
class Rounds {
  readonly on: number[][] = [];
  readonly off: number[][] = [];
  next() {
    this.on.push([]);
    this.off.push([]);
  }
  add(on: boolean, ms: number) {
    (on ? this.on : this.off).at(-1)!.push(ms);
  }
  /** Each round's overhead from the medians of its samples. */
  overheads(of: (on: number, off: number) => number): number[] {
    return this.on.map((xs, i) => of(median(xs), median(this.off[i]!)));
  }
  pooled(on: boolean): number {
    return median((on ? this.on : this.off).flat());
  }
}

async function setEventRows(prisma: PrismaClient, on: boolean): Promise<void> {
  await prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS bench_events_off ON events');
  if (!on)
    await prisma.$executeRawUnsafe(
      'CREATE TRIGGER bench_events_off BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION bench_skip_row()',
    );
}

async function setStatusTrigger(prisma: PrismaClient, on: boolean): Promise<void> {
  await prisma.$executeRawUnsafe(
    `ALTER TABLE monitors ${on ? 'ENABLE' : 'DISABLE'} TRIGGER monitors_record_status_changed`,
  );
}

export async function runEventLogOverhead(input: EventLogInput, log: (msg: string) => void): Promise<EventLogOverhead> {
  const { prisma } = input;
  await prisma.$executeRawUnsafe(
    'CREATE OR REPLACE FUNCTION bench_skip_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$',
  );

  // --- POST /monitors ---------------------------------------------------------------------------------------
  // The service POST /monitors runs (createMonitor: validation, the transaction with its component, the schedulers
  // in Redis, the first check queued), called in this process one at a time, on and off interleaved request by
  // request: on a machine shared with other work, HTTP latencies under load vary far more than the difference
  // looked for. Its time is the request's minus HTTP, authentication and the rate limit, so the overhead relative
  // to it is an upper bound of the overhead relative to the whole request.
  const ws = await seedWorkspace(prisma, `bench-events-${randomUUID().slice(0, 6)}`);
  const config = inProcessConfig(input);
  const redis = createApiRedis(config.redis);
  redis.on('error', () => undefined);
  const scheduler = new CheckScheduler(config.checkRegions, redis, config.queuePrefix);
  const logger = createLogger({ level: 'warn', json: true, service: 'bench' });
  const guard = createSsrfGuard({ allowedCidrs: config.allowedTargetCidrs });
  const deps = { prisma, config, scheduler, guard, logger };
  const auth = await authenticate(deps, { authorization: `Bearer ${ws.token}`, workspaceHeader: undefined });
  const create = async () => {
    const t = performance.now();
    const ctx = { ...auth, now: new Date() };
    const body = { name: 'Bench', target: input.targetUrl, intervalSeconds: 86400 };
    await createMonitor(deps, {
      ctx,
      input: await judgeInput(createMonitorSchema, createMonitorChecks, deps, { ctx }, body),
    });
    return performance.now() - t;
  };
  for (let i = 0; i < 20; i++) await create(); // warm-up
  const api = new Rounds();
  for (let round = 0; round < input.rounds; round++) {
    api.next();
    for (const on of schedule(input.createsPerRound)) {
      await setEventRows(prisma, on);
      api.add(on, await create());
    }
  }
  await setEventRows(prisma, true);
  await scheduler.close();
  redis.disconnect();
  // recordEvents' own round trip: a transaction with one more statement, minus one without.
  const tx = async (statements: number) => {
    const t = performance.now();
    await prisma.$transaction(async (t2) => {
      for (let i = 0; i < statements; i++) await t2.$executeRaw`SELECT 1`;
    });
    return performance.now() - t;
  };
  const one: number[] = [];
  const two: number[] = [];
  for (let i = 0; i < 300; i++) {
    one.push(await tx(1));
    two.push(await tx(2));
  }
  const statementMs = Math.max(0, median(two) - median(one));
  const apiRounds = api.overheads((on, off) => (on - off + statementMs) / off);
  const postMonitors = {
    onMedianMs: api.pooled(true),
    offMedianMs: api.pooled(false),
    statementMs,
    overhead: median(apiRounds),
    roundOverheads: apiRounds,
    creates: input.rounds * input.createsPerRound * 2,
  };
  log(
    `event log, POST /monitors (createMonitor): median ${postMonitors.onMedianMs.toFixed(2)} ms with the event row, ` +
      `${postMonitors.offMedianMs.toFixed(2)} ms without, +${statementMs.toFixed(3)} ms for the statement: ` +
      `${pct(postMonitors.overhead)} (median of ${input.rounds} rounds; ${spread(apiRounds)})`,
  );

  // --- a check's store time -----------------------------------------------------------------------------------
  const storeWs = await seedWorkspace(prisma, `bench-store-${randomUUID().slice(0, 6)}`);
  const rows = await createMonitorsBulk(prisma, {
    workspaceId: storeWs.id,
    count: input.monitors,
    type: 'http',
    target: input.targetUrl,
    intervalSeconds: 60,
    enabled: false,
    // Status changes only: no incident opens, so the flapping rounds measure monitor.status_changed alone.
    openThreshold: 1_000_000,
    name: 'Store',
  });
  const monitors = await prisma.monitor.findMany({
    where: { id: { in: rows.map((r) => r.id) } },
    select: {
      id: true,
      workspaceId: true,
      name: true,
      metadata: true,
      openThreshold: true,
      resolveThreshold: true,
      intervalSeconds: true,
      type: true,
      confirmAfterSeconds: true,
      quorum: true,
    },
  });
  let slot = Date.parse('2026-01-01T00:00:00Z');
  const batch = (outcome: 'up' | 'down'): StoreInput[] => {
    slot += 60_000;
    return monitors.map((m) => ({
      monitor: { ...m, regions: ['local'] },
      region: 'local',
      slot: new Date(slot),
      checkedAt: new Date(slot),
      result: {
        outcome,
        reason: outcome === 'up' ? null : 'http_500',
        responseMs: 20,
        statusCode: outcome === 'up' ? 200 : 500,
        phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 10 },
      },
    }));
  };
  await storeCheckResults(prisma, batch('up')); // every monitor 'up' first
  const timed = async (inputs: StoreInput[]) => {
    const t = performance.now();
    await storeCheckResults(prisma, inputs);
    return (performance.now() - t) / inputs.length;
  };
  // Batch by batch, the trigger on and off interleaved: a steady batch (all still up), a flapping one (all down:
  // every check changes its monitor's status), and an unmeasured one back up.
  const flapping = new Rounds();
  const steady = new Rounds();
  const before = await prisma.event.count({ where: { workspaceId: storeWs.id } });
  for (let round = 0; round < input.rounds; round++) {
    flapping.next();
    steady.next();
    for (const on of schedule(input.batchesPerRound)) {
      await setStatusTrigger(prisma, on);
      steady.add(on, await timed(batch('up')));
      flapping.add(on, await timed(batch('down')));
      await storeCheckResults(prisma, batch('up'));
    }
  }
  await setStatusTrigger(prisma, true);
  const written = (await prisma.event.count({ where: { workspaceId: storeWs.id } })) - before;
  // Not vacuous: the flapping rounds with the trigger on wrote one event per stored check.
  if (written < input.rounds * input.batchesPerRound * monitors.length * 2)
    throw new Error(`the flapping rounds wrote only ${written} events`);
  const ratio = (on: number, off: number) => on / off - 1;
  const flappingRounds = flapping.overheads(ratio);
  const steadyRounds = steady.overheads(ratio);
  const result = {
    monitors: monitors.length,
    batches: input.rounds * input.batchesPerRound * 2 * 3,
    flappingOnMsPerCheck: flapping.pooled(true),
    flappingOffMsPerCheck: flapping.pooled(false),
    flappingOverhead: median(flappingRounds),
    flappingRoundOverheads: flappingRounds,
    steadyOnMsPerCheck: steady.pooled(true),
    steadyOffMsPerCheck: steady.pooled(false),
    steadyOverhead: median(steadyRounds),
    steadyRoundOverheads: steadyRounds,
  };
  log(
    `event log, store: ${result.flappingOnMsPerCheck.toFixed(3)} vs ${result.flappingOffMsPerCheck.toFixed(3)} ms per ` +
      `check when every check changes status (${pct(result.flappingOverhead)}; ${spread(flappingRounds)}), ` +
      `${result.steadyOnMsPerCheck.toFixed(3)} vs ${result.steadyOffMsPerCheck.toFixed(3)} ms steady ` +
      `(${pct(result.steadyOverhead)}; ${spread(steadyRounds)})`,
  );
  await prisma.workspace.deleteMany({ where: { id: { in: [ws.id, storeWs.id] } } });
  return { postMonitors, store: result };
}
