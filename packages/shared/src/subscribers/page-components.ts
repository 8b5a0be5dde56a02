import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * The ids of the components a status page shows: its arranged sections' components, or (no sections) every
 * component of its workspace. The rule of the public page (apps/api/src/services/status-pages/public-page.ts),
 * for the subscriber paths that need only the ids.
 */
export async function shownComponentIds(
  prisma: PrismaClient,
  page: { id: string; workspaceId: string },
): Promise<string[]> {
  const sections = await prisma.statusPageSection.findMany({
    where: { statusPageId: page.id },
    select: { components: { where: { component: { workspaceId: page.workspaceId } }, select: { componentId: true } } },
  });
  if (sections.length > 0) return sections.flatMap((s) => s.components.map((c) => c.componentId));
  const all = await prisma.component.findMany({ where: { workspaceId: page.workspaceId }, select: { id: true } });
  return all.map((c) => c.id);
}
