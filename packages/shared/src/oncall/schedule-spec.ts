import type { Prisma, PrismaClient } from '../db/prisma.js';
import { ONCALL_HORIZON_MS, type Restriction, type ScheduleSpec } from './resolve-oncall.js';

/** What the resolver needs of a stored schedule: its zone, its layers in order, its overrides in creation order. */
export const scheduleSpecSelect = {
  id: true,
  name: true,
  timezone: true,
  fallbackUserId: true,
  layers: {
    orderBy: { position: 'asc' },
    select: {
      id: true,
      name: true,
      startsAt: true,
      rotationEvery: true,
      rotationUnit: true,
      handoffTime: true,
      members: true,
      restrictions: true,
    },
  },
} as const satisfies Prisma.ScheduleSelect;
type ScheduleSpecRow = Prisma.ScheduleGetPayload<{ select: typeof scheduleSpecSelect }>;

type OverrideRow = { id: string; userId: string; startsAt: Date; endsAt: Date };

/** The stored schedule as the resolver's input. */
export function toScheduleSpec(row: ScheduleSpecRow, overrides: readonly OverrideRow[]): ScheduleSpec {
  return {
    timezone: row.timezone,
    layers: row.layers.map((l) => ({
      id: l.id,
      name: l.name,
      startsAt: l.startsAt,
      rotation: { every: l.rotationEvery, unit: l.rotationUnit },
      handoffTime: l.handoffTime,
      members: l.members,
      restrictions: l.restrictions as unknown as Restriction[],
    })),
    overrides,
  };
}

/**
 * The overrides that can matter within [from, to) (and ONCALL_HORIZON_MS around it, where onCallAt looks), oldest
 * created first: the resolver lets a later one win.
 */
export function overridesWithin(
  db: Pick<PrismaClient, 'scheduleOverride'>,
  scheduleIds: readonly string[],
  from: Date,
  to: Date,
) {
  return db.scheduleOverride.findMany({
    where: {
      scheduleId: { in: [...scheduleIds] },
      endsAt: { gt: new Date(from.getTime() - ONCALL_HORIZON_MS) },
      startsAt: { lt: new Date(to.getTime() + ONCALL_HORIZON_MS) },
    },
    select: { id: true, scheduleId: true, userId: true, startsAt: true, endsAt: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/**
 * One schedule of a workspace (null: none such) as the resolver reads it, with the overrides that matter within
 * [from, to): what the worker pages with and the handoff sweep compares.
 */
export async function loadScheduleSpec(
  db: Pick<PrismaClient, 'schedule' | 'scheduleOverride'>,
  workspaceId: string,
  scheduleId: string,
  from: Date,
  to: Date = from,
): Promise<{ id: string; name: string; fallbackUserId: string | null; spec: ScheduleSpec } | null> {
  const row = await db.schedule.findFirst({ where: { id: scheduleId, workspaceId }, select: scheduleSpecSelect });
  if (!row) return null;
  const overrides = await overridesWithin(db, [row.id], from, to);
  return { id: row.id, name: row.name, fallbackUserId: row.fallbackUserId, spec: toScheduleSpec(row, overrides) };
}
