import { createHash } from 'node:crypto';
import { Queue, type ConnectionOptions } from 'bullmq';
import type { PrismaClient } from '../db/prisma.js';
import { bullPrefix } from '../db/redis.js';
import type { MonitorKind } from '../schemas/monitor.js';
import { confirmationJobId, heartbeatDeadlineJobId } from '../queues/job-slot.js';
import {
  CHECK_JOB_NAME,
  checkQueueName,
  PARTITION_JOB_NAME,
  partitionQueueName,
  partitionSchedulerId,
  parseSchedulerId,
  schedulerId,
  type CheckJob,
  type Partition,
  type PartitionJob,
} from '../queues/queues.js';

export interface SchedulableMonitor {
  id: string;
  intervalSeconds: number;
  type: MonitorKind;
  /** The monitor's `regions` as stored: empty (or absent) means every region of the deployment. */
  regions?: readonly string[];
}

/**
 * The grid of offsets: every monitor's checks fall on a multiple of this many milliseconds within its interval, so
 * the checks of a step fall due together (at 200 checks a second, about 50 every 250 ms) rather than one every 5 ms.
 * Checks due together are fetched, probed and stored together: BullMQ hands the next waiting job back with each
 * completed one, the probes' sockets, the monitor reads and the group commit share event-loop wake-ups, and a worker
 * spends less CPU per check (docs/benchmarks.md, "Cost per check: checks on a grid"). The price is the time a worker
 * takes to work through one step's checks, added to their lateness; a step stays short next to an interval (10 s at
 * least) and to the detection bound's 2 s of slack.
 */
export const OFFSET_STEP_MS = 250;

/**
 * Where in its interval a monitor's checks fall: a stable hash of its id, so 10,000 monitors created in the same
 * second spread evenly over the interval instead of firing together, on the OFFSET_STEP_MS grid. BullMQ treats
 * offset 0 as "unset", so the range is one step .. the last step before every (1 .. every-1 for an interval of a
 * step or less).
 */
export function spreadOffsetMs(monitorId: string, everyMs: number): number {
  const h = createHash('sha1').update(monitorId).digest().readUInt32BE(0);
  const steps = Math.floor((everyMs - 1) / OFFSET_STEP_MS);
  return steps >= 1 ? OFFSET_STEP_MS * (1 + (h % steps)) : 1 + (h % (everyMs - 1));
}

const JOB_OPTS = {
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 500 },
  // A check whose result could not be stored (PostgreSQL away) is retried rather than silently lost: retries after
  // 1, 2, 4 ... 64 s cover an outage of two minutes (4 attempts from 2 s covered 14 s; a test holds 20 s).
  attempts: 8,
  backoff: { type: 'exponential', delay: 1000 },
};
/** The options of every check job (scheduled and one-off); the benchmark enqueues its jobs with these too. */
export const CHECK_JOB_OPTS: Readonly<typeof JOB_OPTS> = JOB_OPTS;

/** A one-off check of a monitor outside its schedule (first check, resume, a heartbeat judged at once). */
function nowJob(monitorId: string, region: string, now: number) {
  const data: CheckJob = { monitorId, region };
  // BullMQ refuses ':' in custom job ids.
  return { name: CHECK_JOB_NAME, data, opts: { ...JOB_OPTS, jobId: `now-${monitorId}-${region}-${now}` } };
}

/**
 * The regions that check a monitor, of the deployment's CHECK_REGIONS: for http, tcp and dns the monitor's `regions`
 * (all of them when it names none; those still in CHECK_REGIONS when it does, and all again if none is left, so that
 * no monitor goes unchecked after an operator removes a region); for a heartbeat, which is evaluated from the pings it
 * receives rather than probed, only the first region, so each deadline is judged once. The worker's flap logic opens
 * an incident when `monitorQuorum` of these are failing (apps/worker/src/flap/evaluate.ts).
 */
