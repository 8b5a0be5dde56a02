import { type manualIncidentInputSchema, type ManualIncidentInput, type PrismaClient } from '@statusvane/shared';
import { atComponentIds, componentIdIssues } from '../components/own-components.js';
import type { BodyChecks } from '../validation.js';
import type { ServiceContext } from '../context.js';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { incidentRecordSelect, toIncidentRecord, type ManualIncidentRecord } from './incident-record.js';

/** POST /incidents: the components, judged with the schema (one 400 names every offending field). */
export const manualIncidentChecks: BodyChecks<typeof manualIncidentInputSchema, { prisma: PrismaClient }> = {
  noun: 'incident',
  judge: async (deps, { ctx, issues, known }) => [
    ...issues,
    ...(await componentIdIssues(deps.prisma, ctx.workspace.id, atComponentIds(known('componentIds') ?? []))),
  ],
};

/**
 * POST /incidents (writers): a manual incident -> 201, `source: "manual"`, affecting `componentIds` (none: the
 * whole workspace, shown on every page); its first update (`investigating`) is `message` when given. Unknown,
 * foreign and repeated component ids are each a 400 at `componentIds[i]` (unknown and foreign read the same). One
 * insert writes the incident, its components and its first update.
 */
export async function createManualIncident(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: ManualIncidentInput },
): Promise<ManualIncidentRecord> {
  assertCan(ctx.role, 'incidents:respond');
  const { prisma } = deps;
  const ids = input.componentIds ?? [];
  // One transaction with `ctx.inTransaction` (the Idempotency-Key's stored answer): both commit or neither does.
  return prisma.$transaction(async (tx) => {
    const created = await tx.incident.create({
      data: {
        workspaceId: ctx.workspace.id,
        title: input.title,
        impact: input.impact,
        source: 'manual',
        startedAt: ctx.now,
        components: { create: ids.map((componentId) => ({ componentId })) },
        // At `startedAt` to the millisecond: how the subscriber sweep tells this opening message from later updates.
        ...(input.message
          ? { updates: { create: { status: 'investigating', message: input.message, createdAt: ctx.now } } }
          : {}),
      },
      select: incidentRecordSelect,
    });
    const record = { ...toIncidentRecord(created), componentIds: ids };
    await recordAuditEvent(tx, ctx, {
      resourceType: 'incident',
      resourceId: created.id,
      action: 'created',
      changes: changesBetween(null, { ...record, ...(input.message ? { message: input.message } : {}) }),
    });
    await ctx.inTransaction?.(tx, record);
    return record;
  });
}
