import { describe, expect, it } from '@jest/globals';
import { uptimePercent, uptimeRange, uptimeSeries, utcDay } from './uptime.js';

const now = new Date('2026-05-31T23:59:59.999Z');
const day = (iso: string) => new Date(`${iso}T00:00:00.000Z`);

describe('uptimePercent', () => {
  it.each([
    [0, 0, null],
    [1440, 0, 100],
    [1440, 1440, 0],
    [1000, 1, 99.9],
    [3, 1, 66.666],
    [100000, 1, 99.999],
    [1000000, 1, 99.999],
    [10, 20, 0],
  ])('total %d, down %d -> %p', (total, down, expected) => {
    expect(uptimePercent(total, down)).toBe(expected);
  });

  it('never shows 100 when a check failed', () => {
    expect(uptimePercent(10_000_000, 1)).toBeLessThan(100);
  });
});

describe('uptimeRange and utcDay', () => {
  it('ends on the UTC day of now and spans 90 days', () => {
    expect(uptimeRange(now)).toEqual({ from: day('2026-03-03'), to: day('2026-05-31') });
    expect(uptimeRange(new Date('2026-06-01T00:00:00.000Z')).to).toEqual(day('2026-06-01'));
    expect(utcDay(new Date('2026-05-01T12:34:56+14:00'))).toEqual(day('2026-04-30'));
  });
});

describe('uptimeSeries', () => {
  it('has 90 days, oldest first, grey (null) where there is no data', () => {
    const s = uptimeSeries([], now);
    expect(s.days).toHaveLength(90);
    expect(s.days[0]!.date).toBe('2026-03-03');
    expect(s.days[89]!.date).toBe('2026-05-31');
    expect(s.days.every((d) => d.percent === null && d.total === 0)).toBe(true);
    expect(s.percent).toBeNull();
  });

  it('sums regions per day and over the range', () => {
    const s = uptimeSeries(
      [
        { day: day('2026-05-31'), total: 100, downCount: 1, degradedCount: 5 },
        { day: day('2026-05-31'), total: 100, downCount: 3, degradedCount: 0 },
        { day: day('2026-05-30'), total: 200, downCount: 0, degradedCount: 2 },
        { day: day('2026-03-03'), total: 100, downCount: 100, degradedCount: 0 },
      ],
      now,
    );
    expect(s.days[89]).toEqual({ date: '2026-05-31', total: 200, downCount: 4, degradedCount: 5, percent: 98 });
    expect(s.days[88]).toEqual({ date: '2026-05-30', total: 200, downCount: 0, degradedCount: 2, percent: 100 });
    expect(s.days[0]!.percent).toBe(0);
    expect(s.percent).toBe(79.2); // (500 - 104) / 500
  });

  it('ignores rows outside the range', () => {
    const s = uptimeSeries(
      [
        { day: day('2026-03-02'), total: 10, downCount: 10, degradedCount: 0 },
        { day: day('2026-06-01'), total: 10, downCount: 10, degradedCount: 0 },
        { day: day('2026-04-01'), total: 10, downCount: 0, degradedCount: 0 },
      ],
      now,
    );
    expect(s.percent).toBe(100);
    expect(s.days.filter((d) => d.total > 0).map((d) => d.date)).toEqual(['2026-04-01']);
  });
});
