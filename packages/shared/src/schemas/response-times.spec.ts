import { describe, expect, it } from '@jest/globals';
import { bucketStarts, PERIODS, responseTimesQuerySchema } from './response-times.js';

describe('bucketStarts', () => {
  const now = new Date('2026-03-10T13:47:12.345Z');

  it.each(Object.entries(PERIODS))(
    '%s: the right count and width, ending with the bucket that holds now',
    (period, { buckets, bucketSeconds }) => {
      const starts = bucketStarts(period as keyof typeof PERIODS, now);
      expect(starts).toHaveLength(buckets);
      const last = starts[starts.length - 1]!;
      expect(last.getTime()).toBeLessThanOrEqual(now.getTime());
      expect(now.getTime() - last.getTime()).toBeLessThan(bucketSeconds * 1000);
      for (let i = 1; i < starts.length; i++)
        expect(starts[i]!.getTime() - starts[i - 1]!.getTime()).toBe(bucketSeconds * 1000);
    },
  );

  it('aligns to whole minutes, hours, 6-hour blocks and UTC days', () => {
    expect(bucketStarts('hour', now).at(-1)!.toISOString()).toBe('2026-03-10T13:47:00.000Z');
    expect(bucketStarts('hour', now)[0]!.toISOString()).toBe('2026-03-10T12:48:00.000Z');
    expect(bucketStarts('day', now).at(-1)!.toISOString()).toBe('2026-03-10T13:00:00.000Z');
    expect(bucketStarts('day', now)[0]!.toISOString()).toBe('2026-03-09T14:00:00.000Z');
    expect(bucketStarts('week', now).at(-1)!.toISOString()).toBe('2026-03-10T12:00:00.000Z');
    expect(bucketStarts('week', now)[0]!.toISOString()).toBe('2026-03-03T18:00:00.000Z');
    expect(bucketStarts('month', now).at(-1)!.toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(bucketStarts('month', now)[0]!.toISOString()).toBe('2026-02-09T00:00:00.000Z');
    expect(bucketStarts('quarter', now).at(-1)!.toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(bucketStarts('quarter', now)[0]!.toISOString()).toBe('2025-12-11T00:00:00.000Z');
  });

  it('puts an instant exactly on a boundary in the bucket it starts', () => {
    const edge = new Date('2026-03-10T13:00:00.000Z');
    expect(bucketStarts('day', edge).at(-1)!.toISOString()).toBe('2026-03-10T13:00:00.000Z');
  });
});

describe('responseTimesQuerySchema', () => {
  it('defaults to day, accepts a region up to 40 characters, refuses others', () => {
    expect(responseTimesQuerySchema.parse({})).toEqual({ period: 'day' });
    expect(responseTimesQuerySchema.parse({ period: 'month', region: 'r'.repeat(40) }).region).toHaveLength(40);
    expect(responseTimesQuerySchema.safeParse({ region: 'r'.repeat(41) }).success).toBe(false);
    expect(responseTimesQuerySchema.safeParse({ period: 'year' }).success).toBe(false);
    expect(responseTimesQuerySchema.safeParse({ period: 'day', extra: '1' }).success).toBe(false);
    const repeated = responseTimesQuerySchema.safeParse({ period: ['day', 'week'], region: ['a', 'b'] });
    expect(repeated.success ? [] : repeated.error.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['period', 'was given more than once'],
      ['region', 'was given more than once'],
    ]);
  });
});
