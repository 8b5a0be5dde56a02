import { createMaintenanceSchema, recordMaintenanceTransitions, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { atComponentIds, componentIdIssues } from '../components/own-components.js';
import { judgeBody } from '../validation.js';
import {
  maintenanceEventWindow,
  maintenanceRecordSelect,
  toMaintenanceRecord,
  type MaintenanceRecord,
} from './maintenance-record.js';

/**
 * POST /maintenance: a window over the given components (none: the whole workspace). A start in the past is
 * allowed (a deploy pipeline opens its window "now", which is already past when the row is written); the
 * returned status is whatever the clock makes it.
 */
export async function createMaintenance(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: unknown },
): Promise<MaintenanceRecord> {
  assertCan(ctx.role, 'statusPages:manage');
  // The schema and the components judged together: one 400 names every bad field (services/validation.ts).
  const m = await judgeBody('maintenance window', createMaintenanceSchema, input, async (known) =>
    componentIdIssues(deps.prisma, ctx.workspace.id, atComponentIds(known('componentIds') ?? [])),
  );
  const componentIds = m.componentIds ?? [];

  // One transaction with `ctx.inTransaction` (the Idempotency-Key's stored answer): both commit or neither does.
  return deps.prisma.$transaction(async (tx) => {
    const row = await tx.maintenanceWindow.create({
      data: {
        workspaceId: ctx.workspace.id,
        title: m.title,
        body: m.body ?? '',
        startsAt: m.startsAt,
        endsAt: m.endsAt,
        components: { create: componentIds.map((componentId) => ({ componentId })) },
      },
      select: maintenanceRecordSelect,
    });
    const record = toMaintenanceRecord(row, ctx.now);
    // A window created already running (or over) has started (and completed) now.
    await recordMaintenanceTransitions(tx, maintenanceEventWindow(row, ctx.workspace.id), ctx.now);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'maintenance_window',
      resourceId: row.id,
      action: 'created',
      changes: changesBetween(null, record),
    });
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}
