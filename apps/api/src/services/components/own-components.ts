import type { Issue, PrismaClient } from '@statusvane/shared';
import { failWith } from '../validation.js';

/**
 * The issues of a list of component ids: each one repeated, unknown, or of another workspace, at the path given with
 * it (`componentIds[i]`, `sections[i].componentIds[j]`). Unknown and foreign get the same message: never reveal another
 * workspace's ids. One check for maintenance windows, manual incidents and status page layouts.
 */
export async function componentIdIssues(
  prisma: Pick<PrismaClient, 'component'>,
  workspaceId: string,
  ids: ReadonlyArray<{ id: string; path: string }>,
): Promise<Issue[]> {
  if (ids.length === 0) return [];
  const found = await prisma.component.findMany({
    where: { workspaceId, id: { in: [...new Set(ids.map((x) => x.id))] } },
    select: { id: true },
  });
  const known = new Set(found.map((c) => c.id));
  const seen = new Set<string>();
  const issues: Issue[] = [];
  for (const { id, path } of ids) {
    if (seen.has(id)) issues.push({ path, message: 'is listed twice' });
    else if (!known.has(id)) issues.push({ path, message: 'is not a component of this workspace' });
    seen.add(id);
  }
  return issues;
}

/** `componentIds` as a body gives them: `componentIds[i]` each. */
export const atComponentIds = (ids: readonly string[]) => ids.map((id, i) => ({ id, path: `componentIds[${i}]` }));

/** Refuses (400) a maintenance window's `componentIds` that componentIdIssues finds fault with. */
export async function assertOwnComponents(
  prisma: Pick<PrismaClient, 'component'>,
  workspaceId: string,
  ids: readonly string[],
): Promise<void> {
  const issues = await componentIdIssues(prisma, workspaceId, atComponentIds(ids));
  if (issues.length) failWith('maintenance window', issues);
}
