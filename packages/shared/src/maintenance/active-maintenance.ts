import { createBatchLoader, perClient } from '../db/batch-loader.js';
import { forKeys, hotBatchStatement, hotQuery } from '../db/hot-query.js';
import { Prisma, type PrismaClient } from '../db/prisma.js';

/**
 * For each component, the end of the in-progress maintenance window that covers it (a window with no components
 * covers the whole workspace), or nothing. "In progress" is derived from the clock: startsAt <= now < endsAt and
 * not cancelled. When several windows cover a component, the latest end wins.
 */
export async function maintenanceUntilByComponent(
  prisma: PrismaClient,
  workspaceId: string,
  componentIds: readonly string[],
  now = new Date(),
): Promise<Map<string, Date>> {
  if (componentIds.length === 0) return new Map();
  return maintenanceCoverage(await maintenanceWindowsNear(prisma, workspaceId, now), componentIds, now);
}

/**
 * The workspace's windows (not cancelled) that overlap the minute of `now`, for maintenanceCoverage. It needs only
 * the workspace, so a caller can start it before it knows which components it will ask about (a monitor read sends
 * it alongside the monitor's own query: one round trip fewer).
 */
export async function maintenanceWindowsNear(
  prisma: PrismaClient,
  workspaceId: string,
  now: Date,
): Promise<CoverageWindow[]> {
  return (await windowsLoader(prisma).load({ workspaceId, minute: Math.floor(now.getTime() / 60_000) * 60_000 })) ?? [];
}

/**
 * SQL, a scalar subquery: the windows (not cancelled) that cover a component at some moment of [from, to] (a window
 * without components covers the whole workspace), as a JSON array of `{startsAt, endsAt}`, NULL when none. For the
 * statements that read a monitor's maintenance along with their own work (the store's flap states, a create's
 * insert); coveringWindows parses it, and windowInProgress or maintenanceCoverage then judge each instant exactly.
 * Each argument is an SQL expression: a parameter, or a column of the outer query.
 */
export function coveringWindowsJson(p: {
  workspaceId: Prisma.Sql;
  componentId: Prisma.Sql;
  from: Prisma.Sql;
  to: Prisma.Sql;
}): Prisma.Sql {
  return Prisma.sql`(SELECT json_agg(json_build_object('startsAt', w."startsAt", 'endsAt', w."endsAt"))
       FROM maintenance_windows w
       WHERE w."workspaceId" = ${p.workspaceId} AND w."cancelledAt" IS NULL
         AND w."startsAt" <= ${p.to} AND w."endsAt" > ${p.from}
         AND (NOT EXISTS (SELECT 1 FROM maintenance_components c WHERE c."maintenanceId" = w.id)
           OR EXISTS (SELECT 1 FROM maintenance_components c WHERE c."maintenanceId" = w.id AND c."componentId" = ${p.componentId})))`;
}

/** A window as coveringWindowsJson gives it (JSON timestamps). */
export type CoveringWindowJson = { startsAt: string; endsAt: string };

/**
 * coveringWindowsJson's value as maintenanceCoverage and windowInProgress take it: each window already covers the
 * component it was read for, so none names components (a window without components covers whatever it is asked about).
 */
export function coveringWindows(json: CoveringWindowJson[] | null): CoverageWindow[] {
  return (json ?? []).map((w) => ({ startsAt: new Date(w.startsAt), endsAt: new Date(w.endsAt), componentIds: [] }));
}

/** Whether a window is in progress at `now`: half-open, startsAt <= now < endsAt. */
export function windowInProgress(w: { startsAt: Date; endsAt: Date }, now: Date): boolean {
  const t = now.getTime();
  return w.startsAt.getTime() <= t && t < w.endsAt.getTime();
}

/**
 * The pure part of maintenanceUntilByComponent: of the given (not cancelled) windows, those in progress at `now`
 * (half-open: startsAt <= now < endsAt, so a window covers nothing at the instant it ends, nor a zero-length one
 * ever), and for each asked-for component the latest end among those covering it.
 */
export function maintenanceCoverage(
  windows: readonly CoverageWindow[],
  componentIds: readonly string[],
  now: Date,
): Map<string, Date> {
  const out = new Map<string, Date>();
  const wanted = new Set(componentIds);
  for (const w of windows) {
    if (!windowInProgress(w, now)) continue;
    const covered = w.componentIds.length === 0 ? componentIds : w.componentIds.filter((id) => wanted.has(id));
    for (const id of covered) {
      const current = out.get(id);
      if (!current || current < w.endsAt) out.set(id, w.endsAt);
    }
  }
  return out;
}

/** A window not cancelled; no components means the whole workspace. */
export interface CoverageWindow {
  startsAt: Date;
  endsAt: Date;
  componentIds: string[];
}

/**
 * The windows (not cancelled) of the given workspaces that overlap the minutes from $3 to $2, each with its components: a hot statement
 * (docs/adr/0021-hot-statements-on-the-pool.md), as every monitor list, count and edit reads it, and through Prisma it
 * was two queries (the components apart) and a large share of a list request's CPU.
 */
const windowsWhere = (match: string) => `
  SELECT w."workspaceId"::text AS "workspaceId", w."startsAt", w."endsAt",
    ARRAY(SELECT c."componentId"::text FROM maintenance_components c WHERE c."maintenanceId" = w.id) AS "componentIds"
  FROM maintenance_windows w
  WHERE w."workspaceId" ${match} AND w."cancelledAt" IS NULL AND w."startsAt" < $2 AND w."endsAt" > $3`;
const WINDOWS_NEAR = hotBatchStatement(windowsWhere('= $1::uuid'), windowsWhere('= ANY($1::uuid[])'));

/**
 * Every monitor read and every check asks this: the lookups of one event-loop turn go in one statement, for the
 * windows not cancelled that overlap the caller's minute; the exact clock test is the caller's.
 */
const windowsLoader = perClient((prisma: PrismaClient) =>
  createBatchLoader<{ workspaceId: string; minute: number }, CoverageWindow[]>(
    async (keys) => {
      const minutes = keys.map((k) => k.minute);
      const rows = await hotQuery<CoverageWindow & { workspaceId: string }>(
        prisma,
        ...forKeys(
          WINDOWS_NEAR,
          [[...new Set(keys.map((k) => k.workspaceId))]],
          [new Date(Math.max(...minutes) + 60_000), new Date(Math.min(...minutes))],
        ),
      );
      return new Map(
        keys.map((k) => [
          `${k.minute}/${k.workspaceId}`,
          rows
            .filter(
              (w) =>
                w.workspaceId === k.workspaceId &&
                w.startsAt.getTime() < k.minute + 60_000 &&
                w.endsAt.getTime() > k.minute,
            )
            .map((w) => ({ startsAt: w.startsAt, endsAt: w.endsAt, componentIds: w.componentIds })),
        ]),
      );
    },
    { keyOf: (k) => `${k.minute}/${k.workspaceId}` },
  ),
);
