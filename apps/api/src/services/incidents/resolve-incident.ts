import type { Prisma } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { recordAuditEvent, type Changes } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { toIncidentRecord, type IncidentRecord, incidentLookup } from './incident-record.js';
import { afterResolve, type LadderDeps } from './stop-ladder.js';
import { findOwn } from '../records.js';

/**
 * POST /incidents/{id}/resolve (member and above): open or acknowledged -> resolved, which stops the escalation
 * ladder and tells every target that was paged (the notices the status change wrote). Already resolved: a no-op
 * 200. For a monitor incident, `openMonitorId` is cleared (so the monitor can open a new incident) and the
 * monitor's flap state (its region rows) is reset, as when an incident is deleted: a new
 * incident needs `openThreshold` fresh failures, instead of reopening on the very next failed check.
 */
export async function resolveIncident(
  deps: LadderDeps,
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<IncidentRecord> {
  assertCan(ctx.role, 'incidents:respond');
  const { prisma } = deps;
  const before = await findOwn(prisma, ctx, incidentLookup, id);
  if (before.status !== 'resolved') {
    await prisma.$transaction(async (tx) => {
      const changes = await resolveInTx(tx, ctx, before);
      if (changes)
        await recordAuditEvent(tx, ctx, {
          resourceType: 'incident',
          resourceId: before.id,
          action: 'resolved',
          changes,
        });
    });
  }
  return toIncidentRecord(await afterResolve(deps, ctx, before));
}

/**
 * The writes of a resolve, in the caller's transaction (no audit event: the caller records its one): open or
 * acknowledged -> resolved, `openMonitorId` cleared, the monitor's flap state reset. Returns the changes for the
 * caller's event, or null when the incident was resolved already (by a concurrent write).
 */
export async function resolveInTx(
  tx: Prisma.TransactionClient,
  ctx: ServiceContext,
  before: { id: string; status: string; monitorId: string | null },
): Promise<Changes | null> {
  // The worker stores results with the monitor row locked, then reads and updates the open incident; taking
  // the same lock first keeps the counters and the incident consistent with a check that races this.
  if (before.monitorId)
    await tx.$queryRaw`SELECT 1 FROM monitors WHERE id = ${before.monitorId}::uuid FOR NO KEY UPDATE`;
  const { count } = await tx.incident.updateMany({
    where: { id: before.id, workspaceId: ctx.workspace.id, status: { in: ['open', 'acknowledged'] } },
    data: { status: 'resolved', resolvedAt: ctx.now, openMonitorId: null },
  });
  if (count === 0) return null;
  if (before.monitorId) {
    await tx.monitorRegionState.deleteMany({
      where: { monitorId: before.monitorId, monitor: { workspaceId: ctx.workspace.id } },
    });
  }
  return { status: { from: before.status, to: 'resolved' }, resolvedAt: { from: null, to: ctx.now.toISOString() } };
}
