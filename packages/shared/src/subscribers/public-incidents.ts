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

/** The public URL of a page: `<PUBLIC_BASE_URL>/status/<slug>` (the API's records and the subscriber messages). */
export function statusPageUrl(publicBaseUrl: string, slug: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/status/${slug}`;
}

/** An incident's permalink on a page: `<page url>/incidents/<id>` (feeds, `summary.json`, subscriber messages). */
export function incidentUrl(pageUrl: string, incidentId: string): string {
  return `${pageUrl}/incidents/${incidentId}`;
}
