import { Prisma } from '../generated/prisma/client.js';
import type { PrismaClient } from './prisma.js';

type Executor = Pick<PrismaClient, '$executeRaw'>;

/**
 * The response-time columns both rollups keep (hourly and daily): per timing a sum and a count of the results that had
 * it, and the latency histogram (docs/adr/0019-latency-histograms.md). One list for every statement that writes them.
 */
export const ROLLUP_TIMING_COLUMNS = Prisma.sql`"responseSum", "responseCount", "dnsSum", "dnsCount", "connectSum", "connectCount",
  "tlsSum", "tlsCount", "waitingSum", "waitingCount", "latencyHist"`;

/** ROLLUP_TIMING_COLUMNS of a group of check_results rows, in that order. */
export const ROLLUP_TIMINGS = Prisma.sql`coalesce(sum("responseMs"), 0), count("responseMs"), coalesce(sum("dnsMs"), 0), count("dnsMs"),
  coalesce(sum("connectMs"), 0), count("connectMs"), coalesce(sum("tlsMs"), 0), count("tlsMs"), coalesce(sum("waitingMs"), 0), count("waitingMs"),
  latency_hist("responseMs")`;

/** An `ON CONFLICT ... DO UPDATE SET` list adding EXCLUDED's ROLLUP_TIMING_COLUMNS to the row `alias`. */
export function addRollupTimings(alias: 'h' | 'd'): Prisma.Sql {
  const sums = ['response', 'dns', 'connect', 'tls', 'waiting'].flatMap((t) => [`${t}Sum`, `${t}Count`]);
  return Prisma.raw(
    [
      ...sums.map((c) => `"${c}" = ${alias}."${c}" + EXCLUDED."${c}"`),
      `"latencyHist" = latency_hist_merge(${alias}."latencyHist", EXCLUDED."latencyHist")`,
    ].join(', '),
  );
}

/**
 * Recomputes one monitor's rollups from its raw results (all of them still retained, raw or packed: check_results_all), missed slots left out as the
 * worker leaves them out. For imports, repairs and tests that write raw results directly.
 */
export async function rebuildRollups(prisma: Executor, monitorId: string): Promise<void> {
  await prisma.$executeRaw`DELETE FROM check_rollups_hourly WHERE "monitorId" = ${monitorId}::uuid`;
  await prisma.$executeRaw`DELETE FROM check_rollups_daily WHERE "monitorId" = ${monitorId}::uuid`;
  await prisma.$executeRaw`
    INSERT INTO check_rollups_hourly ("monitorId", region, hour, total, "downCount", ${ROLLUP_TIMING_COLUMNS})
    SELECT "monitorId", region, date_trunc('hour', "checkedAt" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*), count(*) FILTER (WHERE outcome = 'down'),
      ${ROLLUP_TIMINGS}
    FROM check_results_all WHERE "monitorId" = ${monitorId}::uuid AND outcome <> 'missed' GROUP BY 1, 2, 3`;
  await prisma.$executeRaw`
    INSERT INTO check_rollups_daily ("monitorId", region, day, total, "downCount", "degradedCount", ${ROLLUP_TIMING_COLUMNS})
    SELECT "monitorId", region, ("checkedAt" AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE outcome = 'down'), count(*) FILTER (WHERE outcome = 'degraded'),
      ${ROLLUP_TIMINGS}
    FROM check_results_all WHERE "monitorId" = ${monitorId}::uuid AND outcome <> 'missed' GROUP BY 1, 2, 3`;
}
