import {
  NotFoundError,
  type Config,
  type EscalationScheduler,
  type Logger,
  type Prisma,
  type PrismaClient,
  recordEvents,
} from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { forgetDependency } from './monitor-dependencies.js';
import { afterMonitorsRemoved } from '../incidents/stop-ladder.js';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { monitorRecordSelect, monitorSettings, monitorLookup } from './monitor-record.js';
import { findOwn } from '../records.js';

/** An incident a monitor delete resolved, for `afterMonitorsRemoved`. */
export interface ResolvedByDelete {
  id: string;
  status: 'open' | 'acknowledged' | 'resolved';
}

/**
 * In the caller's transaction: locks the monitor, resolves its open or acknowledged incidents (they stay, with
 * `monitorId` null once the row is gone) and deletes the monitor with its component, which takes the component out
 * of every status page section and maintenance window and the ping URL with them. Shared by `DELETE /monitors/{id}`
 * and `config/apply` (prune).
 */
export async function removeMonitorInTx(
  tx: Prisma.TransactionClient,
  ctx: ServiceContext,
  monitor: { id: string; componentId: string; name: string },
): Promise<ResolvedByDelete[]> {
  // Lock order as resolve-incident.ts and the worker: the monitor row first, then its incidents.
  const locked = await tx.$queryRaw<unknown[]>`
    SELECT 1 FROM monitors WHERE id = ${monitor.id}::uuid AND "workspaceId" = ${ctx.workspace.id}::uuid FOR UPDATE`;
  if (locked.length === 0) throw new NotFoundError('monitor', monitor.id);
  const open = await tx.incident.findMany({
    where: { monitorId: monitor.id, workspaceId: ctx.workspace.id, status: { in: ['open', 'acknowledged'] } },
    select: { id: true, status: true },
  });
  if (open.length) {
    await tx.incident.updateMany({
      where: { id: { in: open.map((i) => i.id) } },
      data: { status: 'resolved', resolvedAt: ctx.now, openMonitorId: null, version: { increment: 1 } },
    });
  }
  await recordEvents(tx, [
    {
      workspaceId: ctx.workspace.id,
      type: 'monitor.deleted',
      subject: `monitors/${monitor.id}`,
      data: { monitor: { id: monitor.id, name: monitor.name } },
    },
  ]);
  await forgetDependency(tx, { workspaceId: ctx.workspace.id, monitorId: monitor.id });
  // The status pages whose sections and the maintenance windows whose components held the component change with it.
  await tx.$executeRaw`
    UPDATE status_pages SET version = version + 1
     WHERE "workspaceId" = ${ctx.workspace.id}::uuid AND id IN (
       SELECT s."statusPageId" FROM status_page_sections s JOIN section_components c ON c."sectionId" = s.id
        WHERE c."componentId" = ${monitor.componentId}::uuid)`;
  await tx.$executeRaw`
    UPDATE maintenance_windows SET version = version + 1
     WHERE "workspaceId" = ${ctx.workspace.id}::uuid AND id IN (
       SELECT "maintenanceId" FROM maintenance_components WHERE "componentId" = ${monitor.componentId}::uuid)`;
  // The component owns the monitor (ON DELETE CASCADE): one delete takes both, their section and maintenance rows,
  // results and rollups; incidents keep their rows with monitorId set to null.
  await tx.component.deleteMany({ where: { id: monitor.componentId, workspaceId: ctx.workspace.id } });
  return open;
}

/**
 * DELETE /monitors/{id} (managers): in one transaction, the monitor goes as removeMonitorInTx says; then
 * afterMonitorsRemoved. Nothing in Redis: its partitions' jobs read their members at run time.
 */
export async function deleteMonitor(
  deps: {
    prisma: PrismaClient;
    config: Pick<Config, 'publicBaseUrl' | 'checkRegions'>;
    escalations?: EscalationScheduler | undefined;
    logger: Logger;
  },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'monitors:delete');
  const { prisma } = deps;
  const monitor = await findOwn(prisma, ctx, monitorLookup, id);
  const resolved = await prisma.$transaction(async (tx) => {
    // (claimVersion locks the monitor row first, with the If-Match check: the lock order removeMonitorInTx keeps.)
    await claimVersion(tx, ctx, 'monitor', monitor.id);
    const before = await tx.monitor.findUniqueOrThrow({ where: { id: monitor.id }, select: monitorRecordSelect });
    const open = await removeMonitorInTx(tx, ctx, monitor);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'monitor',
      resourceId: monitor.id,
      action: 'deleted',
      changes: changesBetween(monitorSettings(before, deps.config), null),
    });
    return open;
  });
  // Nothing in Redis: its partitions' jobs read the monitors at run time (docs/adr/0020-partitioned-scheduling.md),
  // and the reconciler removes a partition left empty.
  await afterMonitorsRemoved(deps, ctx, resolved);
}
