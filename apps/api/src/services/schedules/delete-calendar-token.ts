import { NotFoundError, type PrismaClient } from '@statusvane/shared';
import { claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { scheduleLookup } from './schedule-record.js';

/** DELETE /schedules/{id}/calendar-token (managers) -> 204: the feed URL answers 404 from now on; none: 404. */
export async function deleteCalendarToken(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<void> {
  assertCan(ctx.role, 'schedules:manage');
  const schedule = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'schedule', schedule.id); // If-Match, and the row locked
    const { count } = await tx.calendarToken.deleteMany({ where: { scheduleId: schedule.id } });
    if (count === 0) throw new NotFoundError('calendar feed', schedule.id);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'schedule',
      resourceId: schedule.id,
      action: 'calendar_token_revoked',
      changes: { calendarFeed: { from: true, to: false } },
    });
  });
}
