/**
 * Response-time history (issue 4: "a month of one-minute results for one monitor: the month query answers in under
 * 50 ms"): `days` x 1,440 one-minute results for one monitor, then `GET /api/v1/monitors/{id}/response-times?period=month`
 * over HTTP against the running API, one request at a time after a warm-up: the latency a dashboard sees.
 *
 * Loading: `createMany` (5,000 rows a statement) and then `rebuildRollups`, not 43,200 results through the worker's
 * write path: the month query reads only the hourly rollups (one row per hour and region, 720 here), and the rebuild
 * writes the same rows, with the same sums and counts, that the write path keeps up to date result by result
 * (packages/shared/src/db/rollups.ts): the query does the same work, and loading takes seconds. Then ANALYZE, as
 * autovacuum would have done on a database that grew over a month.
 */
import { performance } from 'node:perf_hooks';
import { rebuildRollups, type PrismaClient } from '@statusvane/shared';
import { percentile } from '../lib/prom.js';

export interface ResponseTimesResult {
  /** One-minute results loaded for the monitor. */
  rows: number;
  days: number;
  /** How the rows were written. */
  load: 'createMany + rebuildRollups';
  loadMs: number;
  /** Measured requests (after the warm-up), one at a time. */
  requests: number;
  monthP50Ms: number;
  monthP95Ms: number;
  monthP99Ms: number;
  monthMaxMs: number;
}

/** p50 / p95 / p99 / max of a list of durations (ms), rounded to 0.1 ms. */
export function latencySummary(times: readonly number[]): { p50: number; p95: number; p99: number; max: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const r = (v: number) => Math.round(v * 10) / 10;
  return {
    p50: r(percentile(sorted, 50)),
    p95: r(percentile(sorted, 95)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted.at(-1) ?? NaN),
  };
}

/** The durations (ms) of `n` calls, one at a time: the latency of one client waiting for each answer. */
export async function timeSequential(n: number, call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  return times;
}

export async function runResponseTimes(
  input: { prisma: PrismaClient; apiUrl: string; token: string; monitorId: string; days: number; requests: number },
  log: (msg: string) => void,
): Promise<ResponseTimesResult> {
  const { prisma, monitorId } = input;
  const minutes = input.days * 1440;
  const now = Date.now();
  const at = (i: number) => new Date(now - i * 60_000);
  const t0 = performance.now();
  for (let i = 0; i < minutes; i += 5000) {
    await prisma.checkResult.createMany({
      data: Array.from({ length: Math.min(5000, minutes - i) }, (_, j) => ({
        monitorId,
        region: 'local',
        slot: at(i + j),
        checkedAt: at(i + j),
        outcome: (i + j) % 97 === 0 ? ('down' as const) : ('up' as const),
        responseMs: (i + j) % 97 === 0 ? null : 50 + ((i + j) % 200),
        dnsMs: 3,
        connectMs: 5,
        tlsMs: 12,
        waitingMs: 30,
      })),
    });
  }
  await rebuildRollups(prisma, monitorId);
  await prisma.$executeRawUnsafe('ANALYZE check_results');
  await prisma.$executeRawUnsafe('ANALYZE check_rollups_hourly');
  const loadMs = performance.now() - t0;
  log(`response times: ${minutes} one-minute results (${input.days} days) loaded in ${Math.round(loadMs)} ms`);

  const url = `${input.apiUrl}/api/v1/monitors/${monitorId}/response-times?period=month`;
  const headers = { authorization: `Bearer ${input.token}` };
  const get = async () => {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { data?: { buckets: Array<{ bucketStart: string; total: number }> } };
    if (res.status !== 200 || !body.data)
      throw new Error(`GET ${url.slice(input.apiUrl.length)}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body.data.buckets;
  };

  // The harness checks the answer once: every loaded result inside the month's buckets is counted.
  const buckets = await get();
  const from = Date.parse(buckets[0]!.bucketStart);
  const expected = Array.from({ length: minutes }, (_, i) => at(i).getTime()).filter((t) => t >= from).length;
  const counted = buckets.reduce((a, b) => a + b.total, 0);
  if (counted !== expected)
    throw new Error(`response-times month: ${counted} results counted, ${expected} loaded in the window`);

  for (let i = 0; i < Math.min(20, input.requests); i++) await get(); // warm-up: connection, JIT, query plan
  const s = latencySummary(await timeSequential(input.requests, get));
  log(
    `GET .../response-times?period=month over ${minutes} results (${input.requests} requests): p50 ${s.p50} ms, p95 ${s.p95} ms, p99 ${s.p99} ms, max ${s.max} ms`,
  );
  return {
    rows: minutes,
    days: input.days,
    load: 'createMany + rebuildRollups',
    loadMs: Math.round(loadMs),
    requests: input.requests,
    monthP50Ms: s.p50,
    monthP95Ms: s.p95,
    monthP99Ms: s.p99,
    monthMaxMs: s.max,
  };
}
