import {
  type createMaintenanceSchema,
  recordMaintenanceTransitions,
  type CreateMaintenanceInput,
  type PrismaClient,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { atComponentIds, componentIdIssues } from '../components/own-components.js';
import type { BodyChecks } from '../validation.js';
import {
  maintenanceEventWindow,
  maintenanceRecordSelect,
  toMaintenanceRecord,
  type MaintenanceRecord,
} from './maintenance-record.js';

/** POST /maintenance: the components, judged with the schema (one 400 names every bad field). */
export const createMaintenanceChecks: BodyChecks<typeof createMaintenanceSchema, { prisma: PrismaClient }> = {
  noun: 'maintenance window',
  judge: async (deps, { ctx, issues, known }) => [
    ...issues,
    ...(await componentIdIssues(deps.prisma, ctx.workspace.id, atComponentIds(known('componentIds') ?? []))),
  ],
};

/**
 * POST /maintenance: a window over the given components (none: the whole workspace). A start in the past is
 * allowed (a deploy pipeline opens its window "now", which is already past when the row is written); the
 * returned status is whatever the clock makes it.
 */
export async function createMaintenance(
  deps: { prisma: PrismaClient },
  { ctx, input: m }: { ctx: ServiceContext; input: CreateMaintenanceInput },
): Promise<MaintenanceRecord> {
  assertCan(ctx.role, 'statusPages:manage');
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
