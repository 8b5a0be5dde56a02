import type { Prisma } from '@statusvane/shared';
import { maintenanceStatus } from './maintenance-status.js';

export const maintenanceRecordSelect = {
  id: true,
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

/** The public maintenance record; `status` is derived from `now` (only cancellation is stored). */
export function toMaintenanceRecord(row: MaintenanceRow, now: Date) {
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    status: maintenanceStatus(row, now),
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    components: row.components.map((c) => ({ id: c.component.id, name: c.component.name })),
  };
}
export type MaintenanceRecord = ReturnType<typeof toMaintenanceRecord>;
