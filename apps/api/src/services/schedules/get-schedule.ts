import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { scheduleLookup, toScheduleRecord, type ScheduleRecord } from './schedule-record.js';

/** GET /schedules/{id}. */
export async function getSchedule(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string } },
): Promise<ScheduleRecord> {
  return toScheduleRecord(await findOwn(deps.prisma, ctx, scheduleLookup, input.id));
}
