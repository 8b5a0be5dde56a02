import {
  ConflictError,
  NotFoundError,
  recordMaintenanceCancelled,
  recordMaintenanceTransitions,
  uuidSchema,
  type UpdateMaintenanceInput,
  type PrismaClient,
  type updateMaintenanceSchema,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import { assertOwnComponents, atComponentIds, componentIdIssues } from '../components/own-components.js';
import { failWith, type BodyChecks } from '../validation.js';
import {
  maintenanceEventWindow,
  maintenanceRecordSelect,
  toMaintenanceRecord,
  type MaintenanceRecord,
  maintenanceLookup,
} from './maintenance-record.js';
import { actionOutcome, isFinal, maintenanceStatus } from './maintenance-status.js';
import { findOwn } from '../records.js';

const FIELD_KEYS = ['title', 'body', 'startsAt', 'endsAt', 'componentIds'] as const;

/**
 * PATCH /maintenance/{id}: an action that contradicts a time, and the components, judged with the schema (one 400
 * names every bad field). The components are judged again in the write, against a concurrent delete.
 */
export const updateMaintenanceChecks: BodyChecks<typeof updateMaintenanceSchema, { prisma: PrismaClient }> = {
  noun: 'maintenance window',
  judge: async (deps, { ctx, issues, known }) => {
    const status = known('status');
    if (status === 'start' && known('startsAt'))
      issues.push({ path: 'startsAt', message: 'status "start" sets startsAt to now: send one or the other' });
    if (status === 'complete' && known('endsAt'))
      issues.push({ path: 'endsAt', message: 'status "complete" sets endsAt to now: send one or the other' });
    return [
      ...issues,
      ...(await componentIdIssues(deps.prisma, ctx.workspace.id, atComponentIds(known('componentIds') ?? []))),
    ];
  },
};

/**
 * PATCH /maintenance/{id}: only the given fields change; `status` is an action (start, complete, cancel) checked
 * against the window's status at `now` (see ACTION_TABLE). Rules:
 * - the fields of a completed or cancelled window cannot be edited (409): the public record is history;
 * - `start` sets startsAt = now, `complete` sets endsAt = now, `cancel` sets cancelledAt = now; sending the
 *   action together with the time it sets (start + startsAt, complete + endsAt) is contradictory (400);
 * - when the PATCH sends startsAt or endsAt, the result must still end after it starts (400 on a field that was
 *   sent). The actions alone cannot break that order, with one exception that is allowed on purpose: `complete`
 *   at the very millisecond the window started (exactly at startsAt, or in the same millisecond as a `start`)
 *   sets endsAt = now = startsAt, a zero-length window that is `completed`. Refusing it would answer 400 about a
 *   field the client never sent; moving startsAt back would rewrite when the work began.
 * The row is locked for the read-check-write, so two concurrent actions cannot both pass the table.
 */
export async function updateMaintenance(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; changes: UpdateMaintenanceInput } },
): Promise<MaintenanceRecord> {
  assertCan(ctx.role, 'statusPages:manage');
  const { id, changes: u } = input;
  const { now } = ctx;
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('maintenance window', id);

  return deps.prisma.$transaction(async (tx) => {
    // The If-Match check, and the row lock for the read-check-write below.
    await claimVersion(tx, ctx, 'maintenance_window', id);
    const current = await findOwn(tx, ctx, maintenanceLookup, id);
    const status = maintenanceStatus(current, now);

    const editsFields = FIELD_KEYS.some((k) => u[k] !== undefined);
    if (editsFields && isFinal(status)) {
      throw new ConflictError(`A ${status} maintenance window can no longer be edited`, { status });
    }

    let { startsAt, endsAt, cancelledAt } = current;
    let completedNow = false;
    if (u.startsAt) startsAt = u.startsAt;
    if (u.endsAt) endsAt = u.endsAt;
    if (u.status) {
      const outcome = actionOutcome(status, u.status);
      if (outcome === 'conflict') {
        throw new ConflictError(`Cannot ${u.status} a ${status} maintenance window`, { status, action: u.status });
      }
      if (outcome === 'apply') {
        if (u.status === 'start') startsAt = now;
        else if (u.status === 'complete') {
          endsAt = now;
          completedNow = true;
        } else cancelledAt = now;
      }
    }
    // Only times the client sent can put the end before the start; only `complete` may leave them equal.
    const outOfOrder = completedNow ? endsAt.getTime() < startsAt.getTime() : endsAt.getTime() <= startsAt.getTime();
    if ((u.startsAt || u.endsAt) && outOfOrder) {
      const path = u.endsAt ? 'endsAt' : 'startsAt';
      failWith('maintenance window', [
        {
          path,
          message: `the window must end after it starts (startsAt ${startsAt.toISOString()}, endsAt ${endsAt.toISOString()})`,
        },
      ]);
    }
    if (u.componentIds) await assertOwnComponents(tx, ctx.workspace.id, u.componentIds);

    const row = await tx.maintenanceWindow.update({
      where: { id: current.id },
      data: {
        ...(u.title !== undefined ? { title: u.title } : {}),
        ...(u.body !== undefined ? { body: u.body } : {}),
        startsAt,
        endsAt,
        cancelledAt,
        ...(u.componentIds
          ? {
              components: {
                deleteMany: {},
                create: [...new Set(u.componentIds)].map((componentId) => ({ componentId })),
              },
            }
          : {}),
      },
      select: maintenanceRecordSelect,
    });
    const record = toMaintenanceRecord(row, now);
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'maintenance_window',
      resourceId: row.id,
      changes: changesBetween(toMaintenanceRecord(current, now), record),
    });
    const window = maintenanceEventWindow(row, ctx.workspace.id);
    if (cancelledAt && !current.cancelledAt) await recordMaintenanceCancelled(tx, window);
    else await recordMaintenanceTransitions(tx, window, now);
    return { ...record, version: version ?? record.version };
  });
}