export function monitorRegions(
  checkRegions: readonly string[],
  monitor: Pick<SchedulableMonitor, 'type' | 'regions'>,
): string[] {
  // A heartbeat is judged from its pings, a domain from one shared registry answer: neither has a region to compare.
  if (monitor.type === 'heartbeat' || monitor.type === 'domain') return checkRegions.slice(0, 1);
  const chosen = monitor.regions?.length ? checkRegions.filter((r) => monitor.regions!.includes(r)) : [];
  return chosen.length ? chosen : [...checkRegions];
}

/** A majority of `regionCount` regions: the default quorum. */
export function majorityOf(regionCount: number): number {
  return Math.floor(regionCount / 2) + 1;
}

/**
 * How many of a monitor's `regionCount` regions must be failing to open its incident: its `quorum`, or a majority when
 * it has none; never more than there are regions (CHECK_REGIONS may have shrunk since the quorum was set).
 */
export function monitorQuorum(regionCount: number, quorum: number | null | undefined): number {
  return Math.max(1, Math.min(quorum ?? majorityOf(regionCount), regionCount));
}

/** The job schedulers of each region's queue: region -> id -> every (ms). */
async function schedulersIn(queues: ReadonlyMap<string, Queue>): Promise<Map<string, Map<string, number | undefined>>> {
  const out = new Map<string, Map<string, number | undefined>>();
  for (const [region, queue] of queues) {
    const list = await queue.getJobSchedulers(0, -1);
    out.set(region, new Map(list.map((s) => [s.key, s.every])));
  }
  return out;
}

/**
 * The API's and the reconciler's view of the check queues: one BullMQ job scheduler per partition (region, interval,
 * offset: docs/adr/0020-partitioned-scheduling.md), with the fixed id `part:<everyMs>:<offsetMs>:<region>` so that
 * upserting twice never makes two schedules, and the one-off check jobs.
 */
export class CheckScheduler {
  /** Each region's queue of one-off checks (and of the per-monitor schedulers of the previous release). */
  readonly queues: ReadonlyMap<string, Queue>;
  /** Each region's queue of partition schedulers (partitionQueueName). */
  readonly partitionQueues: ReadonlyMap<string, Queue>;

  constructor(regions: readonly string[], connection: ConnectionOptions, prefix?: string) {
    const open = (name: string) => {
      const keyPrefix = bullPrefix(connection, prefix, name);
      const queue = new Queue(name, { connection, ...(keyPrefix ? { prefix: keyPrefix } : {}) });
      // Connection errors also reject the calls that hit them (mapped to 503 by the API); the event only
      // repeats them, and unhandled it would print to the console.
      queue.on('error', () => undefined);
      return queue;
    };
    this.queues = new Map(regions.map((r) => [r, open(checkQueueName(r))] as const));
    this.partitionQueues = new Map(regions.map((r) => [r, open(partitionQueueName(r))] as const));
  }

  /** The partitions a monitor is a member of: one per region that checks it (docs/adr/0020-partitioned-scheduling.md). */
  partitionsOf(monitor: Pick<SchedulableMonitor, 'id' | 'intervalSeconds' | 'type' | 'regions'>): Partition[] {
    const everyMs = monitor.intervalSeconds * 1000;
    const offsetMs = spreadOffsetMs(monitor.id, everyMs);
    return this.regionsFor(monitor).map((region) => ({ everyMs, offsetMs, region }));
  }

  /**
   * Creates a partition's scheduler unless it has one at its interval: a read, and a write only for a partition's
   * first member (at scale, nearly never). Upserting the same id twice makes one scheduler.
   */
  async ensurePartition(partition: Partition): Promise<void> {
    const queue = this.partitionQueues.get(partition.region);
    if (!queue) return;
    const id = partitionSchedulerId(partition);
    const found = await queue.getJobScheduler(id);
    if (typeof found?.next === 'number' && found.every === partition.everyMs) return;
    const data: PartitionJob = { ...partition };
    await queue.upsertJobScheduler(
      id,
      { every: partition.everyMs, offset: partition.offsetMs },
      { name: PARTITION_JOB_NAME, data, opts: JOB_OPTS },
    );
  }

