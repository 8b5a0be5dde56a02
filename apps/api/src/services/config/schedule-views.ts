import type { CreateScheduleInput } from '../schedules/schedule-input.js';
import { toScheduleRecord, type ScheduleRow } from '../schedules/schedule-record.js';
import type { View } from './config-schema.js';

/** A stored schedule as the document sees it: its record without ids, versions and times of its own. */
export function storedScheduleView(row: ScheduleRow): View {
  const record = toScheduleRecord(row);
  return {
    name: record.name,
    timezone: record.timezone,
    fallbackUserId: record.fallbackUserId,
    layers: record.layers.map(({ id: _id, ...layer }) => layer),
  };
}

/** The schedule the document asks for, in the stored view's shape (instants as ISO strings, no restriction: []). */
export function desiredScheduleView(input: CreateScheduleInput): View {
  return {
    name: input.name,
    timezone: input.timezone,
    fallbackUserId: input.fallbackUserId ?? null,
    layers: input.layers.map((l) => ({
      name: l.name,
      startsAt: l.startsAt.toISOString(),
      rotation: { every: l.rotation.every, unit: l.rotation.unit },
      handoffTime: l.handoffTime,
      members: l.members,
      restrictions: l.restrictions ?? [],
    })),
  };
}

/** The document entry of a stored schedule: no fallback and no restrictions left out, as a person would write it. */
export function exportedSchedule(ref: string, view: View): View {
  const entry: View = { ref, name: view.name, timezone: view.timezone };
  if (view.fallbackUserId !== null) entry.fallbackUserId = view.fallbackUserId;
  entry.layers = (view.layers as Array<{ restrictions: unknown[] }>).map(({ restrictions, ...layer }) =>
    restrictions.length ? { ...layer, restrictions } : layer,
  );
  return entry;
}
