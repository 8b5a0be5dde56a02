import { loadScheduleSpec, NotFoundError, onCallAt, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { scheduleLookup, toOnCallRecord, usersById, type OnCallRecord } from './schedule-record.js';

/** GET /schedules/{id}/oncall?at=: who is on call at `at` (default now), by which layer or override, from when to when. */
export async function getOnCall(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; at?: Date | undefined } },
): Promise<OnCallRecord> {
  const found = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  const at = input.at ?? ctx.now;
  const schedule = await loadScheduleSpec(deps.prisma, ctx.workspace.id, found.id, at);
  if (!schedule) throw new NotFoundError('schedule', input.id);
  const now = onCallAt(schedule.spec, at);
  return toOnCallRecord(now, schedule.spec.layers, await usersById(deps.prisma, [now.userId]));
}
