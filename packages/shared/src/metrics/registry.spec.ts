import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { registerEventLoopDelay, type LoopDelaySource } from './registry.js';

/** A stand-in for monitorEventLoopDelay's histogram: what it sampled since its last reset. */
function fakeLoop() {
  let samples: number[] = [];
  const source: LoopDelaySource = {
    get count() {
      return samples.length;
    },
    get max() {
      return Math.max(...samples);
    },
    percentile: (p) => [...samples].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * samples.length) - 1)]!,
    reset: () => {
      samples = [];
    },
  };
  return { source, sample: (...ns: number[]) => samples.push(...ns) };
}

async function gauge(registry: Registry) {
  const m = await registry.getSingleMetric('statusvane_event_loop_delay_seconds')!.get();
  return Object.fromEntries(m.values.map((v) => [v.labels.quantile, v.value]));
}

describe('statusvane_event_loop_delay_seconds', () => {
  it('reports the window since the last scrape beyond the 10 ms sampling period, then starts a new window', async () => {
    const registry = new Registry();
    const loop = fakeLoop();
    registerEventLoopDelay(registry, loop.source);
    loop.sample(10e6, 12e6, 60e6); // ns
    const first = await gauge(registry);
    expect(first['0.5']).toBeCloseTo(0.002, 9);
    expect(first['0.99']).toBeCloseTo(0.05, 9);
    expect(first['1']).toBeCloseTo(0.05, 9);
    expect(loop.source.count).toBe(0);

    loop.sample(10e6);
    expect(await gauge(registry)).toEqual({ '0.5': 0, '0.99': 0, '1': 0 });
  });

  it('drops the series for a window with no sample instead of repeating the previous window', async () => {
    const registry = new Registry();
    const loop = fakeLoop();
    registerEventLoopDelay(registry, loop.source);
    loop.sample(200e6);
    expect((await gauge(registry))['1']).toBeCloseTo(0.19, 9);
    expect(await gauge(registry)).toEqual({});
    expect(await registry.metrics()).not.toMatch(/^statusvane_event_loop_delay_seconds\{/m);
    loop.sample(30e6);
    expect((await gauge(registry))['1']).toBeCloseTo(0.02, 9);
  });
});
