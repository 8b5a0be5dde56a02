import type { Prisma } from '../generated/prisma/client.js';

/**
 * The incidents a page shows ("public incidents"): those of the shown components' monitors, and manual incidents
 * that name a shown component or name none (the whole workspace). A monitor incident whose monitor was deleted
 * concerns no shown component and is not listed. Used by the public page and by subscriber notifications.
 */
export function publicIncidentFilter(monitorIds: string[], componentIds: string[]): Prisma.IncidentWhereInput {
  return {
    OR: [
      { monitorId: { in: monitorIds } },
      { source: 'manual', components: { none: {} } },
      { source: 'manual', components: { some: { componentId: { in: componentIds } } } },
    ],
  };
}