  /** Removes a partition's scheduler (the reconciler, once no enabled monitor is left in it). */
  async removePartition(partition: Partition): Promise<void> {
    await this.partitionQueues.get(partition.region)?.removeJobScheduler(partitionSchedulerId(partition));
  }

  /** The slot a partition's scheduler runs next (BullMQ's `next`), or null when it has none: nextScheduledSlot. */
  async nextPartitionSlot(partition: Partition): Promise<Date | null> {
    const queue = this.partitionQueues.get(partition.region);
    const s = queue ? await queue.getJobScheduler(partitionSchedulerId(partition)) : undefined;
    return typeof s?.next === 'number' ? new Date(s.next) : null;
  }

  /** Every partition scheduler in Redis, per region: id -> every (ms). */
  listPartitions(): Promise<Map<string, Map<string, number | undefined>>> {
    return schedulersIn(this.partitionQueues);
  }

  /** The regions that check a monitor (monitorRegions). */
  regionsFor(monitor: Pick<SchedulableMonitor, 'type' | 'regions'>): string[] {
    return monitorRegions([...this.queues.keys()], monitor);
  }

  /**
   * Makes sure the partitions of an enabled monitor (created, resumed, a new interval or regions) have their
   * schedulers: their jobs read the monitor from PostgreSQL at run time, so nothing of the monitor itself is written,
   * and pausing or deleting it writes nothing to Redis (an emptied partition is removed by the reconciler).
   */
  async schedule(monitor: SchedulableMonitor): Promise<void> {
    await Promise.all(this.partitionsOf(monitor).map((p) => this.ensurePartition(p)));
  }

  /**
   * One immediate check outside the schedule: the scheduled runs start at the next slot, up to one interval away,
   * and a new or resumed monitor (or a heartbeat's explicit failure ping) should not wait for it.
   */
  async runNow(monitor: Pick<SchedulableMonitor, 'id' | 'type' | 'regions'>, now = Date.now()): Promise<void> {
    await Promise.all(this.regionsFor(monitor).map((region) => this.enqueueNow(monitor.id, region, now)));
  }

  private async enqueueNow(monitorId: string, region: string, now = Date.now()): Promise<void> {
    const job = nowJob(monitorId, region, now);
    await this.queues.get(region)!.add(job.name, job.data, job.opts);
  }

  /**
   * Heartbeats: one evaluation of the monitor at `at`, its next deadline (docs/adr/0014-heartbeat-deadlines.md). The
   * worker arms it after every evaluation; the job id names the deadline, so arming the same one again (the deadline
   * job, the schedule and the ping receiver's evaluations all compute it) adds nothing, and a stale one (a ping moved
   * the deadline since) only evaluates, finds nothing new, and arms the current deadline.
   */
  async armHeartbeatDeadline(monitorId: string, region: string, at: Date, now = Date.now()): Promise<void> {
    await this.addCheckAt(monitorId, region, heartbeatDeadlineJobId(monitorId, region, at), at, now);
  }

  /**
   * Fast confirmation: one re-check of the monitor in `region` at `slot` (its previous counted result's time plus
   * confirmAfterSeconds), outside the schedule. The job id names the slot, so arming it again (a retried job, or a
   * worker that died after storing the result that asked for it) adds nothing while it is queued, and a re-check run
   * twice stores one result (the slot is part of the result's unique key).
   */
  async armConfirmation(monitorId: string, region: string, slot: Date, now = Date.now()): Promise<void> {
    await this.addCheckAt(monitorId, region, confirmationJobId(monitorId, region, slot), slot, now);
  }

