import { CronExpressionParser } from 'cron-parser';

/**
 * When a heartbeat's pings are expected: every `intervalSeconds` after the last ping, or at each time of a 5-field
 * cron `schedule` in `timezone` (IANA). DST transitions are the library's (cron-parser with Luxon): on a
 * spring-forward day a time that does not exist is expected an hour later (02:30 in Berlin becomes 03:30 CEST); on a
 * fall-back day a daily time that occurs twice is expected once (the first), an hourly schedule keeps every hour.
 * Shared by the worker (deadlines) and the API (`nextExpectedAt`), so both see the same times.
 */
export type HeartbeatExpectation =
  | { intervalSeconds: number; schedule?: null; timezone?: string | null }
  | { schedule: string; timezone: string | null; intervalSeconds?: number };

/** A 5-field cron expression's problem, or null when it is one (minute hour day-of-month month day-of-week). */
export function cronProblem(schedule: string, timezone: string | null = null): string | null {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5)
    return `must have 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  // H picks a random value per parse: API and worker would disagree.
  if (/\bH/i.test(schedule)) {
    return 'H (random values) is not supported';
  }
  try {
    CronExpressionParser.parse(schedule, { tz: timezone ?? 'UTC' });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Whether `timezone` is an IANA time zone name this runtime knows. */
export function isTimeZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return timezone.length > 0;
  } catch {
    return false;
  }
}

/** The first expected time strictly after `after`. */
export function expectedAfter(e: HeartbeatExpectation, after: Date): Date {
  if (!e.schedule) return new Date(after.getTime() + e.intervalSeconds! * 1000);
  return CronExpressionParser.parse(e.schedule, { tz: e.timezone ?? 'UTC', currentDate: after })
    .next()
    .toDate();
}

/**
 * The latest expected time strictly before `before` and strictly after `anchor` (the last ping), or null when none
 * (the first one after the anchor is not yet before `before`).
 */
export function latestExpectedBefore(e: HeartbeatExpectation, anchor: Date, before: Date): Date | null {
  const a = anchor.getTime();
  const b = before.getTime();
  if (!e.schedule) {
    const intervalMs = e.intervalSeconds! * 1000;
    const k = Math.floor((b - a - 1) / intervalMs);
    return k >= 1 ? new Date(a + k * intervalMs) : null;
  }
  if (b <= a) return null;
  // The library's prev() can give a time its next() skips (the repeated 02:30 of a fall-back day), so the answer is
  // found by walking next() forward from two steps back: the same times expectedAfter gives, whichever way one walks.
  const back = CronExpressionParser.parse(e.schedule, { tz: e.timezone ?? 'UTC', currentDate: before });
  back.prev();
  let t = new Date(Math.max(back.prev().getTime() - 1, a));
  let latest: Date | null = null;
  for (;;) {
    const n = expectedAfter(e, t);
    if (n.getTime() >= b) return latest;
    latest = t = n;
  }
}
