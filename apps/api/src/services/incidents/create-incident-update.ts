import { recordIncidentUpdated, NotFoundError, type IncidentUpdateInput } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { incidentUpdateSelect, toIncidentUpdateRecord, type IncidentUpdateRecord } from './incident-update-record.js';
import { resolveInTx } from './resolve-incident.js';
import { afterResolve, type LadderDeps } from './stop-ladder.js';
import { incidentLookup } from './incident-record.js';
import { findOwn } from '../records.js';

/**
 * POST /incidents/{id}/updates (writers) -> 201. A `resolved` update resolves the incident (as resolveIncident:
 * flap state reset; after the commit, ladder stopped) and records the message in the same transaction, with one
 * audit event (`incident.update_posted`, its changes showing the resolve). Updates may follow a resolved incident (a post-incident note); a non-resolved
 * status does not reopen it. Subscribers hear of it from the worker's sweep.
 */
export async function createIncidentUpdate(
  deps: LadderDeps,
  { ctx, input: { id, update } }: { ctx: ServiceContext; input: { id: string; update: IncidentUpdateInput } },
): Promise<IncidentUpdateRecord> {
  assertCan(ctx.role, 'incidents:respond');
  const incident = await findOwn(deps.prisma, ctx, incidentLookup, id);
  const resolves = update.status === 'resolved' && incident.status !== 'resolved';
  // One transaction, one audit event: the resolve (when the update resolves) and the update, with
  // `ctx.inTransaction` (the Idempotency-Key's stored answer): all commit or none does.
  const record = await deps.prisma.$transaction(async (tx) => {
    const resolved = resolves ? await resolveInTx(tx, ctx, incident) : null;
    const row = await tx.incidentUpdate.create({
      data: { incidentId: incident.id, status: update.status, message: update.message, createdAt: ctx.now },
      select: incidentUpdateSelect,
    });
    const record = toIncidentUpdateRecord(row);
    await recordIncidentUpdated(tx, incident.id, record);
    // An update is part of the incident's public record: its version grows, and its event names the update (and
    // the resolve it made).
    const version = await recordAuditEvent(tx, ctx, {
      resourceType: 'incident',
      resourceId: incident.id,
      action: 'update_posted',
      changes: {
        ...resolved,
        update: { from: null, to: { id: row.id, status: update.status, message: update.message } },
      },
    });
    if (version === undefined) throw new NotFoundError('incident', id); // deleted meanwhile
    await ctx.inTransaction?.(tx, record);
    return record;
  });
  if (resolves) await afterResolve(deps, ctx, incident);
  return record;
}
