import type { Job, Queue } from 'bullmq';
import { Gauge, type Registry } from 'prom-client';
import { withTimeout } from '../async/index.js';
import { slotOf } from '../queues/job-slot.js';

export interface QueueMetricsSource {
  /** (region, queue) of each check queue: a region's one-off checks and its partitions' (CheckScheduler). */
  queues: Iterable<readonly [string, Queue]>;
  /** Schedulers each region should hold, from PostgreSQL (the source of truth), and the enabled monitors. */
  expected(): Promise<{ enabledMonitors: number; schedulersPerRegion: Map<string, number> }>;
  /** Give up on a scrape's Redis and PostgreSQL reads after this long (default 2000 ms). */
  timeoutMs?: number;
}

interface Snapshot {
  queues: Array<{
    region: string;
    name: string;
    waiting: number;
    delayed: number;
    oldestWaitingSeconds: number;
    schedulers: number;
  }>;
  enabledMonitors: number;
  schedulersPerRegion: Map<string, number>;
}

type WaitingJob = Pick<Job, 'id' | 'opts' | 'timestamp' | 'repeatJobKey' | 'attemptsMade' | 'processedOn'>;

/** The retry delay BullMQ waited before attempt `attemptsMade + 1` (fixed or exponential, without jitter). */
function backoffMs(opts: WaitingJob['opts'], attemptsMade: number): number {
  const b = typeof opts.backoff === 'number' ? { type: 'fixed', delay: opts.backoff } : opts.backoff;
  if (!b?.delay) return 0;
  if (b.type === 'exponential') return Math.round(2 ** Math.max(0, attemptsMade - 1) * b.delay);
  return b.type === 'fixed' ? b.delay : 0;
}

/**
 * When a waiting job became due (ms). Not `timestamp + delay`: BullMQ 6.7 zeroes `delay` when it promotes a delayed
 * job, and creates a scheduler's next job as the previous run starts, one interval before its slot, so that formula
 * read every promoted scheduled check about one interval old. Instead:
 * - a scheduler's job: its slot, from the job id (`slotOf`, as the worker's lateness);
 * - a one-off job: its creation time plus the delay it was added with (`opts.delay`, which promotion leaves alone);
 * - a retry: at least its last attempt's start plus the backoff (the failure came after that start, so this never
 *   makes a retry look older than it is by more than the failed attempt's duration).
 */
export function readyAtOf(job: WaitingJob): number {
  let readyAt = job.repeatJobKey ? slotOf(job).getTime() : job.timestamp + (job.opts.delay ?? 0);
  if (job.attemptsMade > 0 && typeof job.processedOn === 'number')
    readyAt = Math.max(readyAt, job.processedOn + backoffMs(job.opts, job.attemptsMade));
  return readyAt;
}

/** Age of the oldest waiting job (the next to run): how late the next check will start. */
async function oldestWaitingSeconds(queue: Queue, now: number): Promise<number> {
  const [job] = await queue.getJobs(['waiting'], 0, 0, true);
  if (!job) return 0;
  return Math.max(0, (now - readyAtOf(job)) / 1000);
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
      // A region's queues together: its partitions' schedulers, and per-monitor ones of the previous release.
      const perRegion = new Map<string, number>();
      for (const q of s?.queues ?? []) perRegion.set(q.region, (perRegion.get(q.region) ?? 0) + q.schedulers);
      for (const [region, n] of perRegion) this.set({ region }, n);
    },
  });
  new Gauge({
    name: 'statusvane_check_schedulers_expected',
    help: 'Job schedulers each region should hold according to PostgreSQL (partitions of the enabled monitors checked there)',
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