  /** One check of the monitor in `region` at `at`, under a job id that names it (adding it twice adds one job). */
  private async addCheckAt(monitorId: string, region: string, jobId: string, at: Date, now: number): Promise<void> {
    const queue = this.queues.get(region);
    if (!queue) return;
    const data: CheckJob = { monitorId, region };
    await queue.add(CHECK_JOB_NAME, data, { ...JOB_OPTS, jobId, delay: Math.max(0, at.getTime() - now) });
  }

  /**
   * The ping receiver: evaluate a heartbeat now (a fail ping, or a success ping while the monitor is not steadily
   * up), rather than at its next deadline. The calls of one event-loop turn go to Redis as one addBulk, as the
   * receiver's database writes do, and a monitor is queued at most once per turn.
   */
  evaluateHeartbeatSoon(monitorId: string, opts: { notAgainWithinMs?: number } = {}): Promise<void> {
    // A stream of success pings for a monitor that stays down (no worker running, say) queues one evaluation per
    // `notAgainWithinMs`, not one per turn.
    if (opts.notAgainWithinMs) {
      const now = Date.now();
      const last = this.soonQueuedAt.get(monitorId);
      if (last !== undefined && now - last < opts.notAgainWithinMs) return Promise.resolve();
      if (this.soonQueuedAt.size >= 10_000) {
        for (const [id, t] of this.soonQueuedAt) if (now - t >= opts.notAgainWithinMs) this.soonQueuedAt.delete(id);
        if (this.soonQueuedAt.size >= 10_000) this.soonQueuedAt.clear();
      }
      this.soonQueuedAt.set(monitorId, now);
    }
    let batch = this.soonBatch;
    if (!batch) {
      const ids = new Set<string>();
      const done = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          this.soonBatch = null;
          this.flushSoon([...ids]).then(resolve, reject);
        });
      });
      batch = this.soonBatch = { ids, done };
    }
    batch.ids.add(monitorId);
    return batch.done;
  }

  private soonBatch: { ids: Set<string>; done: Promise<void> } | null = null;
  private readonly soonQueuedAt = new Map<string, number>();

  private async flushSoon(monitorIds: string[]): Promise<void> {
    const [region] = this.regionsFor({ type: 'heartbeat' });
    if (!region) return;
    const now = Date.now();
    await this.queues.get(region)!.addBulk(monitorIds.map((monitorId) => nowJob(monitorId, region, now)));
  }

  /**
   * The slot the monitor's own scheduler in `region` (of the previous release) runs next (BullMQ's `next`), or null
   * when it has none. A worker that starts a check too late to run reads it: BullMQ skipped every slot between the
   * late one and this one.
   */
  async nextScheduledSlot(monitorId: string, region: string): Promise<Date | null> {
    const queue = this.queues.get(region);
    const s = queue ? await queue.getJobScheduler(schedulerId(monitorId, region)) : undefined;
    return typeof s?.next === 'number' ? new Date(s.next) : null;
  }

  /**
   * Whether each partition of the monitor has its scheduler: a read (no write), so that the API can confirm a new
   * monitor's schedule after the commit without writing it again (confirmNewSchedule).
   */
  async isScheduled(monitor: SchedulableMonitor): Promise<boolean> {
    const slots = await Promise.all(this.partitionsOf(monitor).map((p) => this.nextPartitionSlot(p)));
    return slots.every((next) => next !== null);
  }

  /**
   * Removes the schedulers of one monitor of the previous release (`monitor:<id>:<region>`, ADR 0006) in every region:
   * the reconciler, once the monitor's partitions have theirs.
   */
  async removeMonitorSchedulers(monitorId: string): Promise<void> {
    await Promise.all(
      [...this.queues].map(([region, queue]) => queue.removeJobScheduler(schedulerId(monitorId, region))),
    );
  }

  /** The schedulers of the previous release's queues (per monitor, and any stray), per region: id -> every (ms). */
  listSchedulers(): Promise<Map<string, Map<string, number | undefined>>> {
    return schedulersIn(this.queues);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values(), ...this.partitionQueues.values()].map((q) => q.close()));
  }
}

