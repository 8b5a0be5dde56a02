/**
 * The latency histogram every rollup keeps (docs/adr/0019-latency-histograms.md): response times counted in fixed
 * log-spaced buckets, so that p50 and p95 of any set of rollups (hours, days, regions) come from adding counters.
 *
 * Bucket k >= 1 holds the response times (whole ms) from LATENCY_BUCKET_BOUNDS[k - 1] up to the next bound (the last
 * bucket has no end); bucket 0 holds 0 ms. The bounds are ceil(2^(j/4)) for j = 0..64 without repeats: a quarter of
 * an octave each, exact single values up to 8 ms, 65,536 ms and more in the last (timeouts stop at 30 s). PostgreSQL
 * computes the same k with `width_bucket(ms, <the bounds>)` (the function `latency_bucket`, migration
 * 20261128193728_latency_histograms): the two lists must stay equal (test/latency-histograms.test.ts compares them).
 *
 * Stored as an int[] whose subscripts are the buckets and which spans only the buckets used (PostgreSQL arrays may
 * start at any subscript; gaps are NULL): an hour of a monitor between 40 and 300 ms is about 12 counters.
 */
export const LATENCY_BUCKET_BOUNDS: readonly number[] = [
  ...new Set(Array.from({ length: 65 }, (_, j) => Math.ceil(2 ** (j / 4) - 1e-9))),
];

/** The bucket of a response time in whole ms (as `latency_bucket` in SQL: width_bucket over the bounds). */
export function latencyBucket(ms: number): number {
  // Number of bounds <= ms, by binary search.
  let lo = 0;
  let hi = LATENCY_BUCKET_BOUNDS.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (LATENCY_BUCKET_BOUNDS[mid]! <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The whole-ms values bucket k holds: [low, high]; high is null for the last bucket (no end). */
export function bucketRange(k: number): { low: number; high: number | null } {
  if (k <= 0) return { low: 0, high: 0 };
  const next = LATENCY_BUCKET_BOUNDS[k];
  return { low: LATENCY_BUCKET_BOUNDS[k - 1]!, high: next === undefined ? null : next - 1 };
}

/**
 * The value a percentile falling in bucket k is reported as: the geometric middle of the values it holds, rounded to
 * a whole ms. Every value the bucket holds is then within 9.4% of it from 20 ms up (9.06% from 100 ms), and within 2
 * ms below 20 ms (exact up to 8 ms); latency-histogram.spec.ts checks every value. The last bucket (65,536 ms and
 * more) reports its lower bound.
 */
export function bucketEstimate(k: number): number {
  const { low, high } = bucketRange(k);
  if (high === null) return low;
  return Math.round(Math.sqrt(low * high));
}

/** A histogram as read from SQL: the counters of consecutive buckets from `first` on (null counts as 0). */
export interface LatencyHistogram {
  first: number;
  counts: ReadonlyArray<number | null>;
}

/**
 * The nearest-rank percentile `p` (0 < p <= 100) of the response times a histogram counted: the estimate of the
 * bucket holding the value of rank ceil(p / 100 * n). Null when it counted nothing.
 */
export function histogramPercentile(h: LatencyHistogram | null, p: number): number | null {
  if (!h) return null;
  let n = 0;
  for (const c of h.counts) n += c ?? 0;
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  let seen = 0;
  for (let i = 0; i < h.counts.length; i++) {
    seen += h.counts[i] ?? 0;
    if (seen >= rank) return bucketEstimate(h.first + i);
  }
  return null;
}
