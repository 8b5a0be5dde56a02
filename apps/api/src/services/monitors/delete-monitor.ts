import {
  followCommittedSchedule,
  NotFoundError,
  type CheckScheduler,
  type EscalationScheduler,
  type PrismaClient,
} from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwnIncident } from '../incidents/find-incident.js';
import { forgetDependency } from './monitor-dependencies.js';
import { requestNotices, stopLadder } from '../incidents/stop-ladder.js';
import { findOwnMonitor } from './get-monitor.js';

/**
 * DELETE /monitors/{id} (managers): in one transaction, its open or acknowledged incidents are resolved (they stay,
 * with `monitorId` null once the row is gone), its schedulers are removed (as a pause removes them: a Redis failure
 * rolls the delete back), and the monitor and its component go, which takes the component out of every status page
 * section and maintenance window and the ping URL with them. After the commit: the schedulers once more from the
 * committed state, and the resolved incidents' ladders stopped and notices requested, as a manual resolve does.
 */
export async function deleteMonitor(
  deps: { prisma: PrismaClient; scheduler: CheckScheduler; escalations?: EscalationScheduler | undefined },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'monitors:delete');
  const { prisma, scheduler } = deps;
  const monitor = await findOwnMonitor(prisma, ctx, id);
  const resolved = await prisma.$transaction(async (tx) => {
    // Lock order as resolve-incident.ts and the worker: the monitor row first, then its incidents.
    const locked = await tx.$queryRaw<unknown[]>`
      SELECT 1 FROM monitors WHERE id = ${monitor.id}::uuid AND "workspaceId" = ${ctx.workspace.id}::uuid FOR UPDATE`;
    if (locked.length === 0) throw new NotFoundError('monitor', id);
    const open = await tx.incident.findMany({
      where: { monitorId: monitor.id, workspaceId: ctx.workspace.id, status: { in: ['open', 'acknowledged'] } },
      select: { id: true, status: true },
    });
    if (open.length) {
      await tx.incident.updateMany({
        where: { id: { in: open.map((i) => i.id) } },
        data: { status: 'resolved', resolvedAt: ctx.now, openMonitorId: null },
      });
    }
    await forgetDependency(tx, { workspaceId: ctx.workspace.id, monitorId: monitor.id });
    await scheduler.unschedule(monitor.id);
    // The component owns the monitor (ON DELETE CASCADE): one delete takes both, their section and maintenance rows,
    // results and rollups; incidents keep their rows with monitorId set to null.
    await tx.component.deleteMany({ where: { id: monitor.componentId, workspaceId: ctx.workspace.id } });
    return open;
  });
  // Should Redis fail right here, the reconciler removes the schedulers of a missing monitor within a round.
  await followCommittedSchedule(scheduler, prisma, monitor.id).catch(() => undefined);
  for (const incident of resolved) {
    const row = await findOwnIncident(prisma, ctx, incident.id);
    if (incident.status === 'open')
      await stopLadder(prisma, deps.escalations, { ...row, workspaceId: ctx.workspace.id }, ctx.now);
    await requestNotices(prisma, deps.escalations, row.id, 'resolved');
  }
}
