/**
 * Who is on call: one pure module (no database, no clock of its own) that the API (`/oncall`, `/shifts`, the
 * iCalendar feed) and the worker (schedule targets, handoff notices) all use, so they cannot disagree.
 *
 * The rules (beyond-the-seed section 10, docs/decisions.md "On-call schedules"):
 * - A layer's first handoff is `startsAt`; before it the layer has nobody. Period k is `members[k % n]`'s.
 * - `hours` rotations hand off every `every` hours of elapsed time from `startsAt` (a daylight-saving change does not
 *   move them). `days` and `weeks` rotations hand off at `handoffTime` on the schedule's wall clock, on the local date
 *   of `startsAt` plus k times the rotation's length in days.
 * - A wall-clock time names the first instant at which the schedule's clock reads that time or later on that date:
 *   02:30 on a night the clock jumps from 02:00 to 03:00 is 03:00; 01:30 on a night it falls back from 02:00 to 01:00
 *   is the first 01:30. Handoffs and restriction windows both follow this one rule.
 * - Restrictions: a layer has someone only inside one of its windows. A window starts on each listed weekday at
 *   `from` and ends at `to` that day, or the next day when `to` is not after `from` (it crosses midnight; `from` equal
 *   to `to` is a whole day).
 * - A later layer wins wherever it has someone; overrides win over layers, and among overlapping overrides the one
 *   listed last (created last) wins.
 */
import { DateTime, IANAZone } from 'luxon';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const ROTATION_UNITS = ['hours', 'days', 'weeks'] as const;
export type RotationUnit = (typeof ROTATION_UNITS)[number];

export interface Restriction {
  days: readonly Weekday[];
  /** `HH:MM` on the schedule's wall clock. */
  from: string;
  to: string;
}

export interface LayerSpec {
  id: string;
  name: string;
  startsAt: Date;
  rotation: { every: number; unit: RotationUnit };
  handoffTime: string;
  members: readonly string[];
  restrictions?: readonly Restriction[] | undefined;
}

export interface OverrideSpec {
  id: string;
  userId: string;
  startsAt: Date;
  endsAt: Date;
}

export interface ScheduleSpec {
  timezone: string;
  /** In order: a later layer wins. */
  layers: readonly LayerSpec[];
  /** In creation order: a later override wins where they overlap. */
  overrides: readonly OverrideSpec[];
}

/** A stretch of time with one answer; `userId` null is a gap (nobody on call). */
export interface Shift {
  userId: string | null;
  layerId: string | null;
  overrideId: string | null;
  from: Date;
  to: Date;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const isValidTimezone = (zone: string): boolean => IANAZone.isValidZone(zone);

/** `HH:MM` (00:00 to 23:59) as minutes of the day, or null. */
export function minutesOf(hhmm: string): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(hhmm);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** A local calendar date, as days since 1970-01-01 (its weekday and arithmetic are then plain integers). */
type LocalDay = number;
const weekdayOf = (day: LocalDay): Weekday => WEEKDAYS[(((day + 3) % 7) + 7) % 7]!; // 1970-01-01 was a Thursday

function localDayOf(zone: IANAZone, t: number): LocalDay {
  const local = t + zone.offset(t) * MINUTE;
  return Math.floor(local / DAY);
}

/**
 * The first instant at which the clock of `zone` reads `minutes` past midnight of `day`, or later (see the module
 * rules). An existing time that occurs twice: its first occurrence. A time the clock skips: the end of the jump.
 */
export function wallInstant(zone: IANAZone, day: LocalDay, minutes: number): number {
  const wall = day * DAY + minutes * MINUTE; // the wall reading, written as if it were UTC
  // Every offset in force within a day either side: a zone changes offset at most once in that span.
  const offsets = new Set([zone.offset(wall - 2 * DAY), zone.offset(wall), zone.offset(wall + 2 * DAY)]);
  let best: number | null = null;
  for (const o of offsets) {
    const t = wall - o * MINUTE;
    if (zone.offset(t) === o && (best === null || t < best)) best = t;
  }
  if (best !== null) return best;
  // Skipped: the first instant whose reading is past `wall` is the jump itself. Between the reading's two offsets
  // lies the transition; search it to the minute (offsets change on whole minutes).
  const sorted = [...offsets].sort((a, b) => a - b);
  let lo = Math.floor((wall - sorted.at(-1)! * MINUTE) / MINUTE); // reads before `wall`
  let hi = Math.ceil((wall - sorted[0]! * MINUTE) / MINUTE); // reads at or after it
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const t = mid * MINUTE;
    if (t + zone.offset(t) * MINUTE >= wall) hi = mid;
    else lo = mid;
  }
  return hi * MINUTE;
}

