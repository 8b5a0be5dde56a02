import type { PrismaClient } from '@statusvane/shared';

export interface StoredState {
  /** Rows beyond one per (monitor, region, slot): must be 0. */
  duplicateResults: number;
  /** Monitors whose hourly or daily rollups do not count exactly their stored results. */
  rollupMismatches: Array<{ monitorId: string; results: number; hourly: number; daily: number }>;
  /** Monitors with more than one open or acknowledged incident. */
  monitorsWithSeveralOpenIncidents: string[];
}

/**
 * The exactly-once invariants of stored checks, whatever happened on the way: one result per slot, rollups that
 * count each stored result once, at most one open incident per monitor.
 */
export async function storedState(prisma: PrismaClient): Promise<StoredState> {
  const [dup] = await prisma.$queryRaw<Array<{ n: number }>>`
    SELECT (count(*) - count(DISTINCT ("monitorId", region, slot)))::int AS n FROM check_results`;
  const mismatches = await prisma.$queryRaw<Array<{ monitorId: string; results: number; hourly: number; daily: number }>>`
    SELECT m.id AS "monitorId",
      (SELECT count(*) FROM check_results r WHERE r."monitorId" = m.id)::int AS results,
      (SELECT coalesce(sum(total), 0) FROM check_rollups_hourly h WHERE h."monitorId" = m.id)::int AS hourly,
      (SELECT coalesce(sum(total), 0) FROM check_rollups_daily d WHERE d."monitorId" = m.id)::int AS daily
    FROM monitors m`;
  const several = await prisma.$queryRaw<Array<{ monitorId: string }>>`
    SELECT "monitorId" FROM incidents WHERE status <> 'resolved' AND "monitorId" IS NOT NULL GROUP BY "monitorId" HAVING count(*) > 1`;
  return {
    duplicateResults: dup?.n ?? 0,
    rollupMismatches: mismatches.filter((m) => m.results !== m.hourly || m.results !== m.daily),
    monitorsWithSeveralOpenIncidents: several.map((r) => r.monitorId),
  };
}
