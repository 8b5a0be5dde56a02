import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { incidentRecordSelect, type IncidentRow } from './incident-record.js';

/** One of the caller's incidents; a malformed or foreign id is the same 404 as a missing one. */
export async function findOwnIncident(
  prisma: Pick<PrismaClient, 'incident'>,
  ctx: RequestContext,
  id: string,
): Promise<IncidentRow> {
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('incident', id);
  const row = await prisma.incident.findFirst({
    where: { id, workspaceId: ctx.workspace.id },
    select: incidentRecordSelect,
  });
  if (!row) throw new NotFoundError('incident', id);
  return row;
}
