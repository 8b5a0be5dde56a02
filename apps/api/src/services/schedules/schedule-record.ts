import {
  ROTATION_UNITS,
  WEEKDAYS,
  scheduleSpecSelect,
  type Prisma,
  type PrismaClient,
  type Restriction,
  type Shift,
} from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

const layerRecordSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    startsAt: dateTime,
    rotation: z.object({ every: z.number().int(), unit: z.enum(ROTATION_UNITS) }),
    handoffTime: z.string().openapi({ example: '09:00' }),
    members: z.array(z.uuid()),
    restrictions: z.array(
      z
        .object({ days: z.array(z.enum(WEEKDAYS)), from: z.string(), to: z.string() })
        .openapi('ScheduleRestrictionRecord'),
    ),
  })
  .openapi('ScheduleLayer');

export const scheduleRecordSchema = z
  .object({
    id: z.uuid(),
    ref: z.string().nullable().openapi({
      description: 'The name a workspace document (`POST /config/apply`) manages the schedule by; null: not managed.',
    }),
    name: z.string(),
    timezone: z.string(),
    fallbackUserId: z.uuid().nullable(),
    layers: z.array(layerRecordSchema),
    calendarFeed: z.boolean().openapi({ description: 'A calendar feed URL is live (`POST .../calendar-token`).' }),
    version: versionSchema,
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .openapi('Schedule');
export type ScheduleRecord = z.infer<typeof scheduleRecordSchema>;

export const scheduleRecordSelect = {
  ...scheduleSpecSelect,
  ref: true,
  version: true,
  createdAt: true,
  updatedAt: true,
  calendarToken: { select: { id: true } },
} as const satisfies Prisma.ScheduleSelect;
export type ScheduleRow = Prisma.ScheduleGetPayload<{ select: typeof scheduleRecordSelect }>;

/** findOwn's lookup of one of the caller's schedules. */
export const scheduleLookup: OwnLookup<Pick<PrismaClient, 'schedule'>, ScheduleRow> = {
  noun: 'schedule',
  find: (db, where) => db.schedule.findFirst({ where, select: scheduleRecordSelect }),
};

export function toScheduleRecord(row: ScheduleRow): ScheduleRecord {
  return {
    id: row.id,
    ref: row.ref,
    name: row.name,
    timezone: row.timezone,
    fallbackUserId: row.fallbackUserId,
    layers: row.layers.map((l) => ({
      id: l.id,
      name: l.name,
      startsAt: l.startsAt.toISOString(),
      rotation: { every: l.rotationEvery, unit: l.rotationUnit },
      handoffTime: l.handoffTime,
      members: l.members,
      restrictions: (l.restrictions as unknown as Restriction[]).map((r) => ({
        days: [...r.days],
        from: r.from,
        to: r.to,
      })),
    })),
    calendarFeed: row.calendarToken !== null,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export const overrideRecordSchema = z
  .object({
    id: z.uuid(),
    scheduleId: z.uuid(),
    userId: z.uuid(),
    startsAt: dateTime,
    endsAt: dateTime,
    createdAt: dateTime,
  })
  .openapi('ScheduleOverride');
export type OverrideRecord = z.infer<typeof overrideRecordSchema>;

export const overrideSelect = {
  id: true,
  scheduleId: true,
  userId: true,
  startsAt: true,
  endsAt: true,
  createdAt: true,
} as const satisfies Prisma.ScheduleOverrideSelect;

export function toOverrideRecord(
  o: Prisma.ScheduleOverrideGetPayload<{ select: typeof overrideSelect }>,
): OverrideRecord {
  return {
    id: o.id,
    scheduleId: o.scheduleId,
    userId: o.userId,
    startsAt: o.startsAt.toISOString(),
    endsAt: o.endsAt.toISOString(),
    createdAt: o.createdAt.toISOString(),
  };
}

const userRefSchema = z.object({ id: z.uuid(), name: z.string().nullable(), email: z.string() }).openapi('OnCallUser');
type UserRef = z.infer<typeof userRefSchema>;

export const onCallRecordSchema = z
  .object({
    user: userRefSchema.nullable().openapi({ description: 'Who is on call; null: nobody (the fallback is paged).' }),
    layer: z.object({ id: z.uuid(), name: z.string() }).nullable(),
    override: z.uuid().nullable().openapi({ description: 'The override in force, if one decides.' }),
    from: dateTime.nullable().openapi({ description: 'When this shift (or gap) began; null: more than 90 days ago.' }),
    to: dateTime.nullable().openapi({ description: 'When it ends; null: not within 90 days.' }),
  })
  .openapi('OnCall');
export type OnCallRecord = z.infer<typeof onCallRecordSchema>;

export const scheduleOnCallRecordSchema = onCallRecordSchema
  .extend({ schedule: z.object({ id: z.uuid(), name: z.string(), timezone: z.string() }) })
  .openapi('ScheduleOnCall');
export type ScheduleOnCallRecord = z.infer<typeof scheduleOnCallRecordSchema>;

export const shiftRecordSchema = z
  .object({
    user: userRefSchema,
    layer: z.object({ id: z.uuid(), name: z.string() }).nullable(),
    override: z.uuid().nullable(),
    from: dateTime,
    to: dateTime,
  })
  .openapi('Shift');
export type ShiftRecord = z.infer<typeof shiftRecordSchema>;

/** The users a set of shifts names, by id (one query). */
export async function usersById(
  prisma: Pick<PrismaClient, 'user'>,
  ids: Iterable<string | null>,
): Promise<Map<string, UserRef>> {
  const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await prisma.user.findMany({
    where: { id: { in: wanted } },
    select: { id: true, name: true, email: true },
  });
  return new Map(rows.map((u) => [u.id, u]));
}

type LayerNames = ReadonlyArray<{ id: string; name: string }>;
const layerOf = (layers: LayerNames, id: string | null) => {
  const layer = id ? layers.find((l) => l.id === id) : undefined;
  return layer ? { id: layer.id, name: layer.name } : null;
};

/** The resolver's answer at an instant as the API shows it. */
export function toOnCallRecord(
  shift: Omit<Shift, 'from' | 'to'> & { from: Date | null; to: Date | null },
  layers: LayerNames,
  users: Map<string, UserRef>,
): OnCallRecord {
  return {
    user: (shift.userId && users.get(shift.userId)) || null,
    layer: layerOf(layers, shift.layerId),
    override: shift.overrideId,
    from: shift.from?.toISOString() ?? null,
    to: shift.to?.toISOString() ?? null,
  };
}

/** The resolved shifts as the API shows them: gaps left out (nobody is on call there). */
export function toShiftRecords(
  shifts: readonly Shift[],
  layers: LayerNames,
  users: Map<string, UserRef>,
): ShiftRecord[] {
  return shifts.flatMap((s) => {
    const user = s.userId ? users.get(s.userId) : undefined;
    if (!user) return [];
    return [
      {
        user,
        layer: layerOf(layers, s.layerId),
        override: s.overrideId,
        from: s.from.toISOString(),
        to: s.to.toISOString(),
      },
    ];
  });
}