interface Span {
  from: number;
  to: number;
}
interface Owned extends Span {
  userId: string;
}

/** The layer's rotation periods that meet [from, to), each with its member (before `startsAt`: none). */
function rotationPeriods(zone: IANAZone, layer: LayerSpec, from: number, to: number): Owned[] {
  const start = layer.startsAt.getTime();
  const n = layer.members.length;
  const out: Owned[] = [];
  if (n === 0 || to <= start) return out;
  const push = (k: number, a: number, b: number) => {
    const lo = Math.max(a, from);
    const hi = Math.min(b, to);
    if (hi > lo) out.push({ from: lo, to: hi, userId: layer.members[k % n]! });
  };
  if (layer.rotation.unit === 'hours') {
    const period = layer.rotation.every * HOUR;
    for (let k = Math.max(0, Math.floor((from - start) / period)); start + k * period < to; k++) {
      push(k, start + k * period, start + (k + 1) * period);
    }
    return out;
  }
  const len = layer.rotation.every * (layer.rotation.unit === 'weeks' ? 7 : 1);
  const handoff = minutesOf(layer.handoffTime) ?? 0;
  const day0 = localDayOf(zone, start);
  const handoffAt = (k: number) => (k === 0 ? start : wallInstant(zone, day0 + k * len, handoff));
  let k = Math.max(0, Math.floor((localDayOf(zone, from) - day0) / len) - 1);
  let a = handoffAt(k);
  while (a < to) {
    const b = handoffAt(k + 1);
    if (b > a) push(k, a, b);
    k++;
    a = Math.max(a, b);
  }
  return out;
}

/** The union of the restriction windows that meet [from, to), sorted and merged. */
function restrictionWindows(zone: IANAZone, restrictions: readonly Restriction[], from: number, to: number): Span[] {
  const spans: Span[] = [];
  const last = localDayOf(zone, to);
  for (let day = localDayOf(zone, from) - 1; day <= last; day++) {
    for (const r of restrictions) {
      if (!r.days.includes(weekdayOf(day))) continue;
      const a = minutesOf(r.from) ?? 0;
      const b = minutesOf(r.to) ?? 0;
      const start = wallInstant(zone, day, a);
      const end = wallInstant(zone, b > a ? day : day + 1, b);
      if (end > from && start < to && end > start) spans.push({ from: Math.max(start, from), to: Math.min(end, to) });
    }
  }
  spans.sort((x, y) => x.from - y.from);
  const merged: Span[] = [];
  for (const s of spans) {
    const prev = merged.at(-1);
    if (prev && s.from <= prev.to) prev.to = Math.max(prev.to, s.to);
    else merged.push({ ...s });
  }
  return merged;
}

/** The layer's own stretches within [from, to): its rotation, cut to its restriction windows. */
function layerStretches(zone: IANAZone, layer: LayerSpec, from: number, to: number): Owned[] {
  const periods = rotationPeriods(zone, layer, from, to);
  if (!layer.restrictions?.length) return periods;
  const windows = restrictionWindows(zone, layer.restrictions, from, to);
  const out: Owned[] = [];
  let w = 0;
  for (const p of periods) {
    while (w < windows.length && windows[w]!.to <= p.from) w++;
    for (let i = w; i < windows.length && windows[i]!.from < p.to; i++) {
      const lo = Math.max(p.from, windows[i]!.from);
      const hi = Math.min(p.to, windows[i]!.to);
      if (hi > lo) out.push({ from: lo, to: hi, userId: p.userId });
    }
  }
  return out;
}

function zoneOf(timezone: string): IANAZone {
  const zone = IANAZone.create(timezone);
  if (!zone.isValid) throw new RangeError(`unknown timezone ${timezone}`);
  return zone;
}

