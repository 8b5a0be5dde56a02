import { ValidationError, type PrismaClient } from '@statusvane/shared';

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * Replaces a monitor's `dependsOn`, inside the transaction that writes the monitor. Every id must be another monitor
 * of the same workspace, and the graph must stay free of cycles; otherwise a 400 on `dependsOn`. Dependency writes of
 * one workspace take a transaction-scoped advisory lock first, so two PATCHes that would together close a cycle
 * (A -> B and B -> A) are judged one after the other: the second sees the first's edge and is refused.
 */
export async function replaceDependencies(
  tx: Tx,
  { workspaceId, monitorId, dependsOn }: { workspaceId: string; monitorId: string; dependsOn: string[] },
): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`monitor-dependencies:${workspaceId}`}, 0))`;
  const issues: Array<{ path: string; message: string }> = [];
  const found = new Set(
    dependsOn.length === 0
      ? []
      : (
          await tx.monitor.findMany({
            where: { id: { in: dependsOn }, workspaceId },
            select: { id: true },
          })
        ).map((m) => m.id),
  );
  dependsOn.forEach((id, i) => {
    if (id === monitorId) issues.push({ path: `dependsOn[${i}]`, message: 'a monitor cannot depend on itself' });
    else if (!found.has(id)) issues.push({ path: `dependsOn[${i}]`, message: 'is not a monitor of this workspace' });
  });
  if (!issues.length && dependsOn.length) {
    // A cycle exists when this monitor is reachable from one of its new parents through the stored edges.
    const [cycle] = await tx.$queryRaw<Array<{ path: string[] }>>`
      WITH RECURSIVE reach(id, path) AS (
        SELECT p, ARRAY[p] FROM unnest(${dependsOn}::uuid[]) AS p
        UNION
        SELECT d."dependsOnId", r.path || d."dependsOnId" FROM reach r
        JOIN monitor_dependencies d ON d."monitorId" = r.id
        WHERE NOT d."dependsOnId" = ANY(r.path)
      )
      SELECT path::text[] AS path FROM reach WHERE id = ${monitorId}::uuid LIMIT 1`;
    if (cycle) {
      issues.push({
        path: 'dependsOn',
        message: `would make a cycle: ${[monitorId, ...cycle.path].join(' -> ')}`,
      });
    }
  }
  if (issues.length) throw new ValidationError('Invalid monitor: dependsOn', issues);
  await tx.monitorDependency.deleteMany({ where: { monitorId } });
  if (dependsOn.length) {
    await tx.monitorDependency.createMany({
      data: dependsOn.map((dependsOnId, position) => ({ monitorId, dependsOnId, position })),
    });
  }
}
