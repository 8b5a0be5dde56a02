import {
  recordIncidentUpdated,
  NotFoundError,
  type EscalationScheduler,
  type IncidentUpdateInput,
  type PrismaClient,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnIncident } from './find-incident.js';
import { incidentUpdateSelect, toIncidentUpdateRecord, type IncidentUpdateRecord } from './incident-update-record.js';
import { resolveIncident } from './resolve-incident.js';

/**
 * POST /incidents/{id}/updates (writers) -> 201. A `resolved` update resolves the incident first (resolveIncident:
 * ladder stopped, flap state reset), then records the message; resolving is idempotent, so a retry after a failure
 * between the two completes the pair. Updates may follow a resolved incident (a post-incident note); a non-resolved
 * status does not reopen it. Subscribers hear of it from the worker's sweep.
 */
export async function createIncidentUpdate(
  deps: { prisma: PrismaClient; escalations?: EscalationScheduler | undefined },
  { ctx, input: { id, update } }: { ctx: ServiceContext; input: { id: string; update: IncidentUpdateInput } },
): Promise<IncidentUpdateRecord> {
  assertCan(ctx.role, 'incidents:respond');
  const incident = await findOwnIncident(deps.prisma, ctx, id);
  if (update.status === 'resolved' && incident.status !== 'resolved')
    await resolveIncident(deps, { ctx, input: { id: incident.id } });
  // One transaction with `ctx.inTransaction` (the Idempotency-Key's stored answer): both commit or neither does.
  return deps.prisma.$transaction(async (tx) => {
    const row = await tx.incidentUpdate.create({
      data: { incidentId: incident.id, status: update.status, message: update.message, createdAt: ctx.now },
      select: incidentUpdateSelect,
    });
    const record = toIncidentUpdateRecord(row);
    await recordIncidentUpdated(tx, incident.id, record);
    // An update is part of the incident's public record: its version grows, and its event names the update.
    const version = await recordAuditEvent(tx, ctx, {
      resourceType: 'incident',
      resourceId: incident.id,
      action: 'update_posted',
      changes: { update: { from: null, to: { id: row.id, status: update.status, message: update.message } } },
    });
    if (version === undefined) throw new NotFoundError('incident', id); // deleted meanwhile
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}
