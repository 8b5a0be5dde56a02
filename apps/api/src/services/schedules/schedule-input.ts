import {
  dateTimeInputSchema,
  isValidTimezone,
  minutesOf,
  ROTATION_UNITS,
  shownText,
  uuidInputSchema,
  WEEKDAYS,
  type Issue,
  type PrismaClient,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { failWith } from '../validation.js';

/** The limits of a schedule (docs/decisions.md, "On-call schedules"). */
export const SCHEDULE_LIMITS = {
  nameMax: 200,
  layersMax: 10,
  membersMax: 50,
  restrictionsMax: 20,
  everyMax: 365,
  /** GET /schedules/{id}/shifts and an override: at most this long. */
  rangeDaysMax: 90,
} as const;
const L = SCHEDULE_LIMITS;

const wallTime = z
  .string()
  .refine((s) => minutesOf(s) !== null, 'must be a time of day as HH:MM (00:00 to 23:59)')
  .openapi({ description: "`HH:MM` on the schedule's wall clock.", example: '09:00' });

const restrictionSchema = z
  .object({
    days: z
      .array(z.enum(WEEKDAYS))
      .min(1)
      .max(7)
      .refine((d) => new Set(d).size === d.length, 'Repeated day')
      .openapi({ description: 'The weekdays the window starts on.' }),
    from: wallTime,
    to: wallTime.openapi({
      description:
        'The window ends at `to` that day, or the next day when `to` is not after `from` (crossing midnight).',
    }),
  })
  .strict()
  .openapi('ScheduleRestriction');

const layerSchema = z
  .object({
    name: z.string().trim().min(1).max(L.nameMax).superRefine(shownText),
    startsAt: dateTimeInputSchema.meta({
      description: 'The first handoff: the first member is on call from here. Before it the layer has nobody.',
    }),
    rotation: z
      .object({ every: z.number().int().min(1).max(L.everyMax), unit: z.enum(ROTATION_UNITS) })
      .strict()
      .openapi({
        description:
          '`hours`: hands off every `every` hours of elapsed time from `startsAt`. `days` and `weeks`: at `handoffTime` on ' +
          "the schedule's wall clock, every `every` days or weeks after the date of `startsAt`, across daylight-saving changes.",
      }),
    handoffTime: wallTime,
    members: z
      .array(uuidInputSchema)
      .min(1)
      .max(L.membersMax)
      .openapi({ description: 'Users of the workspace in rotation order (one may appear more than once).' }),
    restrictions: z.array(restrictionSchema).max(L.restrictionsMax).optional().openapi({
      description:
        'When the layer has someone; omitted or empty: always. Outside them a lower layer (or nobody) answers.',
    }),
  })
  .strict()
  .openapi('ScheduleLayerInput');

const fields = {
  name: z.string().trim().min(1).max(L.nameMax).superRefine(shownText),
  timezone: z
    .string()
    .max(64)
    .refine(isValidTimezone, 'must be an IANA timezone such as Europe/Berlin')
    .openapi({ description: 'IANA timezone of the wall clock (handoffs, restrictions).', example: 'Europe/Berlin' }),
  fallbackUserId: uuidInputSchema.nullable().openapi({
    description: 'Paged when nobody is on call, or when the one on call has no contact method.',
  }),
  layers: z
    .array(layerSchema)
    .min(1)
    .max(L.layersMax)
    .openapi({ description: 'In order: a later layer wins wherever it has someone.' }),
};

export const createScheduleSchema = z
  .object({
    name: fields.name,
    timezone: fields.timezone,
    fallbackUserId: fields.fallbackUserId.optional(),
    layers: fields.layers,
  })
  .strict()
  .openapi('CreateScheduleInput');
export type CreateScheduleInput = z.output<typeof createScheduleSchema>;

export const updateScheduleSchema = z
  .object({
    name: fields.name.optional(),
    timezone: fields.timezone.optional(),
    fallbackUserId: fields.fallbackUserId.optional(),
    layers: fields.layers.optional().openapi({ description: 'Replaces every layer.' }),
  })
  .strict()
  .openapi('UpdateScheduleInput', { description: 'Only the provided fields change; `layers` replaces them all.' });
export type UpdateScheduleInput = z.output<typeof updateScheduleSchema>;

export const addOverrideSchema = z
  .object({
    userId: uuidInputSchema,
    startsAt: dateTimeInputSchema,
    endsAt: dateTimeInputSchema,
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.endsAt <= o.startsAt) ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'must be after startsAt' });
    else if (o.endsAt.getTime() - o.startsAt.getTime() > L.rangeDaysMax * 86_400_000)
      ctx.addIssue({
        code: 'custom',
        path: ['endsAt'],
        message: `must be at most ${L.rangeDaysMax} days after startsAt`,
      });
  })
  .openapi('AddScheduleOverrideInput');
export type AddOverrideInput = z.output<typeof addOverrideSchema>;

export const onCallQuerySchema = z
  .object({
    at: dateTimeInputSchema.optional().openapi({ description: 'The instant (ISO 8601 with an offset); default now.' }),
  })
  .strict();

export const shiftsQuerySchema = z
  .object({
    from: dateTimeInputSchema.optional().openapi({ description: 'Default now.' }),
    to: dateTimeInputSchema
      .optional()
      .openapi({ description: `Default \`from\` plus 14 days; at most ${L.rangeDaysMax} days after \`from\`.` }),
  })
  .strict();
export type ShiftsQuery = z.output<typeof shiftsQuerySchema>;

/** [from, to) of a shifts query: defaults, then `to` after `from` and at most 90 days after it (400). */
export function shiftsRange(query: ShiftsQuery, now: Date): { from: Date; to: Date } {
  const from = query.from ?? now;
  const to = query.to ?? new Date(from.getTime() + 14 * 86_400_000);
  if (to <= from) failWith('range', [{ path: 'to', message: 'must be after from' }]);
  if (to.getTime() - from.getTime() > L.rangeDaysMax * 86_400_000)
    failWith('range', [{ path: 'to', message: `must be at most ${L.rangeDaysMax} days after from` }]);
  return { from, to };
}

/**
 * Every user a schedule names (layer members, the fallback, an override's user) must be a member of the workspace: one 400 naming each
 * that is not (`layers[0].members[2]`, `fallbackUserId`, `userId`).
 */
export async function assertScheduleUsers(
  prisma: Pick<PrismaClient, 'membership'>,
  workspaceId: string,
  input: {
    fallbackUserId?: string | null | undefined;
    layers?: ReadonlyArray<{ members: readonly string[] }> | undefined;
    /** An override's user. */
    userId?: string | undefined;
  },
): Promise<void> {
  const named: Array<{ path: string; userId: string }> = [];
  if (input.userId) named.push({ path: 'userId', userId: input.userId });
  if (input.fallbackUserId) named.push({ path: 'fallbackUserId', userId: input.fallbackUserId });
  input.layers?.forEach((l, i) =>
    l.members.forEach((m, j) => named.push({ path: `layers[${i}].members[${j}]`, userId: m })),
  );
  if (named.length === 0) return;
  const members = await prisma.membership.findMany({
    where: { workspaceId, userId: { in: [...new Set(named.map((n) => n.userId))] } },
    select: { userId: true },
  });
  const known = new Set(members.map((m) => m.userId));
  const issues: Issue[] = named
    .filter((n) => !known.has(n.userId))
    .map((n) => ({ path: n.path, message: 'is not a member of this workspace' }));
  if (issues.length) failWith('schedule', issues);
}
