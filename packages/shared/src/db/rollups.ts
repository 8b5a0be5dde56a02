import type { PrismaClient } from './prisma.js';

type Executor = Pick<PrismaClient, '$executeRaw'>;

/**
 * Recomputes one monitor's rollups from its raw results (all of them still retained, raw or packed: check_results_all), missed slots left out as the
 * worker leaves them out. For imports, repairs and tests that write raw results directly.
 */
export async function rebuildRollups(prisma: Executor, monitorId: string): Promise<void> {
  await prisma.$executeRaw`DELETE FROM check_rollups_hourly WHERE "monitorId" = ${monitorId}::uuid`;
  await prisma.$executeRaw`DELETE FROM check_rollups_daily WHERE "monitorId" = ${monitorId}::uuid`;
  await prisma.$executeRaw`
    INSERT INTO check_rollups_hourly ("monitorId", region, hour, total, "downCount",
      "responseSum", "responseCount", "dnsSum", "dnsCount", "connectSum", "connectCount", "tlsSum", "tlsCount", "waitingSum", "waitingCount")
    SELECT "monitorId", region, date_trunc('hour', "checkedAt" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*), count(*) FILTER (WHERE outcome = 'down'),
      coalesce(sum("responseMs"), 0), count("responseMs"), coalesce(sum("dnsMs"), 0), count("dnsMs"),
      coalesce(sum("connectMs"), 0), count("connectMs"), coalesce(sum("tlsMs"), 0), count("tlsMs"), coalesce(sum("waitingMs"), 0), count("waitingMs")
    FROM check_results_all WHERE "monitorId" = ${monitorId}::uuid AND outcome <> 'missed' GROUP BY 1, 2, 3`;
  await prisma.$executeRaw`
    INSERT INTO check_rollups_daily ("monitorId", region, day, total, "downCount", "degradedCount")
    SELECT "monitorId", region, ("checkedAt" AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE outcome = 'down'), count(*) FILTER (WHERE outcome = 'degraded')
    FROM check_results_all WHERE "monitorId" = ${monitorId}::uuid AND outcome <> 'missed' GROUP BY 1, 2, 3`;
}