export interface ReconcileReport {
  /** Partitions with at least one enabled member, over all regions. */
  desired: number;
  /** Partition schedulers created (missing: a new partition, or Redis lost its data). */
  added: number;
  /** Partition schedulers removed: emptied partitions, and stray schedulers of the partition queues. */
  removed: number;
  /** Schedulers of the previous release removed (per monitor: `monitor:<id>:<region>`), once the partitions exist. */
  legacyRemoved: number;
  /** Removals undone because a monitor joined the partition while this pass ran (a create racing the reconciler). */
  corrected: number;
}

/** Where the reconciler reads the truth: the partitions of the enabled monitors, and the current state of some ids. */
export interface MonitorSource {
  /** Every partition with at least one enabled member, in the given regions of CHECK_REGIONS. */
  partitions(checkRegions: readonly string[]): Promise<Partition[]>;
  /** The monitors among `ids` that are enabled now (deleted or paused ones are left out). */
  current(ids: string[]): Promise<SchedulableMonitor[]>;
}

/** Redis writes in flight at once (one-by-one upserts of thousands of schedulers take seconds). */
const WRITE_BATCH = 200;

async function inBatches<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += WRITE_BATCH) await Promise.all(items.slice(i, i + WRITE_BATCH).map(write));
}

/**
 * Makes Redis match PostgreSQL, the source of truth (docs/adr/0020-partitioned-scheduling.md): one partition scheduler
 * per distinct (interval, offset, region) of the enabled monitors, none for an emptied partition, and, once those
 * exist, none of the previous release's per-monitor schedulers. Safe to run at any time and repeatedly; losing all
 * Redis data loses no schedule once this has run.
 *
 * A pass that read the partitions before a monitor's create committed would remove its new partition as emptied. So
 * the partitions are read again after the removals, and any removed one that has a member now is put back: the API's
 * last Redis write for a create comes after its commit (confirmNewSchedule), so a removal that lands after that
 * write's read is followed by this read, made after the commit, which sees the monitor.
 */
export async function reconcileSchedules(scheduler: CheckScheduler, source: MonitorSource): Promise<ReconcileReport> {
  const regions = [...scheduler.partitionQueues.keys()];
  const [existing, wanted] = await Promise.all([scheduler.listPartitions(), source.partitions(regions)]);
  const report: ReconcileReport = { desired: wanted.length, added: 0, removed: 0, legacyRemoved: 0, corrected: 0 };
  const wantedIds = new Set(wanted.map(partitionSchedulerId));
  const missing = wanted.filter((p) => existing.get(p.region)?.get(partitionSchedulerId(p)) !== p.everyMs);
  await inBatches(missing, (p) => scheduler.ensurePartition(p));
  report.added = missing.length;

  const stale: Array<{ region: string; id: string }> = [];
  for (const [region, ids] of existing) {
    for (const id of ids.keys()) if (!wantedIds.has(id)) stale.push({ region, id });
  }
  await inBatches(stale, ({ region, id }) => scheduler.partitionQueues.get(region)!.removeJobScheduler(id));
  report.removed = stale.length;
  if (stale.length > 0) {
    const now = (await source.partitions(regions)).filter((p) =>
      stale.some((s) => s.id === partitionSchedulerId(p) && s.region === p.region),
    );
    await inBatches(now, (p) => scheduler.ensurePartition(p));
    report.corrected = now.length;
  }

  report.legacyRemoved = await removeLegacySchedulers(scheduler, source);
  return report;
}

/**
 * The rolling deploy's last step (docs/adr/0020-partitioned-scheduling.md): the per-monitor schedulers of the previous
 * release go, each once its monitor's partitions have their schedulers (read back now), or at once for a monitor no
 * longer enabled; so no slot runs from neither. One left by an API replica of the previous release that is still
 * upserting goes in a later round (a probe twice meanwhile, one result: the same slot instant).
 */
