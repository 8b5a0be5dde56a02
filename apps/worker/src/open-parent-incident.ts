import { Prisma } from '@statusvane/shared';

/**
 * A scalar subquery: the open (or acknowledged) incident of the first monitor in `dependsOn` order of the monitor
 * `monitorId` (an SQL expression: a parameter, or a column of the outer query) that has one; NULL when none. A new
 * incident is suppressed by it (store-result.ts), and an escalation step of one pages nobody while it lasts
 * (escalation/engine.ts). Seen as committed when the statement runs.
 */
export function openParentIncidentOf(monitorId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT p.id FROM monitors m CROSS JOIN LATERAL unnest(m."dependsOn") WITH ORDINALITY AS d(id, pos)
    JOIN incidents p ON p."openMonitorId" = d.id WHERE m.id = ${monitorId} ORDER BY d.pos LIMIT 1)`;
}