/**
 * Every stretch of [from, to) in order, gaps included (`userId` null), each as long as its answer holds within the
 * range; neighbours always differ in user, layer or override.
 */
export function resolveShifts(spec: ScheduleSpec, from: Date, to: Date): Shift[] {
  const zone = zoneOf(spec.timezone);
  const a = from.getTime();
  const b = to.getTime();
  if (!(b > a)) return [];
  const layers = spec.layers.map((l) => layerStretches(zone, l, a, b));
  const overrides = spec.overrides
    .map((o, i) => ({ ...o, i, s: Math.max(a, o.startsAt.getTime()), e: Math.min(b, o.endsAt.getTime()) }))
    .filter((o) => o.e > o.s);
  const cuts = new Set<number>([a, b]);
  for (const stretches of layers) for (const s of stretches) cuts.add(s.from).add(s.to);
  for (const o of overrides) cuts.add(o.s).add(o.e);
  const points = [...cuts].sort((x, y) => x - y);

  const cursor = layers.map(() => 0);
  const shifts: Shift[] = [];
  for (let p = 0; p + 1 < points.length; p++) {
    const t = points[p]!;
    let answer: Omit<Shift, 'from' | 'to'> = { userId: null, layerId: null, overrideId: null };
    const override = overrides.filter((o) => o.s <= t && t < o.e).at(-1);
    if (override) answer = { userId: override.userId, layerId: null, overrideId: override.id };
    else {
      for (let l = layers.length - 1; l >= 0; l--) {
        const stretches = layers[l]!;
        while (cursor[l]! < stretches.length && stretches[cursor[l]!]!.to <= t) cursor[l]!++;
        const s = stretches[cursor[l]!];
        if (s && s.from <= t) {
          answer = { userId: s.userId, layerId: spec.layers[l]!.id, overrideId: null };
          break;
        }
      }
    }
    const prev = shifts.at(-1);
    if (
      prev &&
      prev.userId === answer.userId &&
      prev.layerId === answer.layerId &&
      prev.overrideId === answer.overrideId
    ) {
      prev.to = new Date(points[p + 1]!);
    } else shifts.push({ ...answer, from: new Date(t), to: new Date(points[p + 1]!) });
  }
  return shifts;
}

/** How far either side of an instant `onCallAt` looks for the ends of its shift. */
export const ONCALL_HORIZON_MS = 90 * DAY;

/**
 * Who is on call at `at`, and the shift it is part of: `from` and `to` are null where the shift reaches beyond
 * ONCALL_HORIZON_MS (a rotation of one member never ends).
 */
export function onCallAt(
  spec: ScheduleSpec,
  at: Date,
): Omit<Shift, 'from' | 'to'> & { from: Date | null; to: Date | null } {
  const lo = new Date(at.getTime() - ONCALL_HORIZON_MS);
  const hi = new Date(at.getTime() + ONCALL_HORIZON_MS);
  const shift = resolveShifts(spec, lo, hi).find((s) => s.from <= at && at < s.to)!;
  return {
    ...shift,
    from: shift.from.getTime() === lo.getTime() ? null : shift.from,
    to: shift.to.getTime() === hi.getTime() ? null : shift.to,
  };
}

/** An instant's wall-clock reading in the schedule's timezone (`2026-03-29T03:00+02:00`), for messages. */
export function wallClockOf(timezone: string, at: Date): string {
  return DateTime.fromMillis(at.getTime(), { zone: timezone }).toISO({
    suppressMilliseconds: true,
    suppressSeconds: true,
  })!;
}

/**
 * A wall-clock reading `YYYY-MM-DDTHH:MM` (an HTML datetime-local value) in `timezone` as an instant, by the rule
 * handoffs follow (a skipped time is the end of the jump, a repeated one its first occurrence); null: not a real
 * date and time, or not a zone.
 */
export function instantOfWallClock(timezone: string, reading: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)$/.exec(reading);
  if (!m || !isValidTimezone(timezone)) return null;
  const midnight = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const date = new Date(midnight);
  if (date.getUTCMonth() !== Number(m[2]) - 1 || date.getUTCDate() !== Number(m[3])) return null; // 2026-02-30
  return new Date(wallInstant(IANAZone.create(timezone), midnight / DAY, Number(m[4]) * 60 + Number(m[5])));
}
