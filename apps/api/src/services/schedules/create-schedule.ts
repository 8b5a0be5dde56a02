import type { Prisma, PrismaClient } from '@statusvane/shared';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { assertScheduleUsers, type CreateScheduleInput } from './schedule-input.js';
import { layersCreate } from './schedule-layers.js';
import { scheduleRecordSelect, toScheduleRecord, type ScheduleRecord } from './schedule-record.js';

/**
 * POST /schedules (managers): a schedule with its layers in one transaction. Every member and the fallback must be a
 * member of the workspace (400).
 */
export async function createSchedule(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: CreateScheduleInput },
): Promise<ScheduleRecord> {
  assertCan(ctx.role, 'schedules:manage');
  await assertScheduleUsers(deps.prisma, ctx.workspace.id, input);
  return deps.prisma.$transaction(async (tx) => {
    const record = toScheduleRecord(await createScheduleInTx(tx, ctx.workspace.id, input));
    await recordAuditEvent(tx, ctx, {
      resourceType: 'schedule',
      resourceId: record.id,
      action: 'created',
      changes: changesBetween(null, record),
    });
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}

/** The writes of a create in the caller's transaction (users already judged; no audit): config/apply gives `ref`. */
export function createScheduleInTx(
  tx: Prisma.TransactionClient,
  workspaceId: string,
  input: CreateScheduleInput,
  ref: string | null = null,
) {
  return tx.schedule.create({
    data: {
      workspaceId,
      ref,
      name: input.name,
      timezone: input.timezone,
      fallbackUserId: input.fallbackUserId ?? null,
      layers: layersCreate(input.layers),
    },
    select: scheduleRecordSelect,
  });
}
