import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { incidentUpdateSelect, toIncidentUpdateRecord, type IncidentUpdateRecord } from './incident-update-record.js';
import { incidentLookup } from './incident-record.js';
import { findOwn } from '../records.js';

/** GET /incidents/{id}/updates (any role): oldest first. */
export async function listIncidentUpdates(
  deps: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<IncidentUpdateRecord[]> {
  const incident = await findOwn(deps.prisma, ctx, incidentLookup, id);
  const rows = await deps.prisma.incidentUpdate.findMany({
    where: { incidentId: incident.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: incidentUpdateSelect,
  });
  return rows.map(toIncidentUpdateRecord);
}
