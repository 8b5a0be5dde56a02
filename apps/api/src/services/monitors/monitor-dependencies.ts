import {
  Prisma,
  sqlExecute,
  sqlRows,
  ValidationError,
  type Issue,
  type SqlClient,
  type SqlTransaction,
} from '@statusvane/shared';

// A transaction of either kind: a create runs in a hotTransaction, the other writes in Prisma's (sqlRows).
type Tx = SqlTransaction;
type Db = SqlClient;

/**
 * Every write of a workspace's `dependsOn` lists, and every monitor delete, takes this transaction-scoped lock first:
 * two PATCHes that would together close a cycle (A -> B and B -> A) are judged one after the other, and a monitor
 * deleted while another starts to depend on it is either seen gone (400) or removed from that list.
 */
export async function lockDependencies(tx: Tx, workspaceId: string): Promise<void> {
  await sqlExecute(
    tx,
    Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${`monitor-dependencies:${workspaceId}`}, 0))`,
  );
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

/** One monitor's new `dependsOn`; `monitorId` null for a monitor being created. */
export interface DependencyList {
  monitorId: string | null;
  dependsOn: readonly string[];
}

/** The issues of one new list (POST and PATCH /monitors): dependencyListIssues of that list alone. */
export async function dependencyIssues(
  db: Db,
  { workspaceId, monitorId, dependsOn }: { workspaceId: string; monitorId: string | null; dependsOn: string[] },
): Promise<Issue[]> {
  return (await dependencyListIssues(db, workspaceId, [{ monitorId, dependsOn }]))[0]!;
}

/**
 * Judges new `dependsOn` lists written together (POST or PATCH /monitors: one; config/apply: every list its document
 * changes). Every id must be another monitor of the same workspace, and not one the same write deletes (`deleted`,
 * with the message to give); and the graph as it will stand (the stored lists, with these in place of their
 * monitors' and the deleted monitors' gone) must stay free of cycles. The issues of each list, in order: at
 * `dependsOn[i]`, or for a cycle at `dependsOn` with the path. Read as it stands (no lock): a writer reads it again
 * under lockDependencies, in the write.
 */
export async function dependencyListIssues(
  db: Db,
  workspaceId: string,
  lists: readonly DependencyList[],
  deleted: { ids: ReadonlySet<string>; message: string } = { ids: new Set(), message: '' },
): Promise<Issue[][]> {
  const named = [...new Set(lists.flatMap((l) => l.dependsOn))];
  if (named.length === 0) return lists.map(() => []);
  const found = new Set(
    (
      await sqlRows<{ id: string }>(
        db,
        Prisma.sql`SELECT id::text AS id FROM monitors WHERE id = ANY(${named}::uuid[]) AND "workspaceId" = ${workspaceId}::uuid`,
      )
    ).map((m) => m.id),
  );
  const all = lists.map(({ monitorId, dependsOn }) => {
    const issues: Issue[] = [];
    dependsOn.forEach((id, i) => {
      const path = `dependsOn[${i}]`;
      if (id === monitorId) issues.push({ path, message: 'a monitor cannot depend on itself' });
      else if (deleted.ids.has(id)) issues.push({ path, message: deleted.message });
      else if (!found.has(id)) issues.push({ path, message: 'is not a monitor of this workspace' });
    });
    return issues;
  });
  // The lists as they will stand: a deleted monitor depends on nothing (and no list keeps its id: forgetDependency).
  const pending = [
    ...lists.flatMap((l) => (l.monitorId ? [{ id: l.monitorId, dependsOn: l.dependsOn }] : [])),
    ...[...deleted.ids].map((id) => ({ id, dependsOn: [] })),
  ];
  // A created monitor has no id anything could name yet: it cannot close a cycle.
  const origins = lists.flatMap((l, i) => (l.monitorId && l.dependsOn.length && !all[i]!.length ? [l.monitorId] : []));
  if (origins.length === 0) return all;
  const graph = JSON.stringify(pending);
  for (const monitorId of await cyclic(db, workspaceId, origins, graph)) {
    const path = await cycleThrough(db, workspaceId, monitorId, graph);
    const i = lists.findIndex((l) => l.monitorId === monitorId);
    const through = path ? `: ${[monitorId, ...path].join(' -> ')}` : '';
    all[i]!.push({ path: 'dependsOn', message: `would make a cycle${through}` });
  }
  return all;
}

/**
 * `pending` as rows (id, deps): the lists as they will stand, read in place of the stored ones. Its statement starts
 * each query below.
 */
const pendingRows = (graph: string) => Prisma.sql`pending(id, deps) AS (
  SELECT (e->>'id')::uuid, ARRAY(SELECT jsonb_array_elements_text(e->'dependsOn'))::uuid[]
    FROM jsonb_array_elements(${graph}::jsonb) AS e)`;

/**
 * The origins from which a path through the lists as they will stand leads back to themselves: one query for all,
 * each monitor reached once per origin (reachability, not paths: no blow-up on a dense graph).
 */
async function cyclic(db: Db, workspaceId: string, origins: string[], graph: string): Promise<string[]> {
  const rows = await sqlRows<{ origin: string }>(
    db,
    Prisma.sql`
    WITH RECURSIVE ${pendingRows(graph)}, reach(origin, id) AS (
      SELECT pending.id, p FROM pending CROSS JOIN LATERAL unnest(pending.deps) AS p
       WHERE pending.id = ANY(${origins}::uuid[])
      UNION
      SELECT r.origin, d FROM reach r
      JOIN monitors m ON m.id = r.id AND m."workspaceId" = ${workspaceId}::uuid
      LEFT JOIN pending o ON o.id = r.id
      CROSS JOIN LATERAL unnest(COALESCE(o.deps, m."dependsOn")) AS d
      WHERE r.id <> r.origin
    )
    SELECT DISTINCT origin::text AS origin FROM reach WHERE id = origin`,
  );
  return rows.map((r) => r.origin);
}

/** A path back to `monitorId` from one of its parents, through the lists as they will stand (for the 400). */
async function cycleThrough(db: Db, workspaceId: string, monitorId: string, graph: string): Promise<string[] | null> {
  const [cycle] = await sqlRows<{ path: string[] }>(
    db,
    Prisma.sql`
    WITH RECURSIVE ${pendingRows(graph)}, reach(id, path) AS (
      SELECT p, ARRAY[p] FROM pending CROSS JOIN LATERAL unnest(pending.deps) AS p
       WHERE pending.id = ${monitorId}::uuid
      UNION ALL
      SELECT d, r.path || d FROM reach r
      JOIN monitors m ON m.id = r.id AND m."workspaceId" = ${workspaceId}::uuid
      LEFT JOIN pending o ON o.id = r.id
      CROSS JOIN LATERAL unnest(COALESCE(o.deps, m."dependsOn")) AS d
      WHERE r.id <> ${monitorId}::uuid AND NOT d = ANY(r.path)
    )
    SELECT path::text[] AS path FROM reach WHERE id = ${monitorId}::uuid LIMIT 1`,
  );
  return cycle?.path ?? null;
}

/** Deleting a monitor: its id leaves every list that names it (under the same lock as the writes); each changed monitor's version grows by one. */
export async function forgetDependency(
  tx: Prisma.TransactionClient,
  { workspaceId, monitorId }: { workspaceId: string; monitorId: string },
) {
  await lockDependencies(tx, workspaceId);
  await tx.$executeRaw`
    UPDATE monitors SET "dependsOn" = array_remove("dependsOn", ${monitorId}::uuid), version = version + 1
    WHERE "workspaceId" = ${workspaceId}::uuid AND ${monitorId}::uuid = ANY("dependsOn")`;
}
