import type { PrismaClient } from '@statusvane/shared';
import { IDEMPOTENCY_STALE_MS } from '../../../apps/api/src/middleware/idempotency.js';

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
 * count each stored result once, at most one open incident per monitor. The first and the last are also enforced by
 * unique indexes (check_results (monitorId, region, slot), incidents.openMonitorId): they can only fail if a
 * migration drops an index (or incidents stop setting openMonitorId), and are kept because they are cheap.
 * `brokenInvariants` below checks these and the ones that a bug in the code can actually break.
 */
export async function storedState(prisma: PrismaClient): Promise<StoredState> {
  const [dup] = await prisma.$queryRaw<Array<{ n: number }>>`
    SELECT (count(*) - count(DISTINCT ("monitorId", region, slot)))::int AS n FROM check_results`;
  const mismatches = await prisma.$queryRaw<
    Array<{ monitorId: string; results: number; hourly: number; daily: number }>
  >`
    SELECT m.id AS "monitorId",
      (SELECT count(*) FROM check_results r WHERE r."monitorId" = m.id AND r.outcome <> 'missed')::int AS results,
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

export interface InvariantScope {
  /** Only these workspaces' rows (suites share one database). Default: the whole database. */
  workspaceIds?: readonly string[];
}

/**
 * Every invariant of the stored state that no constraint enforces, so that code (a partial write, a result counted
 * twice, a step of a transaction left out) can break it. Returns only the broken ones, each with its offending rows:
 * `expect(await brokenInvariants(prisma, scope)).toEqual({})`.
 *
 * - `rollupMismatches`: hourly and daily rollups count exactly the stored results (totals, down and degraded).
 * - `flapStateMismatches`: a monitor's `status` and `lastCheckedAt` agree with its last result in the order they were
 *   applied (by transaction, then by slot within a transaction, as the worker applies a group), and each region's
 *   flap state with its results: a state row exists only after a counted result (an API resolve or delete removes
 *   them), exactly one counter is non-zero, it counts no more results of its kind than are stored, and the last
 *   counted result is a stored result of that kind. A monitor without results is `pending` without flap state.
 *   (Results older than the retention period are pruned: the suites never prune.) Here and in the rollups, a slot
 *   recorded as `missed` (checks behind: no data) is no result: it moves no rollup, counter, status or lastCheckedAt.
 * - `incidentStateMismatches`: `resolvedAt` is set exactly when resolved; acknowledged has a time. (That
 *   `openMonitorId` is the monitor exactly while open or acknowledged, and so at most one open incident per monitor,
 *   is enforced by a CHECK constraint and a unique index: test/incidents.test.ts shows the database refusing it.)
 * - `orphanComponents`: every component belongs to a monitor (components are only created with their monitor, in
 *   one transaction; one left alone is a partial write).
 * - `crossWorkspaceLinks`: a row never points at another workspace's row (foreign keys do not check that).
 * - `idempotencyRecords`: a claim is settled (2xx stored) or released; none left in flight past the takeover time
 *   (IDEMPOTENCY_STALE_MS), none stored for a non-2xx answer. A suite that kills an API process mid-request may
 *   legitimately leave a stale claim (the next retry takes it over): it should not assert this one.
 * - `deliveryStateMismatches`: a sent page has its `sentAt`, a pending, failed or skipped one has none.
 */
export async function brokenInvariants(
  prisma: PrismaClient,
  scope: InvariantScope = {},
): Promise<Record<string, unknown[]>> {
  const ws = scope.workspaceIds ? [...scope.workspaceIds] : null;
  const inScope = (id: string | null | undefined) =>
    ws === null || (id !== null && id !== undefined && ws.includes(id));

  const rollups = await prisma.$queryRaw<
    Array<{
      monitorId: string;
      results: number;
      down: number;
      degraded: number;
      hourly: number;
      hourlyDown: number;
      daily: number;
      dailyDown: number;
      dailyDegraded: number;
    }>
  >`
    SELECT m.id AS "monitorId", r.results, r.down, r.degraded, h.total AS hourly, h.down AS "hourlyDown", d.total AS daily, d.down AS "dailyDown", d.degraded AS "dailyDegraded"
    FROM monitors m
    CROSS JOIN LATERAL (SELECT count(*)::int AS results, (count(*) FILTER (WHERE outcome = 'down'))::int AS down,
      (count(*) FILTER (WHERE outcome = 'degraded'))::int AS degraded FROM check_results
      WHERE "monitorId" = m.id AND outcome <> 'missed') r
    CROSS JOIN LATERAL (SELECT coalesce(sum(total), 0)::int AS total, coalesce(sum("downCount"), 0)::int AS down FROM check_rollups_hourly WHERE "monitorId" = m.id) h
    CROSS JOIN LATERAL (SELECT coalesce(sum(total), 0)::int AS total, coalesce(sum("downCount"), 0)::int AS down, coalesce(sum("degradedCount"), 0)::int AS degraded
      FROM check_rollups_daily WHERE "monitorId" = m.id) d
    WHERE (${ws}::uuid[] IS NULL OR m."workspaceId" = ANY(${ws}::uuid[]))`;
  const rollupMismatches = rollups.filter(
    (r) =>
      r.hourly !== r.results ||
      r.daily !== r.results ||
      r.hourlyDown !== r.down ||
      r.dailyDown !== r.down ||
      r.dailyDegraded !== r.degraded,
  );

  // Results in the order the worker applied them: rows stored by one transaction share xmin; transactions for one
  // monitor are serialised by its row lock, and a transaction takes its xid when it locks its first monitor, so xmin
  // orders them (check_results has no serial id since it is partitioned: docs/adr/0016-check-results-partitions.md).
  // The one exception, a transaction that locked an earlier monitor and then waited for this one behind a younger
  // transaction, needs two groups with results of two common monitors to store at the same instant (and would show
  // as a status mismatch here, not pass unseen). Within one transaction, results are applied by slot.
  const flap = await prisma.$queryRaw<
    Array<{
      monitorId: string;
      status: string;
      lastCheckedAt: Date | null;
      results: number;
      lastOutcome: string | null;
      lastResultAt: Date | null;
      regions: Array<{
        region: string;
        failures: number;
        passes: number;
        lastCountedAt: string | null;
        failingResults: number;
        passingResults: number;
        lastCountedOutcome: string | null;
      }> | null;
    }>
  >`
    WITH r AS (
      SELECT cr."monitorId", cr.outcome::text AS outcome, cr."checkedAt", cr.slot, cr.xmin::text::bigint AS tx
      FROM check_results cr JOIN monitors m ON m.id = cr."monitorId"
      WHERE cr.outcome <> 'missed' AND (${ws}::uuid[] IS NULL OR m."workspaceId" = ANY(${ws}::uuid[]))
    ), o AS (
      SELECT *, row_number() OVER (PARTITION BY "monitorId" ORDER BY tx DESC, slot DESC) AS rn FROM r
    ), last AS (
      SELECT "monitorId", outcome, "checkedAt" FROM o WHERE rn = 1
    ), agg AS (
      SELECT "monitorId", count(*)::int AS results FROM r GROUP BY "monitorId"
    )
    SELECT m.id AS "monitorId", m.status::text AS status, m."lastCheckedAt",
      coalesce(a.results, 0) AS results, l.outcome AS "lastOutcome", l."checkedAt" AS "lastResultAt",
      (SELECT json_agg(json_build_object('region', s.region, 'failures', s."consecutiveFailures", 'passes', s."consecutivePasses",
          'lastCountedAt', s."lastCountedAt",
          'failingResults', (SELECT count(*) FROM check_results x WHERE x."monitorId" = m.id AND x.region = s.region AND x.outcome = 'down'),
          'passingResults', (SELECT count(*) FROM check_results x WHERE x."monitorId" = m.id AND x.region = s.region AND x.outcome IN ('up', 'degraded')),
          'lastCountedOutcome', (SELECT min(x.outcome::text) FROM check_results x
            WHERE x."monitorId" = m.id AND x.region = s.region AND x."checkedAt" = s."lastCountedAt")))
        FROM monitor_region_states s WHERE s."monitorId" = m.id) AS regions
    FROM monitors m LEFT JOIN agg a ON a."monitorId" = m.id LEFT JOIN last l ON l."monitorId" = m.id
    WHERE (${ws}::uuid[] IS NULL OR m."workspaceId" = ANY(${ws}::uuid[]))`;
  const flapStateMismatches = flap.flatMap((m) => {
    const problems: string[] = [];
    if (m.results === 0) {
      if (m.status !== 'pending') problems.push(`status ${m.status} without any result`);
      if (m.regions?.length) problems.push('flap state without any result');
      if (m.lastCheckedAt !== null) problems.push('lastCheckedAt without any result');
    } else {
      if (m.status !== m.lastOutcome) problems.push(`status ${m.status} but the last result is ${m.lastOutcome}`);
      if (m.lastCheckedAt?.getTime() !== m.lastResultAt?.getTime())
        problems.push(
          `lastCheckedAt ${m.lastCheckedAt?.toISOString()} but the last result was checked at ${m.lastResultAt?.toISOString()}`,
        );
    }
    for (const r of m.regions ?? []) {
      // A row exists only after a counted result (a reset deletes it): exactly one counter is non-zero, it counts no
      // more results than are stored, and the last counted result is a stored one of the counter's kind.
      const failing = r.failures > 0;
      if (r.failures > 0 === r.passes > 0) {
        problems.push(`region ${r.region}: counters ${r.failures} failing / ${r.passes} passing`);
        continue;
      }
      const [counted, stored, kind] = failing
        ? [r.failures, r.failingResults, 'failing']
        : [r.passes, r.passingResults, 'passing'];
      if (counted > stored)
        problems.push(`region ${r.region}: ${counted} counted ${kind} results but ${stored} stored`);
      if (r.lastCountedOutcome === null || (r.lastCountedOutcome === 'down') !== failing)
        problems.push(
          `region ${r.region}: the last counted result (${r.lastCountedAt}) is not a stored ${kind} result`,
        );
    }
    return problems.length ? [{ monitorId: m.monitorId, problems }] : [];
  });

  const incidentStateMismatches = await prisma.$queryRaw<Array<{ id: string; status: string; problem: string }>>`
    SELECT id, status::text AS status, problem FROM (
      SELECT i.id, i.status, CASE
        WHEN (i.status = 'resolved') <> (i."resolvedAt" IS NOT NULL) THEN 'resolvedAt does not match the status'
        WHEN i.status = 'acknowledged' AND i."acknowledgedAt" IS NULL THEN 'acknowledged without acknowledgedAt'
      END AS problem
      FROM incidents i WHERE (${ws}::uuid[] IS NULL OR i."workspaceId" = ANY(${ws}::uuid[]))
    ) x WHERE problem IS NOT NULL`;

  const orphanComponents = await prisma.$queryRaw<Array<{ id: string; name: string }>>`
    SELECT c.id, c.name FROM components c LEFT JOIN monitors m ON m."componentId" = c.id
    WHERE m.id IS NULL AND (${ws}::uuid[] IS NULL OR c."workspaceId" = ANY(${ws}::uuid[]))`;

  const links = await prisma.$queryRaw<
    Array<{ link: string; id: string; workspaceId: string; otherWorkspaceId: string }>
  >`
    SELECT 'monitor -> component' AS link, m.id::text AS id, m."workspaceId", c."workspaceId" AS "otherWorkspaceId"
      FROM monitors m JOIN components c ON c.id = m."componentId" WHERE m."workspaceId" <> c."workspaceId"
    UNION ALL SELECT 'monitor -> escalation policy', m.id::text, m."workspaceId", p."workspaceId"
      FROM monitors m JOIN escalation_policies p ON p.id = m."escalationPolicyId" WHERE m."workspaceId" <> p."workspaceId"
    UNION ALL SELECT 'incident -> monitor', i.id::text, i."workspaceId", m."workspaceId"
      FROM incidents i JOIN monitors m ON m.id = i."monitorId" WHERE i."workspaceId" <> m."workspaceId"
    UNION ALL SELECT 'maintenance -> component', w.id::text, w."workspaceId", c."workspaceId"
      FROM maintenance_components mc JOIN maintenance_windows w ON w.id = mc."maintenanceId" JOIN components c ON c.id = mc."componentId"
      WHERE w."workspaceId" <> c."workspaceId"
    UNION ALL SELECT 'status page section -> component', p.id::text, p."workspaceId", c."workspaceId"
      FROM section_components sc JOIN status_page_sections s ON s.id = sc."sectionId" JOIN status_pages p ON p.id = s."statusPageId"
      JOIN components c ON c.id = sc."componentId" WHERE p."workspaceId" <> c."workspaceId"
    UNION ALL SELECT 'workspace -> default escalation policy', w.id::text, w.id, p."workspaceId"
      FROM workspaces w JOIN escalation_policies p ON p.id = w."defaultEscalationPolicyId" WHERE w.id <> p."workspaceId"
    UNION ALL SELECT 'delivery -> step of another workspace''s policy', d.id::text, i."workspaceId", p."workspaceId"
      FROM escalation_deliveries d JOIN incidents i ON i.id = d."incidentId" JOIN escalation_steps s ON s.id = d."stepId"
      JOIN escalation_policies p ON p.id = s."policyId" WHERE i."workspaceId" <> p."workspaceId"`;
  const crossWorkspaceLinks = links.filter((l) => inScope(l.workspaceId) || inScope(l.otherWorkspaceId));

  const idempotencyRecords = await prisma.$queryRaw<
    Array<{ id: string; key: string; responseStatus: number | null; problem: string }>
  >`
    SELECT id, key, "responseStatus", problem FROM (
      SELECT id, key, "responseStatus", CASE
        WHEN "responseStatus" IS NULL AND "createdAt" < now() - make_interval(secs => ${IDEMPOTENCY_STALE_MS / 1000}) THEN 'claim in flight past the takeover time'
        WHEN "responseStatus" IS NOT NULL AND ("responseStatus" < 200 OR "responseStatus" > 299) THEN 'non-2xx answer stored'
        WHEN "responseStatus" IS NOT NULL AND "responseBody" IS NULL THEN 'status stored without its body'
      END AS problem
      FROM idempotency_records WHERE (${ws}::uuid[] IS NULL OR "workspaceId" = ANY(${ws}::uuid[]))
    ) x WHERE problem IS NOT NULL`;

  const deliveryStateMismatches = await prisma.$queryRaw<Array<{ id: string; status: string }>>`
    SELECT d.id, d.status::text AS status FROM escalation_deliveries d JOIN incidents i ON i.id = d."incidentId"
    WHERE ((d.status = 'sent') <> (d."sentAt" IS NOT NULL)) AND (${ws}::uuid[] IS NULL OR i."workspaceId" = ANY(${ws}::uuid[]))`;

  const all: Record<string, unknown[]> = {
    rollupMismatches,
    flapStateMismatches,
    incidentStateMismatches,
    orphanComponents,
    crossWorkspaceLinks,
    idempotencyRecords,
    deliveryStateMismatches,
  };
  return Object.fromEntries(Object.entries(all).filter(([, rows]) => rows.length > 0));
}
