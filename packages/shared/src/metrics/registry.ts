import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export { Registry } from 'prom-client';

/**
 * Sampling period of the event-loop delay monitor; subtracted from its readings (an idle loop reads ~0). Each sample
 * is a wake-up of the process: at 10 ms, prom-client's monitor and ours together woke an idle worker 200 times a
 * second, three quarters of its CPU at rest (docs/benchmarks.md, "sixteenth pass"); at 20 ms, ours alone still cost a
 * worker checking 167 monitors a second 5-10% of its CPU against 100 ms ("twentieth pass"). A block of the loop as
 * long as the period is always sampled; a shorter one sometimes, so p99 and max still show the blocks that matter.
 */
export const LOOP_RESOLUTION_MS = 100;

/**
 * prom-client's default metrics (`collectDefaultMetrics.metricsList`, a module each) but `eventLoopLag`: that one
 * enables a second event-loop delay monitor beside ours, sampling as often, and its `nodejs_eventloop_lag_*` gauges
 * count the sampling period in every reading. prom-client has no `exports` map, so its modules are the package's own
 * paths.
 */
const DEFAULT_METRICS = collectDefaultMetrics.metricsList.filter((name) => name !== 'eventLoopLag');
type DefaultMetric = (registry: Registry, config: Record<string, never>) => void;
const requireFromHere = createRequire(import.meta.url);

function registerDefaultMetrics(registry: Registry): void {
  for (const name of DEFAULT_METRICS)
    (requireFromHere(`prom-client/lib/metrics/${name}`) as DefaultMetric)(registry, {});
}

/**
 * A registry per process (or per test): nothing is registered on prom-client's global registry, so two apps, or two
 * suites, in one process never collide. Holds the Node defaults (`process_resident_memory_bytes`, CPU, GC, heap,
 * handles) and `statusvane_event_loop_delay_seconds`, the process's one event-loop delay monitor.
 */
export function createMetricsRegistry(opts: { service: string; defaultMetrics?: boolean }): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: opts.service });
  if (opts.defaultMetrics !== false) {
    registerDefaultMetrics(registry);
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
 * response, a due job) waited for the loop. Each sample counts the time since the previous one, so the sampling
 * period is taken off: an idle loop reads ~0. A window with no sample (two scrapes within one
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

/** The process's event-loop delay monitor, sampling every `LOOP_RESOLUTION_MS` (exported for its spec). */
export function enabledLoopMonitor(): LoopDelaySource & { disable(): boolean } {
  const h = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  h.enable();
  return h;
}
