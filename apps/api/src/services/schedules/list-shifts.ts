import { loadScheduleSpec, NotFoundError, resolveShifts, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { shiftsRange, type ShiftsQuery } from './schedule-input.js';
import { scheduleLookup, toShiftRecords, usersById, type ShiftRecord } from './schedule-record.js';

/**
 * GET /schedules/{id}/shifts?from&to (at most 90 days): the resolved shifts in order, cut to the range, each one
 * person's stretch (overrides and restrictions applied); gaps, when nobody is on call, are left out.
 */
export async function listShifts(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: ShiftsQuery } },
): Promise<ShiftRecord[]> {
  const found = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  const { from, to } = shiftsRange(input.query, ctx.now);
  const schedule = await loadScheduleSpec(deps.prisma, ctx.workspace.id, found.id, from, to);
  if (!schedule) throw new NotFoundError('schedule', input.id);
  const shifts = resolveShifts(schedule.spec, from, to);
  return toShiftRecords(
    shifts,
    schedule.spec.layers,
    await usersById(
      deps.prisma,
      shifts.map((s) => s.userId),
    ),
  );
}
