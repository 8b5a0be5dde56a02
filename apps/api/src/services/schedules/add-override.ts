import type { PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { assertMayOverride } from './override-rules.js';
import { assertScheduleUsers, type AddOverrideInput } from './schedule-input.js';
import { overrideSelect, scheduleLookup, toOverrideRecord, type OverrideRecord } from './schedule-record.js';

/**
 * POST /schedules/{id}/overrides (managers, or a writer for themselves) -> 201: `userId` is on call from `startsAt`
 * to `endsAt` whatever the layers say; where overrides overlap, the newest wins. The user must be a member (400).
 * Recorded on the schedule (`schedule.override_added`, version + 1).
 */
export async function addOverride(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; override: AddOverrideInput } },
): Promise<OverrideRecord> {
  assertMayOverride(ctx, input.override.userId);
  const schedule = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  await assertScheduleUsers(deps.prisma, ctx.workspace.id, { userId: input.override.userId });
  return deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, { ...ctx, ifMatch: undefined }, 'schedule', schedule.id);
    const row = await tx.scheduleOverride.create({
      data: { scheduleId: schedule.id, ...input.override, createdAt: ctx.now },
      select: overrideSelect,
    });
    const record = toOverrideRecord(row);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'schedule',
      resourceId: schedule.id,
      action: 'override_added',
      changes: changesBetween(null, { override: record }),
    });
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}
