import { z } from 'zod';
import { dateTimeInputSchema, isStorableInstant, uuidInputSchema } from './input-fields.js';
import { shownText } from './shown-text.js';

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

const title = z.string().trim().min(1).max(L.titleMax).superRefine(shownText);
const body = z.string().max(L.bodyMax);
/** ISO 8601 with an offset, within the storable range (years 1 to 9999 in UTC). */
const dateTime = dateTimeInputSchema;
/** Lower-cased, so an upper-case spelling of one of the workspace's ids matches the stored id. */
const componentIds = z.array(uuidInputSchema).max(L.componentIdsMax);

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
    // Zod 4 runs object refinements even after a field failed (format and range issues do not abort): compare
    // only two valid instants, so a field that failed is named once, for its own reason.
    if (!isStorableInstant(m.startsAt) || !isStorableInstant(m.endsAt)) return;
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
