import type { PrismaClient } from './prisma.js';

type Executor = Pick<PrismaClient, '$executeRaw'>;

export interface RollupInput {
  monitorId: string;
  region: string;
  checkedAt: Date;
  outcome: 'up' | 'degraded' | 'down';
  responseMs: number | null;
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  waitingMs: number | null;
}

/**
 * Adds one result to its hourly and daily rollups (UTC). Call it in the transaction that stores the result, so
 * the rollups count every stored result exactly once.
 */
export async function addToRollups(tx: Executor, r: RollupInput): Promise<void> {
  const down = r.outcome === 'down' ? 1 : 0;
  const degraded = r.outcome === 'degraded' ? 1 : 0;
  const n = (v: number | null) => (v === null ? 0 : 1);
  const v = (x: number | null) => x ?? 0;
  await tx.$executeRaw`
    INSERT INTO check_rollups_hourly AS h ("monitorId", region, hour, total, "downCount",
      "responseSum", "responseCount", "dnsSum", "dnsCount", "connectSum", "connectCount", "tlsSum", "tlsCount", "waitingSum", "waitingCount")
    VALUES (${r.monitorId}::uuid, ${r.region}, date_trunc('hour', ${r.checkedAt}::timestamptz AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 1, ${down},
      ${v(r.responseMs)}, ${n(r.responseMs)}, ${v(r.dnsMs)}, ${n(r.dnsMs)}, ${v(r.connectMs)}, ${n(r.connectMs)},
      ${v(r.tlsMs)}, ${n(r.tlsMs)}, ${v(r.waitingMs)}, ${n(r.waitingMs)})
    ON CONFLICT ("monitorId", region, hour) DO UPDATE SET
      total = h.total + 1, "downCount" = h."downCount" + EXCLUDED."downCount",
      "responseSum" = h."responseSum" + EXCLUDED."responseSum", "responseCount" = h."responseCount" + EXCLUDED."responseCount",
      "dnsSum" = h."dnsSum" + EXCLUDED."dnsSum", "dnsCount" = h."dnsCount" + EXCLUDED."dnsCount",
      "connectSum" = h."connectSum" + EXCLUDED."connectSum", "connectCount" = h."connectCount" + EXCLUDED."connectCount",
      "tlsSum" = h."tlsSum" + EXCLUDED."tlsSum", "tlsCount" = h."tlsCount" + EXCLUDED."tlsCount",
      "waitingSum" = h."waitingSum" + EXCLUDED."waitingSum", "waitingCount" = h."waitingCount" + EXCLUDED."waitingCount"`;
  await tx.$executeRaw`
    INSERT INTO check_rollups_daily AS d ("monitorId", region, day, total, "downCount", "degradedCount")
    VALUES (${r.monitorId}::uuid, ${r.region}, (${r.checkedAt}::timestamptz AT TIME ZONE 'UTC')::date, 1, ${down}, ${degraded})
    ON CONFLICT ("monitorId", region, day) DO UPDATE SET
      total = d.total + 1, "downCount" = d."downCount" + EXCLUDED."downCount", "degradedCount" = d."degradedCount" + EXCLUDED."degradedCount"`;
}

/**
 * Recomputes one monitor's rollups from its raw results (all of them still retained). For imports, repairs and
 * tests that write raw results directly.
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
    FROM check_results WHERE "monitorId" = ${monitorId}::uuid GROUP BY 1, 2, 3`;
  await prisma.$executeRaw`
    INSERT INTO check_rollups_daily ("monitorId", region, day, total, "downCount", "degradedCount")
    SELECT "monitorId", region, ("checkedAt" AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE outcome = 'down'), count(*) FILTER (WHERE outcome = 'degraded')
    FROM check_results WHERE "monitorId" = ${monitorId}::uuid GROUP BY 1, 2, 3`;
}
