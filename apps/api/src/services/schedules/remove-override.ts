import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { assertMayOverride } from './override-rules.js';
import { overrideSelect, scheduleLookup, toOverrideRecord } from './schedule-record.js';

/**
 * DELETE /schedules/{id}/overrides/{overrideId} (managers, or a writer for their own) -> 204. If-Match applies to the
 * schedule; recorded on it (`schedule.override_removed`, version + 1).
 */
export async function removeOverride(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; overrideId: string } },
): Promise<void> {
  const schedule = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  if (!uuidSchema.safeParse(input.overrideId).success) throw new NotFoundError('override', input.overrideId);
  const override = await deps.prisma.scheduleOverride.findFirst({
    where: { id: input.overrideId, scheduleId: schedule.id },
    select: overrideSelect,
  });
  if (!override) throw new NotFoundError('override', input.overrideId);
  assertMayOverride(ctx, override.userId);
  await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'schedule', schedule.id); // If-Match, and the row locked
    const { count } = await tx.scheduleOverride.deleteMany({ where: { id: override.id } });
    if (count === 0) throw new NotFoundError('override', input.overrideId);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'schedule',
      resourceId: schedule.id,
      action: 'override_removed',
      changes: changesBetween({ override: toOverrideRecord(override) }, null),
    });
  });
}
