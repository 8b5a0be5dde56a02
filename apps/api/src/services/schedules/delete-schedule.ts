import { ConflictError, type Prisma, type PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent, type WriteContext } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { scheduleLookup, toScheduleRecord } from './schedule-record.js';

/**
 * DELETE /schedules/{id} (managers) -> 204: its layers, overrides and calendar feed go with it. A schedule that a live
 * escalation policy pages is refused (409, naming the policies): paging would silently lose it. (A ladder pinned to
 * an archived policy that names it records `schedule_not_found` when the step fires.)
 */
export async function deleteSchedule(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'schedules:manage');
  const schedule = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'schedule', schedule.id); // If-Match, and the row locked
    const before = toScheduleRecord(await findOwn(tx, ctx, scheduleLookup, schedule.id));
    await deleteScheduleInTx(tx, ctx, schedule.id);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'schedule',
      resourceId: schedule.id,
      action: 'deleted',
      changes: changesBetween(before, null),
    });
  });
}

/** The delete in the caller's transaction (no audit): 409 while a live policy of the workspace pages the schedule. */
export async function deleteScheduleInTx(tx: Prisma.TransactionClient, ctx: WriteContext, id: string): Promise<void> {
  // A schedule target is shown (and stored beside its ciphertext) as the schedule's id.
  const pagedBy = await tx.escalationPolicy.findMany({
    where: {
      workspaceId: ctx.workspace.id,
      archivedAt: null,
      steps: { some: { targets: { some: { channel: 'schedule', display: id } } } },
    },
    select: { id: true, name: true },
    orderBy: { name: 'asc' },
  });
  if (pagedBy.length)
    throw new ConflictError(
      `The schedule is paged by escalation policies: ${pagedBy.map((p) => `"${p.name}" (${p.id})`).join(', ')}; ` +
        'remove it from their steps first',
    );
  await tx.schedule.delete({ where: { id } });
}