async function removeLegacySchedulers(scheduler: CheckScheduler, source: MonitorSource): Promise<number> {
  const legacy = await scheduler.listSchedulers();
  const monitorIds = new Set<string>();
  const strays: Array<{ region: string; id: string }> = [];
  for (const [region, ids] of legacy) {
    for (const id of ids.keys()) {
      const parsed = parseSchedulerId(id);
      if (parsed) monitorIds.add(parsed.monitorId);
      else strays.push({ region, id });
    }
  }
  await inBatches(strays, ({ region, id }) => scheduler.queues.get(region)!.removeJobScheduler(id));
  if (monitorIds.size === 0) return strays.length;
  const ids = [...monitorIds];
  const enabled = new Map<string, SchedulableMonitor>();
  for (let i = 0; i < ids.length; i += 5000) {
    for (const m of await source.current(ids.slice(i, i + 5000))) enabled.set(m.id, m);
  }
  const present = await scheduler.listPartitions();
  const removable = ids.filter((id) => {
    const m = enabled.get(id);
    return !m || scheduler.partitionsOf(m).every((p) => present.get(p.region)?.has(partitionSchedulerId(p)));
  });
  await inBatches(removable, (id) => scheduler.removeMonitorSchedulers(id));
  return strays.length + removable.length;
}

/**
 * The API's last word on a monitor's schedule after it commits a change to it (create, resume, a new interval or
 * regions): its partitions ensured once more, from the committed row. The API also writes inside its transaction, so
 * that a Redis failure rolls the whole change back; but a reconciler pass that read the partitions before the commit
 * may have removed a partition the monitor was about to join as emptied. This write comes after the commit, which is
 * what the reconciler's own correction read relies on (reconcileSchedules).
 *
 * Every such write only adds: nothing of a monitor is in Redis, so a follow-up landing after a later pause makes at
 * worst an empty partition's scheduler, which reads no member and which the next reconciler round removes. No lock.
 */
export async function followCommittedSchedule(
  scheduler: CheckScheduler,
  prisma: PrismaClient,
  monitorId: string,
): Promise<void> {
  await followCommittedSchedules(scheduler, prisma, [monitorId]);
}

/**
 * followCommittedSchedule for a monitor the caller has just created (and committed): its partitions' schedulers are
 * read, and ensured again from the committed row only when one is missing. That is enough for a new monitor: a
 * reconciler pass that removes its partition after this read is followed by that pass's own correction read, made
 * after the commit, which puts the scheduler back (reconcileSchedules); one that landed before it is seen here. So the
 * usual create costs one Redis read per region.
 */
export async function confirmNewSchedule(
  scheduler: CheckScheduler,
  prisma: PrismaClient,
  monitor: SchedulableMonitor,
): Promise<void> {
  if (!(await scheduler.isScheduled(monitor))) await followCommittedSchedule(scheduler, prisma, monitor.id);
}

/**
 * followCommittedSchedule for many monitors (config/apply): their committed rows read in one statement, then the
 * partitions of the enabled ones ensured, each once, WRITE_BATCH at a time.
 */
export async function followCommittedSchedules(
  scheduler: CheckScheduler,
  prisma: PrismaClient,
  monitorIds: readonly string[],
): Promise<void> {
  if (monitorIds.length === 0) return;
  const rows = await prisma.monitor.findMany({
    where: { id: { in: [...monitorIds] }, enabled: true },
    select: { id: true, intervalSeconds: true, type: true, regions: true },
  });
  const partitions = new Map<string, Partition>();
  for (const m of rows) for (const p of scheduler.partitionsOf(m)) partitions.set(partitionSchedulerId(p), p);
  await inBatches([...partitions.values()], (p) => scheduler.ensurePartition(p));
}
