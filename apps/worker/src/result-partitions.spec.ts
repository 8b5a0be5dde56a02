import { describe, expect, it } from '@jest/globals';
import { packChunkCount } from './result-partitions.js';

describe('packChunkCount', () => {
  it('keeps each statement near chunkRows however large the day is', () => {
    // A day of 100,000 monitors checked every minute from one region: 144 million results.
    expect(packChunkCount(144_000_000)).toBe(1440);
    expect(packChunkCount(144_000_000, 50_000)).toBe(2880);
  });

  it('packs a small or unanalysed partition in one statement', () => {
    expect(packChunkCount(0)).toBe(1);
    expect(packChunkCount(99_999)).toBe(1);
    expect(packChunkCount(100_001)).toBe(2);
  });
});
