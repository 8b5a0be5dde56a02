import { ValidationError, type Issue, type PrismaClient } from '@statusvane/shared';

/**
 * Refuses (400) component ids that are repeated, unknown, or belong to another workspace, naming each as
 * `componentIds[i]`. Unknown and foreign get the same message: never reveal another workspace's ids.
 */
export async function assertOwnComponents(
  prisma: Pick<PrismaClient, 'component'>,
  workspaceId: string,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  const found = await prisma.component.findMany({
    where: { workspaceId, id: { in: [...new Set(ids)] } },
    select: { id: true },
  });
  const known = new Set(found.map((c) => c.id));
  const seen = new Set<string>();
  const issues: Issue[] = [];
  ids.forEach((id, i) => {
    if (seen.has(id)) issues.push({ path: `componentIds[${i}]`, message: 'is listed twice' });
    else if (!known.has(id))
      issues.push({ path: `componentIds[${i}]`, message: 'is not a component of this workspace' });
    seen.add(id);
  });
  if (issues.length)
    throw new ValidationError(`Invalid maintenance window: ${issues.map((i) => i.path).join(', ')}`, issues);
}
