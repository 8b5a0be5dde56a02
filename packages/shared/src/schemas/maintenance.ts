import { z } from 'zod';

/** Limits from the spec, in one place (the OpenAPI document and the tests read them too). */
export const MAINTENANCE_LIMITS = {
  titleMax: 200,
  bodyMax: 4000,
  componentIdsMax: 200,
} as const;
const L = MAINTENANCE_LIMITS;

/** Derived from the clock; only `cancelled` is stored (as cancelledAt). */
export const MAINTENANCE_STATUSES = ['scheduled', 'in_progress', 'completed', 'cancelled'] as const;
export type MaintenanceStatus = (typeof MAINTENANCE_STATUSES)[number];

/** `status` in a PATCH is an action, not a state. */
export const MAINTENANCE_ACTIONS = ['start', 'complete', 'cancel'] as const;
export type MaintenanceAction = (typeof MAINTENANCE_ACTIONS)[number];

const title = z.string().trim().min(1).max(L.titleMax);
const body = z.string().max(L.bodyMax);
/** ISO 8601 with an offset (`Z` or `+02:00`); a time without one is ambiguous and refused. */
const dateTime = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset, e.g. 2026-05-01T10:00:00Z' })
  .transform((s) => new Date(s));
const componentIds = z.array(z.uuid()).max(L.componentIdsMax);

/** POST /maintenance. endsAt must be after startsAt; componentIds omitted or empty means the whole workspace. */
export const createMaintenanceSchema = z
  .object({
    title,
    body: body.optional(),
    startsAt: dateTime,
    endsAt: dateTime,
    componentIds: componentIds.optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    // Zod 4 runs object refinements even after a field failed (format issues do not abort): check the types.
    if (!(m.startsAt instanceof Date) || !(m.endsAt instanceof Date)) return;
    if (m.endsAt.getTime() <= m.startsAt.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'must be after startsAt' });
    }
  });
export type CreateMaintenanceInput = z.infer<typeof createMaintenanceSchema>;

/**
 * PATCH /maintenance/{id}: every field optional, only the given ones change. The rule "endsAt after startsAt"
 * is checked by the service on the window as it would be after the write (one side may come from the row).
 */
export const updateMaintenanceSchema = z
  .object({
    title: title.optional(),
    body: body.optional(),
    startsAt: dateTime.optional(),
    endsAt: dateTime.optional(),
    componentIds: componentIds.optional(),
    status: z.enum(MAINTENANCE_ACTIONS).optional(),
  })
  .strict();
export type UpdateMaintenanceInput = z.infer<typeof updateMaintenanceSchema>;
