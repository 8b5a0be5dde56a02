import { DateTime, IANAZone } from 'luxon';
import type { ReportPeriod } from './accounting.js';

/**
 * Report periods in a timezone: calendar days, ISO weeks (Monday to Monday, as ISO 8601 and most of Europe count
 * them, and as Better Stack's and Datadog's weekly SLOs do) or calendar months, each from local midnight to the next
 * local midnight, so a day is 23 or 25 hours (23.5 or 24.5 on Lord Howe Island) across a daylight-saving change.
 */
export type Granularity = 'day' | 'week' | 'month';
export const GRANULARITIES = ['day', 'week', 'month'] as const;

/** Whether the name is an IANA timezone this runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimezone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/**
 * The periods of `granularity` in `timezone` that overlap [from, to), cut at from and to (ms since the epoch, whole
 * seconds), in order. Empty when from >= to.
 */
export function periodsOf(input: {
  from: number;
  to: number;
  granularity: Granularity;
  timezone: string;
}): ReportPeriod[] {
  const { from, to, granularity, timezone } = input;
  const out: ReportPeriod[] = [];
  if (!(from < to)) return out;
  const base = DateTime.fromMillis(from, { zone: timezone }).startOf(granularity);
  let start = base.toMillis();
  // Each boundary from the first one (not the previous one plus one unit): a month after 31 January stays on the 1st.
  for (let i = 1; start < to; i++) {
    const next = base
      .plus({ [`${granularity}s`]: i })
      .startOf(granularity)
      .toMillis();
    out.push({ from: Math.max(from, start), to: Math.min(to, next) });
    start = next;
  }
  return out;
}

/** The instant a local date (`YYYY-MM-DD`) starts in a timezone (its first moment, if midnight was skipped). */
export function startOfLocalDate(date: string, timezone: string): number | null {
  const d = DateTime.fromISO(date, { zone: timezone });
  return d.isValid ? d.startOf('day').toMillis() : null;
}

/** The local date (`YYYY-MM-DD`) of an instant in a timezone. */
export function localDateOf(ms: number, timezone: string): string {
  return DateTime.fromMillis(ms, { zone: timezone }).toISODate()!;
}

/** The start of the local calendar unit (day, ISO week, month) holding the instant, plus `offset` units. */
export function startOfLocal(ms: number, timezone: string, unit: Granularity, offset = 0): number {
  return DateTime.fromMillis(ms, { zone: timezone })
    .startOf(unit)
    .plus({ [`${unit}s`]: offset })
    .startOf(unit)
    .toMillis();
}

/** A month (`YYYY-MM`) in a timezone, as [from, to) in ms: its first local midnight to the next month's. */
export function monthRange(month: string, timezone: string): { from: number; to: number } {
  const from = DateTime.fromISO(`${month}-01`, { zone: timezone }).startOf('month');
  return { from: from.toMillis(), to: from.plus({ months: 1 }).startOf('month').toMillis() };
}

/** The local hour the monthly report goes out on the 1st, and how long after it a late worker still sends it. */
export const REPORT_SEND_HOUR = 6;
const REPORT_SEND_WINDOW_MS = 48 * 3_600_000;

/**
 * The month whose report is due at `now` in a timezone: the previous month, from 06:00 on the 1st (local) for 48
 * hours (workers down over the 1st still send it when they come back, not weeks later); else null.
 */
export function dueReportMonth(now: Date, timezone: string): string | null {
  const sendAt = DateTime.fromJSDate(now, { zone: timezone }).startOf('month').set({ hour: REPORT_SEND_HOUR });
  const t = now.getTime() - sendAt.toMillis();
  return t >= 0 && t < REPORT_SEND_WINDOW_MS ? sendAt.minus({ months: 1 }).toFormat('yyyy-MM') : null;
}
