import type { Prisma, PrismaClient } from '@statusvane/shared';
import { changesBetween, recordAuditEvent, type WriteContext } from '../audit/record-write.js';
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
    const record = await createScheduleInTx(tx, ctx, input);
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}

/** The writes of a create in the caller's transaction (users already judged), audited; config/apply gives `ref`. */
export async function createScheduleInTx(
  tx: Prisma.TransactionClient,
  ctx: WriteContext,
  input: CreateScheduleInput,
  ref: string | null = null,
): Promise<ScheduleRecord> {
  const row = await tx.schedule.create({
    data: {
      workspaceId: ctx.workspace.id,
      ref,
      name: input.name,
      timezone: input.timezone,
      fallbackUserId: input.fallbackUserId ?? null,
      layers: layersCreate(input.layers),
    },
    select: scheduleRecordSelect,
  });
  const record = toScheduleRecord(row);
  await recordAuditEvent(tx, ctx, {
    resourceType: 'schedule',
    resourceId: row.id,
    action: 'created',
    changes: changesBetween(null, record),
  });
  return record;
}
