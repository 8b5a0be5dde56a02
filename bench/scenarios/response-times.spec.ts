import { describe, expect, it } from '@jest/globals';
import { latencySummary } from './response-times.js';

describe('latencySummary', () => {
  it('gives nearest-rank p50, p95, p99 and max of unsorted durations, to 0.1 ms', () => {
    const times = Array.from({ length: 100 }, (_, i) => 100 - i + 0.04); // 100.04 down to 1.04
    expect(latencySummary(times)).toEqual({ p50: 50, p95: 95, p99: 99, max: 100 });
  });

  it('leaves its input alone and handles a single sample', () => {
    const times = [3.26, 1.01, 2.5];
    latencySummary(times);
    expect(times).toEqual([3.26, 1.01, 2.5]);
    expect(latencySummary([7.25])).toEqual({ p50: 7.3, p95: 7.3, p99: 7.3, max: 7.3 });
  });
});
