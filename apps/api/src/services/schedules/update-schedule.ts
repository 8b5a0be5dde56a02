import type { Prisma, PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordUpdate, type WriteContext } from '../audit/record-write.js';
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
  return deps.prisma.$transaction((tx) => updateScheduleInTx(tx, ctx, current.id, input.changes));
}

/** The writes of an update in the caller's transaction (users already judged): claim, write, audit. */
export async function updateScheduleInTx(
  tx: Prisma.TransactionClient,
  ctx: WriteContext,
  id: string,
  changes: UpdateScheduleInput,
  ref?: string | null,
): Promise<ScheduleRecord> {
  await claimVersion(tx, ctx, 'schedule', id); // If-Match, and the row locked
  const before = toScheduleRecord(await tx.schedule.findUniqueOrThrow({ where: { id }, select: scheduleRecordSelect }));
  if (changes.layers) await tx.scheduleLayer.deleteMany({ where: { scheduleId: id } });
  const row = await tx.schedule.update({
    where: { id },
    data: {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.timezone !== undefined ? { timezone: changes.timezone } : {}),
      ...(changes.fallbackUserId !== undefined ? { fallbackUserId: changes.fallbackUserId } : {}),
      ...(changes.layers ? { layers: layersCreate(changes.layers) } : {}),
      ...(ref !== undefined ? { ref } : {}),
    },
    select: scheduleRecordSelect,
  });
  const after = toScheduleRecord(row);
  // Layers compare by what they say, not by their new ids: the same layers sent again change nothing.
  const shown = (r: ScheduleRecord) => ({ ...r, layers: r.layers.map(({ id: _id, ...l }) => l) });
  const version = await recordUpdate(tx, ctx, {
    resourceType: 'schedule',
    resourceId: id,
    changes: changesBetween(shown(before), shown(after)),
  });
  return { ...after, version: version ?? after.version };
}
