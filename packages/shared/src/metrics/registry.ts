import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export { Registry } from 'prom-client';

/** Sampling period of the event-loop delay monitor; subtracted from its readings (an idle loop reads ~0). */
const LOOP_RESOLUTION_MS = 10;

/**
 * A registry per process (or per test): nothing is registered on prom-client's global registry, so two apps, or two
 * suites, in one process never collide. Holds the Node defaults (`process_resident_memory_bytes`,
 * `nodejs_eventloop_lag_*`, GC, heap) and `statusvane_event_loop_delay_seconds`.
 */
export function createMetricsRegistry(opts: { service: string; defaultMetrics?: boolean }): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: opts.service });
  if (opts.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LOOP_RESOLUTION_MS });
    registerEventLoopDelay(registry);
  }
  return registry;
}

/** What the gauge reads of a `monitorEventLoopDelay` histogram (an interface so a spec can drive it). */
export interface LoopDelaySource {
  readonly count: number;
  readonly max: number;
  percentile(p: number): number;
  reset(): void;
}

/**
 * Event-loop delay since the previous scrape, beyond the monitor's own period: how long a ready callback (a probe's
 * response, a due job) waited for the loop. prom-client's `nodejs_eventloop_lag_p99_seconds` includes the 10 ms
 * sampling period, so an idle loop reads 0.01 there and ~0 here. A window with no sample (two scrapes within one
 * period) drops the series rather than repeating the previous window's values as if they were current.
 */
export function registerEventLoopDelay(registry: Registry, source?: LoopDelaySource): void {
  const h: LoopDelaySource = source ?? enabledLoopMonitor();
  const beyond = (ns: number) => Math.max(0, ns / 1e9 - LOOP_RESOLUTION_MS / 1000);
  new Gauge({
    name: 'statusvane_event_loop_delay_seconds',
    help: 'Event-loop delay since the previous scrape, by quantile (0.5, 0.99, 1 = max); absent when nothing was sampled',
    labelNames: ['quantile'],
    registers: [registry],
    collect() {
      this.reset();
      if (h.count === 0) return;
      this.set({ quantile: '0.5' }, beyond(h.percentile(50)));
      this.set({ quantile: '0.99' }, beyond(h.percentile(99)));
      this.set({ quantile: '1' }, beyond(h.max));
      h.reset();
    },
  });
}

function enabledLoopMonitor(): LoopDelaySource {
  const h = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  h.enable();
  return h;
}
