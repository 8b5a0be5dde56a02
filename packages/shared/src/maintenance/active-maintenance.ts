import type { PrismaClient } from '../db/prisma.js';

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
  const out = new Map<string, Date>();
  if (componentIds.length === 0) return out;
  const windows = await prisma.maintenanceWindow.findMany({
    where: { workspaceId, cancelledAt: null, startsAt: { lte: now }, endsAt: { gt: now } },
    select: { endsAt: true, components: { select: { componentId: true } } },
  });
  for (const w of windows) {
    const covered = w.components.length === 0 ? componentIds : w.components.map((c) => c.componentId).filter((id) => componentIds.includes(id));
    for (const id of covered) {
      const current = out.get(id);
      if (!current || current < w.endsAt) out.set(id, w.endsAt);
    }
  }
  return out;
}
