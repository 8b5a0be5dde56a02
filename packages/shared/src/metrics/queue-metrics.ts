import type { Queue } from 'bullmq';
import { Gauge, type Registry } from 'prom-client';

export interface QueueMetricsSource {
  /** region -> that region's check queue. */
  queues: ReadonlyMap<string, Queue>;
  /** Schedulers each region should hold, from PostgreSQL (the source of truth), and the enabled monitors. */
  expected(): Promise<{ enabledMonitors: number; schedulersPerRegion: Map<string, number> }>;
  /** Give up on a scrape's Redis and PostgreSQL reads after this long (default 2000 ms). */
  timeoutMs?: number;
}

interface Snapshot {
  queues: Array<{ region: string; name: string; waiting: number; delayed: number; oldestWaitingSeconds: number; schedulers: number }>;
  enabledMonitors: number;
  schedulersPerRegion: Map<string, number>;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/** When the oldest waiting job became ready: a delayed job (every scheduled check) waits from its due time. */
async function oldestWaitingSeconds(queue: Queue, now: number): Promise<number> {
  const [job] = await queue.getJobs(['waiting'], 0, 0, true);
  if (!job) return 0;
  const readyAt = job.timestamp + (job.delay ?? 0);
  return Math.max(0, (now - readyAt) / 1000);
}

async function snapshot(source: QueueMetricsSource): Promise<Snapshot> {
  const now = Date.now();
  const [queues, expected] = await Promise.all([
    Promise.all(
      [...source.queues].map(async ([region, queue]) => {
        // Three cheap reads per queue: LLEN / ZCARD / ZCARD, one job hash, and the scheduler ZCARD.
        const [waiting, delayed, oldest, schedulers] = await Promise.all([
          queue.getWaitingCount(),
          queue.getDelayedCount(),
          oldestWaitingSeconds(queue, now),
          queue.getJobSchedulersCount(),
        ]);
        return { region, name: queue.name, waiting, delayed, oldestWaitingSeconds: oldest, schedulers };
      }),
    ),
    source.expected(),
  ]);
  return { queues, ...expected };
}

/**
 * Queue depth, oldest waiting job, and schedulers against enabled monitors, read when Prometheus scrapes (never per
 * request), with a timeout so a slow Redis cannot hang the scrape. One read serves every gauge of a scrape. When the
 * read fails, the gauges are dropped (not left stale) and `statusvane_queue_metrics_up` is 0.
 */
export function registerQueueMetrics(registry: Registry, source: QueueMetricsSource): void {
  const timeoutMs = source.timeoutMs ?? 2000;
  let pending: { at: number; promise: Promise<Snapshot | null> } | null = null;
  const read = (): Promise<Snapshot | null> => {
    const now = Date.now();
    if (pending && now - pending.at < 1000) return pending.promise;
    const promise = withTimeout(snapshot(source), timeoutMs).catch(() => null);
    pending = { at: now, promise };
    return promise;
  };
  const registers = [registry];

  new Gauge({
    name: 'statusvane_queue_metrics_up',
    help: '1 when the last scrape read the queues and PostgreSQL in time, else 0',
    registers,
    async collect() {
      this.set((await read()) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'statusvane_queue_jobs',
    help: 'Check jobs by queue and state (waiting: due and not started; delayed: scheduled for later)',
    labelNames: ['queue', 'state'],
    registers,
    async collect() {
      const s = await read();
      this.reset();
      for (const q of s?.queues ?? []) {
        this.set({ queue: q.name, state: 'waiting' }, q.waiting);
        this.set({ queue: q.name, state: 'delayed' }, q.delayed);
      }
    },
  });
  new Gauge({
    name: 'statusvane_queue_oldest_waiting_seconds',
    help: 'Age of the oldest due check job not yet started (0 when none waits)',
    labelNames: ['queue'],
    registers,
    async collect() {
      const s = await read();
      this.reset();
      for (const q of s?.queues ?? []) this.set({ queue: q.name }, q.oldestWaitingSeconds);
    },
  });
  new Gauge({
    name: 'statusvane_check_schedulers',
    help: 'Job schedulers in Redis, by region',
    labelNames: ['region'],
    registers,
    async collect() {
      const s = await read();
      this.reset();
      for (const q of s?.queues ?? []) this.set({ region: q.region }, q.schedulers);
    },
  });
  new Gauge({
    name: 'statusvane_check_schedulers_expected',
    help: 'Job schedulers each region should hold according to PostgreSQL (enabled monitors checked there)',
    labelNames: ['region'],
    registers,
    async collect() {
      const s = await read();
      this.reset();
      for (const [region, n] of s?.schedulersPerRegion ?? []) this.set({ region }, n);
    },
  });
  new Gauge({
    name: 'statusvane_enabled_monitors',
    help: 'Enabled monitors in PostgreSQL',
    registers,
    async collect() {
      const s = await read();
      this.reset();
      if (s) this.set(s.enabledMonitors);
    },
  });
}
