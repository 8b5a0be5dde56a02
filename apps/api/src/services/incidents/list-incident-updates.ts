import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwnIncident } from './find-incident.js';
import { incidentUpdateSelect, toIncidentUpdateRecord, type IncidentUpdateRecord } from './incident-update-record.js';

/** GET /incidents/{id}/updates (any role): oldest first. */
export async function listIncidentUpdates(
  deps: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<IncidentUpdateRecord[]> {
  const incident = await findOwnIncident(deps.prisma, ctx, id);
  const rows = await deps.prisma.incidentUpdate.findMany({
    where: { incidentId: incident.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: incidentUpdateSelect,
  });
  return rows.map(toIncidentUpdateRecord);
}
