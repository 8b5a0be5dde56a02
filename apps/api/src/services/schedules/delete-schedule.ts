import type { PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { scheduleLookup, toScheduleRecord } from './schedule-record.js';

/**
 * DELETE /schedules/{id} (managers) -> 204: its layers, overrides and calendar feed go with it. A policy step that
 * names it records `schedule_not_found` when it fires (and pages its other targets).
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
    await tx.schedule.delete({ where: { id: schedule.id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'schedule',
      resourceId: schedule.id,
      action: 'deleted',
      changes: changesBetween(before, null),
    });
  });
}
