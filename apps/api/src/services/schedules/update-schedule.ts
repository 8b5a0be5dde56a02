import type { Prisma, PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { assertScheduleUsers, type UpdateScheduleInput } from './schedule-input.js';
import { layersCreate } from './schedule-layers.js';
import { scheduleLookup, scheduleRecordSelect, toScheduleRecord, type ScheduleRecord } from './schedule-record.js';

/**
 * PATCH /schedules/{id} (managers): only the given fields change; `layers` replaces every layer (overrides stay).
 * If-Match; version + 1 and `schedule.updated` when something changed.
 */
export async function updateSchedule(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; changes: UpdateScheduleInput } },
): Promise<ScheduleRecord> {
  assertCan(ctx.role, 'schedules:manage');
  const current = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  await assertScheduleUsers(deps.prisma, ctx.workspace.id, input.changes);
  return deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'schedule', current.id); // If-Match, and the row locked
    const before = toScheduleRecord(
      await tx.schedule.findUniqueOrThrow({ where: { id: current.id }, select: scheduleRecordSelect }),
    );
    const after = toScheduleRecord(await updateScheduleInTx(tx, current.id, input.changes));
    // Layers compare by what they say, not by their new ids: the same layers sent again change nothing.
    const shown = (r: ScheduleRecord) => ({ ...r, layers: r.layers.map(({ id: _id, ...l }) => l) });
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'schedule',
      resourceId: current.id,
      changes: changesBetween(shown(before), shown(after)),
    });
    return { ...after, version: version ?? after.version };
  });
}

/** The writes of an update in the caller's transaction (claimed and judged by the caller; no audit). */
export async function updateScheduleInTx(tx: Prisma.TransactionClient, id: string, changes: UpdateScheduleInput) {
  if (changes.layers) await tx.scheduleLayer.deleteMany({ where: { scheduleId: id } });
  return tx.schedule.update({
    where: { id },
    data: {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.timezone !== undefined ? { timezone: changes.timezone } : {}),
      ...(changes.fallbackUserId !== undefined ? { fallbackUserId: changes.fallbackUserId } : {}),
      ...(changes.layers ? { layers: layersCreate(changes.layers) } : {}),
    },
    select: scheduleRecordSelect,
  });
}
