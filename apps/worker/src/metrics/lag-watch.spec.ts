import { describe, expect, it } from '@jest/globals';
import { LagWatch, lagMessage, workersToCatchUp, type LagWarning } from './lag-watch.js';

function watch(due = 1667) {
  let now = 0;
  const warnings: Array<{ message: string; meta: LagWarning }> = [];
  const lags: number[] = [];
  const w = new LagWatch({
    duePerSecond: async () => due,
    warn: (message, meta) => warnings.push({ message, meta }),
    setLag: (s) => lags.push(s),
    now: () => now,
  });
  return { w, warnings, lags, advance: (ms: number) => (now += ms), now: () => now };
}

describe('workersToCatchUp', () => {
  it('the fewest workers at this rate that check more than are due', () => {
    expect(workersToCatchUp(1667, 900)).toBe(2);
    expect(workersToCatchUp(1800, 900)).toBe(3);
    expect(workersToCatchUp(100, 900)).toBe(1);
    expect(workersToCatchUp(100, 0)).toBeNull();
  });
});

describe('LagWatch', () => {
  it('warns within seconds of falling behind, then at most once a minute, with the lag and the workers that would catch up', async () => {
    const { w, warnings, lags, advance, now } = watch();
    // A minute at 900 checks a second, 12.4 s behind (the window closes with the minute's last check).
    for (let s = 0; s < 60; s++) {
      for (let i = 0; i < 900; i++) w.finished({ checked: true });
      advance(1000);
      w.started(12_400);
    }
    await new Promise((r) => setImmediate(r));
    expect(lags.at(-1)).toBe(12.4);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toBe('checks are 12 s behind; about 2 workers would catch up');
    expect(warnings[0]!.meta).toMatchObject({
      lagSeconds: 12.4,
      workersNeeded: 2,
      duePerSecond: 1667,
      checkedPerSecond: 900,
    });
    // The first came within a step (10 s) of falling behind; the next no sooner than a minute after it.
    advance(5_000);
    await w.evaluate(now());
    expect(warnings).toHaveLength(1);
    advance(10_000);
    await w.evaluate(now());
    expect(warnings).toHaveLength(2);
  });

  it('says nothing when keeping up, and warns on missed slots even below the lag threshold', async () => {
    const { w, warnings, advance, now } = watch(10);
    advance(60_000);
    w.started(80);
    await w.evaluate(now());
    expect(warnings).toHaveLength(0);
    advance(60_000);
    w.started(1500);
    w.finished({ checked: true, missedSlots: 4 });
    await w.evaluate(now());
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.meta.missedSlots).toBe(4);
  });

  it('names no number when nothing finished to measure a rate', () => {
    expect(lagMessage({ lagSeconds: 75, workersNeeded: null })).toBe(
      'checks are 75 s behind; too few figures to estimate how many workers would catch up',
    );
  });
});
