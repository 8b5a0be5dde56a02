import { describe, expect, it } from '@jest/globals';
import { bucketDelta, bucketQuantile, buckets, parseProm, percentile, valueOf } from './prom.js';

const SCRAPE = `# HELP statusvane_check_lateness_seconds Start of a check job minus its scheduled slot
# TYPE statusvane_check_lateness_seconds histogram
statusvane_check_lateness_seconds_bucket{le="0.1",region="local",service="worker"} 90
statusvane_check_lateness_seconds_bucket{le="1",region="local",service="worker"} 99
statusvane_check_lateness_seconds_bucket{le="+Inf",region="local",service="worker"} 100
statusvane_check_lateness_seconds_bucket{le="0.1",region="eu",service="worker"} 10
statusvane_check_lateness_seconds_bucket{le="1",region="eu",service="worker"} 10
statusvane_check_lateness_seconds_bucket{le="+Inf",region="eu",service="worker"} 10
statusvane_checks_total{type="http",region="local",result="up",service="worker"} 7
statusvane_checks_total{type="tcp",region="local",result="up",service="worker"} 3
statusvane_checks_total{type="http",region="local",result="down",service="worker"} 2
statusvane_http_request_duration_seconds_count{method="GET",route="/say \\"hi\\", then go",status="200"} 4
process_resident_memory_bytes 123456789
statusvane_event_loop_delay_seconds{quantile="0.99"} 1.5e-3
`;

describe('parseProm', () => {
  const samples = parseProm(SCRAPE);

  it('reads every sample line with its name, labels and value, and skips comments and blank lines', () => {
    expect(samples).toHaveLength(12);
    expect(samples[0]).toEqual({
      name: 'statusvane_check_lateness_seconds_bucket',
      labels: { le: '0.1', region: 'local', service: 'worker' },
      value: 90,
    });
    expect(samples.find((s) => s.name === 'process_resident_memory_bytes')).toEqual({
      name: 'process_resident_memory_bytes',
      labels: {},
      value: 123456789,
    });
  });

  it('keeps escaped quotes and commas inside label values, and reads exponents', () => {
    const route = samples.find((s) => s.name === 'statusvane_http_request_duration_seconds_count')!;
    expect(route.labels).toEqual({ method: 'GET', route: '/say \\"hi\\", then go', status: '200' });
    expect(valueOf(samples, 'statusvane_event_loop_delay_seconds', { quantile: '0.99' })).toBeCloseTo(0.0015, 10);
  });

  it('valueOf sums the samples that carry at least the given labels, and is null when none match', () => {
    expect(valueOf(samples, 'statusvane_checks_total')).toBe(12);
    expect(valueOf(samples, 'statusvane_checks_total', { result: 'up' })).toBe(10);
    expect(valueOf(samples, 'statusvane_checks_total', { type: 'http', result: 'down' })).toBe(2);
    expect(valueOf(samples, 'statusvane_checks_total', { result: 'error' })).toBeNull();
    expect(valueOf(samples, 'no_such_metric')).toBeNull();
  });

  it('buckets sums a histogram over its other labels, sorted by bound with +Inf last', () => {
    expect(buckets(samples, 'statusvane_check_lateness_seconds')).toEqual([
      { le: 0.1, count: 100 },
      { le: 1, count: 109 },
      { le: Infinity, count: 110 },
    ]);
    expect(buckets(samples, 'statusvane_check_lateness_seconds', { region: 'eu' }).map((b) => b.count)).toEqual([
      10, 10, 10,
    ]);
  });
});

describe('bucketQuantile and bucketDelta', () => {
  const bs = [
    { le: 0.1, count: 90 },
    { le: 1, count: 99 },
    { le: 10, count: 100 },
    { le: Infinity, count: 100 },
  ];

  it('answers the upper bound of the bucket that holds the quantile', () => {
    expect(bucketQuantile(bs, 0.5)).toBe(0.1);
    expect(bucketQuantile(bs, 0.9)).toBe(0.1);
    expect(bucketQuantile(bs, 0.91)).toBe(1);
    expect(bucketQuantile(bs, 0.99)).toBe(1);
    expect(bucketQuantile(bs, 1)).toBe(10);
  });

  it('is null for an empty histogram, and Infinity when the quantile lies beyond the last finite bound', () => {
    expect(bucketQuantile([], 0.5)).toBeNull();
    expect(
      bucketQuantile(
        bs.map((b) => ({ ...b, count: 0 })),
        0.5,
      ),
    ).toBeNull();
    expect(
      bucketQuantile(
        [
          { le: 1, count: 1 },
          { le: Infinity, count: 10 },
        ],
        0.99,
      ),
    ).toBe(Infinity);
  });

  it('bucketDelta gives the window between two scrapes, bucket by bucket', () => {
    const before = [
      { le: 0.1, count: 80 },
      { le: 1, count: 80 },
      { le: Infinity, count: 80 },
    ];
    const after = [
      { le: 0.1, count: 90 },
      { le: 1, count: 99 },
      { le: Infinity, count: 100 },
    ];
    const delta = bucketDelta(after, before);
    expect(delta).toEqual([
      { le: 0.1, count: 10 },
      { le: 1, count: 19 },
      { le: Infinity, count: 20 },
    ]);
    expect(bucketQuantile(delta, 0.5)).toBe(0.1);
    expect(bucketQuantile(delta, 0.55)).toBe(1);
    // A bucket the earlier scrape did not have (first observation) counts from zero.
    expect(bucketDelta(after, [])).toEqual(after);
  });
});

describe('percentile', () => {
  const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  it('is the nearest-rank percentile of a sorted list', () => {
    expect(percentile(ten, 50)).toBe(5);
    expect(percentile(ten, 90)).toBe(9);
    expect(percentile(ten, 91)).toBe(10);
    expect(percentile(ten, 99)).toBe(10);
    expect(percentile(ten, 100)).toBe(10);
    expect(percentile(ten, 0)).toBe(1);
    expect(percentile(ten, 10)).toBe(1);
    expect(percentile(ten, 11)).toBe(2);
  });

  it('handles one value and no value', () => {
    expect(percentile([42], 1)).toBe(42);
    expect(percentile([42], 99)).toBe(42);
    expect(percentile([], 50)).toBeNaN();
  });

  it('p99 of 1,000 values is the 990th', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i + 1);
    expect(percentile(xs, 99)).toBe(990);
    expect(percentile(xs, 50)).toBe(500);
  });
});
