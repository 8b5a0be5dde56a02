import { z } from 'zod';
import { singleQueryValue } from './common.js';

/**
 * Window, bucket width and source per period: the window ends with the bucket that contains now. `hour` reads the raw
 * results, `day` and `week` the hourly rollups, `month` and `quarter` the daily ones (one row per day and region: 90
 * days are 90 buckets of one UTC day, the width `month` already had).
 */
export const PERIODS = {
  hour: { bucketSeconds: 60, buckets: 60, source: 'results' },
  day: { bucketSeconds: 3600, buckets: 24, source: 'hourly' },
  week: { bucketSeconds: 21_600, buckets: 28, source: 'hourly' },
  month: { bucketSeconds: 86_400, buckets: 30, source: 'daily' },
  quarter: { bucketSeconds: 86_400, buckets: 90, source: 'daily' },
} as const;
export type Period = keyof typeof PERIODS;

export const responseTimesQuerySchema = z
  .object({
    period: singleQueryValue(z.enum(Object.keys(PERIODS) as [Period, ...Period[]])).default('day'),
    region: singleQueryValue(z.string().min(1).max(40)).optional(),
  })
  .strict();

/** Bucket starts (UTC, aligned to the bucket width since the epoch), oldest first. */
export function bucketStarts(period: Period, now: Date): Date[] {
  const { bucketSeconds, buckets } = PERIODS[period];
  const width = bucketSeconds * 1000;
  const last = Math.floor(now.getTime() / width) * width;
  return Array.from({ length: buckets }, (_, i) => new Date(last - (buckets - 1 - i) * width));
}
