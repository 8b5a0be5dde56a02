import { describe, expect, it } from '@jest/globals';
import { outageMoment } from './scheduling.js';

describe('outageMoment', () => {
  const everyMs = 60_000;
  const offsetMs = 11_250;
  // A slot: offsetMs past a multiple of everyMs.
  const from = 1_700_000_000_000 + 3_000;
  const isSlot = (t: number) => Math.abs(Math.round((t - offsetMs) / everyMs) * everyMs - (t - offsetMs)) < 1e-6;

  it('comes `phase` of an interval before a slot of the monitor, at or after `from`, within one interval', () => {
    for (const phase of [0.05, 0.25, 0.5, 0.75, 0.95]) {
      const at = outageMoment({ from, everyMs, offsetMs, phase });
      expect(at).toBeGreaterThanOrEqual(from);
      expect(at).toBeLessThan(from + everyMs);
      expect(isSlot(at + phase * everyMs)).toBe(true);
    }
  });

  it('spreads n runs evenly: their waits for the first failing check average half an interval', () => {
    const n = 6;
    const waits = Array.from({ length: n }, (_, i) => {
      const offset = (i * 7_250) % everyMs;
      const at = outageMoment({ from, everyMs, offsetMs: offset, phase: (i + 0.5) / n });
      // The monitor's first slot after the outage, found independently.
      const next = Math.floor((at - offset) / everyMs + 1) * everyMs + offset;
      return next - at;
    });
    [1, 3, 5, 7, 9, 11].forEach((k, i) => expect(waits[i]! / everyMs).toBeCloseTo(k / 12, 9));
    expect(waits.reduce((a, b) => a + b, 0) / n).toBeCloseTo(everyMs / 2, 6);
  });

  it('takes `from` itself when it is exactly that far before a slot', () => {
    const slot = 1_700_000_040_000 + offsetMs;
    expect(outageMoment({ from: slot - 15_000, everyMs, offsetMs, phase: 0.25 })).toBe(slot - 15_000);
  });
});
