import { describe, expect, it } from '@jest/globals';
import { accountUptime, DEFAULT_ACCOUNTING_POLICY, periodsOf } from '@statusvane/shared';
import { uptimeRange, uptimeSeries, utcDay } from './uptime.js';

/** The periods a status page counts: each UTC day of the range, today up to now (as loadPublicPage asks). */
const uptimePeriods = (at: Date) =>
  periodsOf({
    from: uptimeRange(at).from.getTime(),
    to: Math.floor(at.getTime() / 1000) * 1000,
    granularity: 'day',
    timezone: 'UTC',
  });

const now = new Date('2026-05-31T23:59:59.999Z');
const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);

describe('uptimeRange and utcDay', () => {
  it('ends on the UTC day of now and spans 90 days, today counted up to now', () => {
    expect(uptimeRange(now)).toEqual({ from: day('2026-03-03'), to: day('2026-05-31') });
    expect(uptimeRange(new Date('2026-06-01T00:00:00.000Z')).to).toEqual(day('2026-06-01'));
    expect(utcDay(new Date('2026-05-01T12:34:56+14:00'))).toEqual(day('2026-04-30'));
    const periods = uptimePeriods(now);
    expect(periods).toHaveLength(90);
    expect(periods[0]!.from).toBe(day('2026-03-03').getTime());
    expect(periods[89]!.to).toBe(Date.parse('2026-05-31T23:59:59.000Z'));
  });
});

describe('uptimeSeries', () => {
  const timeline = {
    createdAt: day('2026-05-30').getTime(),
    paused: [],
    missed: [],
    maintenance: [],
    degraded: [],
    incidents: [{ id: 'i', from: Date.parse('2026-05-31T12:00:00Z'), to: Date.parse('2026-05-31T13:00:00Z') }],
  };
  const account = accountUptime(timeline, { policy: DEFAULT_ACCOUNTING_POLICY, periods: uptimePeriods(now) });

  it('has 90 days, oldest first, grey (null) where nothing is counted; counts beside the figures', () => {
    const s = uptimeSeries(
      [
        { day: day('2026-05-31'), total: 100, downCount: 1, degradedCount: 5 },
        { day: day('2026-05-31'), total: 100, downCount: 3, degradedCount: 0 },
        { day: day('2026-03-02'), total: 10, downCount: 10, degradedCount: 0 },
      ],
      account,
      now,
    );
    expect(s.days).toHaveLength(90);
    expect(s.days[0]).toMatchObject({ date: '2026-03-03', total: 0, percent: null, noDataSeconds: 86_400 });
    expect(s.days[88]).toMatchObject({ date: '2026-05-30', total: 0, percent: 100, downSeconds: 0 });
    expect(s.days[89]).toEqual({
      date: '2026-05-31',
      total: 200,
      downCount: 4,
      degradedCount: 5,
      percent: 95.8332, // 82,799 of 86,399 seconds up (today until now)
      downSeconds: 3600,
      degradedSeconds: 0,
      maintenanceSeconds: 0,
      noDataSeconds: 0,
    });
    expect(s.days.filter((d) => d.percent === null)).toHaveLength(88);
    expect(s.percent).toBe(account.total.uptimePercent);
  });

  it('without a monitor: every day grey', () => {
    const s = uptimeSeries([], null, now);
    expect(s.percent).toBeNull();
    expect(s.days.every((d) => d.percent === null && d.total === 0)).toBe(true);
  });
});
