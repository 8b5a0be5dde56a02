import { describe, expect, it } from '@jest/globals';
import { cronProblem, expectedAfter, isTimeZone, latestExpectedBefore } from './expected.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;
/** The next n expected times after `from`, one after the other. */
const series = (schedule: string, timezone: string, from: string, n: number) => {
  const out: string[] = [];
  let t = new Date(from);
  for (let i = 0; i < n; i++) out.push((t = expectedAfter({ schedule, timezone }, t)).toISOString());
  return out;
};

describe('heartbeat expected times', () => {
  it('an interval: every intervalSeconds after the anchor; the latest one strictly before a time', () => {
    const e = { intervalSeconds: 60 };
    const a = new Date('2026-01-01T00:00:00Z');
    expect(iso(expectedAfter(e, a))).toBe('2026-01-01T00:01:00.000Z');
    expect(latestExpectedBefore(e, a, new Date('2026-01-01T00:01:00Z'))).toBeNull();
    expect(iso(latestExpectedBefore(e, a, new Date('2026-01-01T00:02:00.001Z')))).toBe('2026-01-01T00:02:00.000Z');
  });

  it('a cron schedule in a time zone: next strictly after, latest strictly before and after the anchor', () => {
    const e = { schedule: '0 9 * * 1-5', timezone: 'Europe/Berlin' }; // weekdays 09:00 Berlin (08:00 UTC in winter)
    expect(iso(expectedAfter(e, new Date('2026-01-02T08:00:00Z')))).toBe('2026-01-05T08:00:00.000Z'); // Fri -> Mon
    const anchor = new Date('2026-01-05T08:00:05Z');
    expect(latestExpectedBefore(e, anchor, new Date('2026-01-06T08:00:00Z'))).toBeNull();
    expect(iso(latestExpectedBefore(e, anchor, new Date('2026-01-08T12:00:00Z')))).toBe('2026-01-08T08:00:00.000Z');
  });

  it('spring forward (Europe/Berlin, 29 March 2026): 02:30 does not exist and is expected at 03:30 CEST', () => {
    expect(series('30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', 4)).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:30:00.000Z', // 03:30 CEST: the skipped 02:30 an hour later, once
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
      '2026-03-31T00:30:00.000Z',
    ]);
    // Hourly: the skipped hour has no expected time, every other hour one.
    expect(series('0 * * * *', 'America/New_York', '2026-03-08T05:30:00Z', 3)).toEqual([
      '2026-03-08T06:00:00.000Z', // 01:00 EST
      '2026-03-08T07:00:00.000Z', // 03:00 EDT (02:00 does not exist)
      '2026-03-08T08:00:00.000Z',
    ]);
  });

  it('fall back (Europe/Berlin, 25 October 2026): a daily 02:30 is expected once, an hourly schedule every hour', () => {
    expect(series('30 2 * * *', 'Europe/Berlin', '2026-10-23T12:00:00Z', 3)).toEqual([
      '2026-10-24T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST), not the repeated one (CET)
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
    expect(series('30 * * * *', 'Europe/Berlin', '2026-10-24T23:00:00Z', 4)).toEqual([
      '2026-10-24T23:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:30:00.000Z', // 02:30 CET
      '2026-10-25T02:30:00.000Z',
    ]);
    // latestExpectedBefore walks back across the repeated hour the same way.
    const e = { schedule: '30 2 * * *', timezone: 'Europe/Berlin' };
    expect(iso(latestExpectedBefore(e, new Date('2026-10-24T12:00:00Z'), new Date('2026-10-25T03:00:00Z')))).toBe(
      '2026-10-25T00:30:00.000Z',
    );
  });

  it('judges expressions and time zones', () => {
    expect(cronProblem('*/5 * * * *')).toBeNull();
    expect(cronProblem('0 9 * * MON-FRI')).toBeNull();
    expect(cronProblem('0 0 * * THU')).toBeNull();
    expect(cronProblem('* * * *')).toMatch(/5 fields/);
    expect(cronProblem('0 * * * * *')).toMatch(/5 fields/);
    expect(cronProblem('@daily')).toMatch(/5 fields/);
    expect(cronProblem('61 * * * *')).toMatch(/0-59/);
    expect(cronProblem('H * * * *')).toMatch(/H/);
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});
