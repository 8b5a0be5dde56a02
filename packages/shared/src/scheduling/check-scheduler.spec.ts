import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { OFFSET_STEP_MS, spreadOffsetMs } from './check-scheduler.js';

describe('spreadOffsetMs', () => {
  it('puts every offset on the step grid, inside the interval, never 0', () => {
    for (const every of [10_000, 60_000, 300_000, 86_400_000]) {
      for (let i = 0; i < 500; i++) {
        const o = spreadOffsetMs(randomUUID(), every);
        expect(o % OFFSET_STEP_MS).toBe(0);
        expect(o).toBeGreaterThanOrEqual(OFFSET_STEP_MS);
        expect(o).toBeLessThan(every);
      }
    }
  });

  it('is stable for a monitor, and uses every step of a short interval', () => {
    const id = randomUUID();
    expect(spreadOffsetMs(id, 10_000)).toBe(spreadOffsetMs(id, 10_000));
    const seen = new Set(Array.from({ length: 5000 }, () => spreadOffsetMs(randomUUID(), 10_000)));
    // One step, two steps ... up to the last step before 10 s: all used by 5,000 monitors.
    expect(seen.size).toBe(Math.floor((10_000 - 1) / OFFSET_STEP_MS));
    expect(Math.max(...seen)).toBe(OFFSET_STEP_MS * Math.floor((10_000 - 1) / OFFSET_STEP_MS));
  });

  it('falls back to 1 .. every-1 when the interval is a step or shorter', () => {
    for (let i = 0; i < 500; i++) {
      const o = spreadOffsetMs(randomUUID(), 80);
      expect(o).toBeGreaterThanOrEqual(1);
      expect(o).toBeLessThan(80);
    }
  });
});
