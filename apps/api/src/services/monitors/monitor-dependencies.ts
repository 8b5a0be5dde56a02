import { ValidationError, type Issue, type Prisma } from '@statusvane/shared';

type Tx = Prisma.TransactionClient;

/**
 * Every write of a workspace's `dependsOn` lists, and every monitor delete, takes this transaction-scoped lock first:
 * two PATCHes that would together close a cycle (A -> B and B -> A) are judged one after the other, and a monitor
 * deleted while another starts to depend on it is either seen gone (400) or removed from that list.
 */
async function lockDependencies(tx: Tx, workspaceId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`monitor-dependencies:${workspaceId}`}, 0))`;
}

/**
 * Judges a monitor's new `dependsOn`, inside the transaction that writes it (the caller then stores the list): the
 * issues of dependencyIssues, read under the workspace's dependency lock, as a 400. `monitorId` is null for a monitor
 * being created (nothing depends on it yet, so it cannot close a cycle).
 */
export async function checkDependencies(
  tx: Tx,
  args: { workspaceId: string; monitorId: string | null; dependsOn: string[] },
): Promise<void> {
  if (args.dependsOn.length === 0) return;
  await lockDependencies(tx, args.workspaceId);
  const issues = await dependencyIssues(tx, args);
  if (issues.length) throw new ValidationError('Invalid monitor: dependsOn', issues);
}

/**
 * Every id must be another monitor of the same workspace, and the graph must stay free of cycles; otherwise an issue
 * naming `dependsOn[i]` or, for a cycle, `dependsOn` with the path. Read as it stands (no lock): checkDependencies
 * reads it again under the lock, in the write.
 */
export async function dependencyIssues(
  db: Pick<Tx, 'monitor' | '$queryRaw'>,
  { workspaceId, monitorId, dependsOn }: { workspaceId: string; monitorId: string | null; dependsOn: string[] },
): Promise<Issue[]> {
  if (dependsOn.length === 0) return [];
  const issues: Issue[] = [];
  const found = new Set(
    (await db.monitor.findMany({ where: { id: { in: dependsOn }, workspaceId }, select: { id: true } })).map(
      (m) => m.id,
    ),
  );
  dependsOn.forEach((id, i) => {
    if (id === monitorId) issues.push({ path: `dependsOn[${i}]`, message: 'a monitor cannot depend on itself' });
    else if (!found.has(id)) issues.push({ path: `dependsOn[${i}]`, message: 'is not a monitor of this workspace' });
  });
  if (!issues.length && monitorId) {
    // A cycle exists when this monitor is reachable from one of its new parents through the stored lists.
    const [cycle] = await db.$queryRaw<Array<{ path: string[] }>>`
      WITH RECURSIVE reach(id, path) AS (
        SELECT p, ARRAY[p] FROM unnest(${dependsOn}::uuid[]) AS p
        UNION ALL
        SELECT d, r.path || d FROM reach r
        JOIN monitors m ON m.id = r.id AND m."workspaceId" = ${workspaceId}::uuid
        CROSS JOIN LATERAL unnest(m."dependsOn") AS d
        WHERE NOT d = ANY(r.path)
      )
      SELECT path::text[] AS path FROM reach WHERE id = ${monitorId}::uuid LIMIT 1`;
    if (cycle) {
      issues.push({ path: 'dependsOn', message: `would make a cycle: ${[monitorId, ...cycle.path].join(' -> ')}` });
    }
  }
  return issues;
}

/** Deleting a monitor: its id leaves every list that names it (under the same lock as the writes); each changed monitor's version grows by one. */
export async function forgetDependency(tx: Tx, { workspaceId, monitorId }: { workspaceId: string; monitorId: string }) {
  await lockDependencies(tx, workspaceId);
  await tx.$executeRaw`
    UPDATE monitors SET "dependsOn" = array_remove("dependsOn", ${monitorId}::uuid), version = version + 1
    WHERE "workspaceId" = ${workspaceId}::uuid AND ${monitorId}::uuid = ANY("dependsOn")`;
}
