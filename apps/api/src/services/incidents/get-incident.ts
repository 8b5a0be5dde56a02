import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { toIncidentRecord, type IncidentRecord, incidentLookup } from './incident-record.js';
import { findOwn } from '../records.js';

/** GET /incidents/{id}: the record the list shows; a foreign or malformed id is 404. */
export async function getIncident(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<IncidentRecord> {
  return toIncidentRecord(await findOwn(prisma, ctx, incidentLookup, id));
}
