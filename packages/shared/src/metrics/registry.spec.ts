import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import {
  createMetricsRegistry,
  enabledLoopMonitor,
  LOOP_RESOLUTION_MS,
  registerEventLoopDelay,
  type LoopDelaySource,
} from './registry.js';

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
  /** A sample `ms` beyond the sampling period, in ns (a sample counts the time since the previous one). */
  const late = (ms: number) => (LOOP_RESOLUTION_MS + ms) * 1e6;

  it('reports the window since the last scrape beyond the sampling period, then starts a new window', async () => {
    const registry = new Registry();
    const loop = fakeLoop();
    registerEventLoopDelay(registry, loop.source);
    loop.sample(late(0), late(2), late(50));
    const first = await gauge(registry);
    expect(first['0.5']).toBeCloseTo(0.002, 9);
    expect(first['0.99']).toBeCloseTo(0.05, 9);
    expect(first['1']).toBeCloseTo(0.05, 9);
    expect(loop.source.count).toBe(0);

    loop.sample(late(0));
    expect(await gauge(registry)).toEqual({ '0.5': 0, '0.99': 0, '1': 0 });
  });

  it('drops the series for a window with no sample instead of repeating the previous window', async () => {
    const registry = new Registry();
    const loop = fakeLoop();
    registerEventLoopDelay(registry, loop.source);
    loop.sample(late(190));
    expect((await gauge(registry))['1']).toBeCloseTo(0.19, 9);
    expect(await gauge(registry)).toEqual({});
    expect(await registry.metrics()).not.toMatch(/^statusvane_event_loop_delay_seconds\{/m);
    loop.sample(late(20));
    expect((await gauge(registry))['1']).toBeCloseTo(0.02, 9);
  });
});

describe('the event-loop delay monitor', () => {
  it('wakes an idle process at most about ten times a second: each sample is a wake-up, and costs CPU', async () => {
    const h = enabledLoopMonitor();
    try {
      h.reset();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // A sample every 20 ms would be ~50 here; every 100 ms, 9-10.
      expect(h.count).toBeGreaterThan(0);
      expect(h.count).toBeLessThanOrEqual(11);
    } finally {
      h.disable();
    }
  });
});

describe('createMetricsRegistry', () => {
  it("holds Node's default metrics and one event-loop delay gauge: not prom-client's, which samples the loop again", async () => {
    const text = await createMetricsRegistry({ service: 'spec' }).metrics();
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_start_time_seconds',
      'process_resident_memory_bytes',
      'nodejs_active_handles_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_heap_space_size_used_bytes',
      'nodejs_version_info',
      'nodejs_gc_duration_seconds',
    ])
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    expect(text).toMatch(/^# TYPE statusvane_event_loop_delay_seconds gauge$/m);
    expect(text).not.toMatch(/nodejs_eventloop_lag/);
  });
});
