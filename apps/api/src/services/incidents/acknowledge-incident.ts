import { ConflictError } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { acknowledgedByColumns, toIncidentRecord, type IncidentRecord, incidentLookup } from './incident-record.js';
import { requestNotices, stopLadder, type LadderDeps } from './stop-ladder.js';
import { findOwn } from '../records.js';

/**
 * POST /incidents/{id}/acknowledge (member and above): open -> acknowledged, which stops the escalation ladder and
 * tells every target that was paged (the notices the status change wrote).
 * `acknowledgedBy` records the caller as the audit log names them (a user, an org token, the admin CLI).
 * Already acknowledged: a no-op 200 (the first acknowledger stays). Resolved: 409. The update is conditional on `open`, so it cannot undo a
 * resolution that raced it.
 */
export async function acknowledgeIncident(
  deps: LadderDeps,
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<IncidentRecord> {
  assertCan(ctx.role, 'incidents:respond');
  const { prisma } = deps;
  const { now } = ctx;
  const before = await findOwn(prisma, ctx, incidentLookup, id);
  if (before.status === 'open') {
    await prisma.$transaction(async (tx) => {
      const { count } = await tx.incident.updateMany({
        where: { id: before.id, workspaceId: ctx.workspace.id, status: 'open' },
        data: { status: 'acknowledged', acknowledgedAt: now, ...acknowledgedByColumns(ctx.actor) },
      });
      if (count === 0) return; // resolved (or acknowledged) meanwhile: judged below
      await recordAuditEvent(tx, ctx, {
        resourceType: 'incident',
        resourceId: before.id,
        action: 'acknowledged',
        changes: {
          status: { from: 'open', to: 'acknowledged' },
          acknowledgedAt: { from: null, to: now.toISOString() },
          acknowledgedBy: { from: null, to: { ...ctx.actor } },
        },
      });
    });
  }
  const row = await findOwn(prisma, ctx, incidentLookup, id);
  if (row.status === 'resolved') throw new ConflictError('A resolved incident cannot be acknowledged');
  if (before.status === 'open') {
    await stopLadder(deps, { ...row, workspaceId: ctx.workspace.id }, now);
    await requestNotices(deps, row.id, 'acknowledged');
  }
  return toIncidentRecord(row);
}
