import { MAINTENANCE_STATUSES, type Prisma, type PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';
import { componentRefSchema } from '../components/component-ref.js';
import { maintenanceStatus } from './maintenance-status.js';

export const maintenanceRecordSchema = z
  .object({
    id: z.uuid(),
    version: versionSchema,
    title: z.string().openapi({ description: 'Headline customers see.' }),
    body: z.string().openapi({ description: 'Public explanation.' }),
    status: z.enum(MAINTENANCE_STATUSES).openapi({
      description:
        'Derived from the clock: `scheduled` while now < startsAt, `in_progress` while startsAt <= now < endsAt, `completed` ' +
        'from endsAt on. Only `cancelled` is stored.',
    }),
    startsAt: dateTime,
    endsAt: dateTime,
    components: z
      .array(componentRefSchema)
      .openapi({ description: 'Components the window affects. Empty means the whole workspace.' }),
  })
  .openapi('MaintenanceWindow');
export type MaintenanceRecord = z.infer<typeof maintenanceRecordSchema>;

export const maintenanceRecordSelect = {
  id: true,
  version: true,
  title: true,
  body: true,
  startsAt: true,
  endsAt: true,
  cancelledAt: true,
  components: {
    select: { component: { select: { id: true, name: true } } },
    orderBy: [{ component: { name: 'asc' } }, { componentId: 'asc' }],
  },
} satisfies Prisma.MaintenanceWindowSelect;

export type MaintenanceRow = Prisma.MaintenanceWindowGetPayload<{ select: typeof maintenanceRecordSelect }>;

/** findOwn's lookup of one of the caller's maintenance windows. */
export const maintenanceLookup: OwnLookup<Pick<PrismaClient, 'maintenanceWindow'>, MaintenanceRow> = {
  noun: 'maintenance window',
  find: (db, where) => db.maintenanceWindow.findFirst({ where, select: maintenanceRecordSelect }),
};

/** The public maintenance record; `status` is derived from `now` (only cancellation is stored). */
export function toMaintenanceRecord(row: MaintenanceRow, now: Date): MaintenanceRecord {
  return {
    id: row.id,
    version: row.version,
    title: row.title,
    body: row.body,
    status: maintenanceStatus(row, now),
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    components: row.components.map((c) => ({ id: c.component.id, name: c.component.name })),
  };
}

/** What the maintenance.* events carry, from the same row. */
export const maintenanceEventWindow = (row: MaintenanceRow, workspaceId: string) => ({
  id: row.id,
  workspaceId,
  title: row.title,
  startsAt: row.startsAt,
  endsAt: row.endsAt,
  cancelledAt: row.cancelledAt,
  componentIds: row.components.map((c) => c.component.id),
});
