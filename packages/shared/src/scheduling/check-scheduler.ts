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

/**
 * The API's and the reconciler's view of the check queues: one BullMQ job scheduler per enabled monitor and
 * region, with the fixed id `monitor:<id>:<region>` so that upserting twice never makes two schedules.
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
  async listPartitions(): Promise<Map<string, Map<string, number | undefined>>> {
    const out = new Map<string, Map<string, number | undefined>>();
    for (const [region, queue] of this.partitionQueues) {
      const list = await queue.getJobSchedulers(0, -1);
      out.set(region, new Map(list.map((s) => [s.key, s.every])));
    }
    return out;
  }

  /** The regions that check a monitor (monitorRegions). */
  regionsFor(monitor: Pick<SchedulableMonitor, 'type' | 'regions'>): string[] {
    return monitorRegions([...this.queues.keys()], monitor);
  }

  /** Creates or updates the schedulers of one monitor in its regions, and removes those of the regions it left. */
  async schedule(monitor: SchedulableMonitor): Promise<void> {
    const every = monitor.intervalSeconds * 1000;
    const offset = spreadOffsetMs(monitor.id, every);
    const regions = this.regionsFor(monitor);
    await Promise.all([
      ...[...this.queues]
        .filter(([region]) => !regions.includes(region))
        .map(([region, queue]) => queue.removeJobScheduler(schedulerId(monitor.id, region))),
      ...regions.map(async (region) => {
        const queue = this.queues.get(region)!;
        const data: CheckJob = { monitorId: monitor.id, region };
        await queue.upsertJobScheduler(
          schedulerId(monitor.id, region),
          { every, offset },
          { name: CHECK_JOB_NAME, data, opts: JOB_OPTS },
        );
      }),
    ]);
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
   * The slot the monitor's scheduler in `region` runs next (BullMQ's `next`), or null when it has none. A worker
   * that starts a check too late to run reads it: BullMQ skipped every slot between the late one and this one.
   */
  async nextScheduledSlot(monitorId: string, region: string): Promise<Date | null> {
    const queue = this.queues.get(region);
    const s = queue ? await queue.getJobScheduler(schedulerId(monitorId, region)) : undefined;
    return typeof s?.next === 'number' ? new Date(s.next) : null;
  }

  /**
   * Whether the monitor has its scheduler, at its interval, in each of its regions: a read (no write), so that the API
   * can confirm a new monitor's schedule after the commit without writing it again (confirmNewSchedule).
   */
  async isScheduled(monitor: SchedulableMonitor): Promise<boolean> {
    const every = monitor.intervalSeconds * 1000;
    const found = await Promise.all(
      this.regionsFor(monitor).map((region) =>
        this.queues.get(region)!.getJobScheduler(schedulerId(monitor.id, region)),
      ),
    );
    return found.every((s) => typeof s?.next === 'number' && s.every === every);
  }

  /** Removes the schedulers of one monitor in every region (pause). Already-queued runs skip paused monitors. */
  async unschedule(monitorId: string): Promise<void> {
    await Promise.all(
      [...this.queues].map(([region, queue]) => queue.removeJobScheduler(schedulerId(monitorId, region))),
    );
  }

  /** Every scheduler in Redis, per region: id -> every (ms). */
  async listSchedulers(): Promise<Map<string, Map<string, number | undefined>>> {
    const out = new Map<string, Map<string, number | undefined>>();
    for (const [region, queue] of this.queues) {
      const list = await queue.getJobSchedulers(0, -1);
      out.set(region, new Map(list.map((s) => [s.key, s.every])));
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values(), ...this.partitionQueues.values()].map((q) => q.close()));
  }
}

export interface ReconcileReport {
  desired: number;
  added: number;
  updated: number;
  removed: number;
  /** Writes undone because the monitor changed in PostgreSQL while this pass ran (a PATCH racing the reconciler). */
  corrected: number;
}

/** Where the reconciler reads the truth: every enabled monitor in batches, and the current state of some ids. */
export interface MonitorSource {
  enabled(): AsyncIterable<SchedulableMonitor[]>;
  /** The monitors among `ids` that are enabled now (deleted or paused ones are left out). */
  current(ids: string[]): Promise<SchedulableMonitor[]>;
}

const sameRegions = (a: readonly string[] = [], b: readonly string[] = []) =>
  a.length === b.length && a.every((r) => b.includes(r));
const sameSchedule = (a: SchedulableMonitor | null, b: SchedulableMonitor | null) =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.intervalSeconds === b.intervalSeconds &&
    a.type === b.type &&
    sameRegions(a.regions, b.regions));

/**
 * Makes Redis match PostgreSQL, the source of truth: every enabled monitor gets its schedulers with the right
 * interval, and schedulers of paused, deleted or unknown monitors go. Safe to run at any time and repeatedly;
 * losing all Redis data loses no schedule once this has run.
 *
 * A pass that read a monitor before a PATCH and writes after it would put back what the PATCH removed (or the old
 * interval). Every write is therefore checked against a fresh read made after it. The API's last Redis write for a
 * change comes after its commit (`followCommittedSchedule`), so an API write that landed before ours committed its
 * row before that read: the read sees it and our write is corrected (a few rounds; the next pass catches anything
 * later). An API write that lands after ours reads the committed row itself.
 */
export async function reconcileSchedules(scheduler: CheckScheduler, source: MonitorSource): Promise<ReconcileReport> {
  const existing = await scheduler.listSchedulers();
  const report: ReconcileReport = { desired: 0, added: 0, updated: 0, removed: 0, corrected: 0 };
  const wanted = new Set<string>();
  /** What this pass wrote per monitor id: its schedule, or null for removed. */
  const written = new Map<string, SchedulableMonitor | null>();
  for await (const batch of source.enabled()) {
    report.desired += batch.length;
    const toUpsert: SchedulableMonitor[] = [];
    for (const m of batch) {
      let needs = false;
      for (const region of scheduler.regionsFor(m)) {
        const schedulers = existing.get(region)!;
        const id = schedulerId(m.id, region);
        wanted.add(id);
        const every = schedulers.get(id);
        if (every === undefined) {
          needs = true;
          report.added++;
        } else if (every !== m.intervalSeconds * 1000) {
          needs = true;
          report.updated++;
        }
      }
      if (needs) toUpsert.push(m);
    }
    // Parallel batches: one-by-one upserts of 10,000 monitors take seconds, batches of 200 a fraction of that.
    for (let i = 0; i < toUpsert.length; i += 200) {
      await Promise.all(toUpsert.slice(i, i + 200).map((m) => scheduler.schedule(m)));
    }
    for (const m of toUpsert) written.set(m.id, m);
  }
  for (const [region, schedulers] of existing) {
    const queue = scheduler.queues.get(region)!;
    const stale = [...schedulers.keys()].filter((id) => !wanted.has(id) || !parseSchedulerId(id));
    for (let i = 0; i < stale.length; i += 200) {
      await Promise.all(stale.slice(i, i + 200).map((id) => queue.removeJobScheduler(id)));
    }
    for (const id of stale) {
      const parsed = parseSchedulerId(id);
      if (parsed && !written.has(parsed.monitorId)) written.set(parsed.monitorId, null);
    }
    report.removed += stale.length;
  }
  let check = [...written.keys()];
  for (let round = 0; round < 3 && check.length > 0; round++) {
    const now = new Map<string, SchedulableMonitor>();
    for (let i = 0; i < check.length; i += 5000) {
      for (const m of await source.current(check.slice(i, i + 5000))) now.set(m.id, m);
    }
    const changed = check.filter((id) => !sameSchedule(written.get(id) ?? null, now.get(id) ?? null));
    for (let i = 0; i < changed.length; i += 200) {
      await Promise.all(
        changed.slice(i, i + 200).map((id) => {
          const m = now.get(id);
          return m ? scheduler.schedule(m) : scheduler.unschedule(id);
        }),
      );
    }
    for (const id of changed) written.set(id, now.get(id) ?? null);
    report.corrected += changed.length;
    check = changed;
  }
  return report;
}

/**
 * The API's last word on a monitor's schedulers after it commits a change to them (create, pause, resume, a new
 * interval): one more write, from the committed row. The API also writes inside its transaction, so that a Redis
 * failure rolls the whole change back; but a reconciler pass that ran between that write and the commit still read
 * the row as it was, and may have undone the write (put back a paused monitor's scheduler, or removed a new
 * monitor's as a stray). This write comes after the commit, which is what the reconciler's own correction relies on.
 *
 * The read and the write happen under a share lock on the row: no change can commit between them, so every such
 * write matches the committed state when it is made. Two PATCHes racing (a pause on one replica, a resume on the
 * other) can therefore not end with the earlier state's write landing last: the later commit waits for the earlier
 * follow-up to finish, and its own follow-up comes after.
 */
export async function followCommittedSchedule(
  scheduler: CheckScheduler,
  prisma: PrismaClient,
  monitorId: string,
): Promise<void> {
  await followCommittedSchedules(scheduler, prisma, [monitorId]);
}

/** Redis writes in flight at once when many monitors are followed (config/apply's creates). */
const FOLLOW_BATCH = 200;

/**
 * followCommittedSchedule for a monitor the caller has just created (and committed): its schedulers are read, and
 * written again from the committed row only when one is missing. That is enough for a new monitor: its only writers
 * are the creating transaction (before the commit), a reconciler pass that removed it as a stray (read before the
 * commit) and later writes from the committed row. A removal that lands after this read is followed by that pass's
 * own correction read, made after the commit, which puts the scheduler back (reconcileSchedules); one that landed
 * before it is seen here. So the usual create costs one Redis read, not a transaction and a second upsert.
 */
export async function confirmNewSchedule(
  scheduler: CheckScheduler,
  prisma: PrismaClient,
  monitor: SchedulableMonitor,
): Promise<void> {
  if (!(await scheduler.isScheduled(monitor))) await followCommittedSchedule(scheduler, prisma, monitor.id);
}

/**
 * followCommittedSchedule for many monitors in one transaction: their rows read under one share lock, then their
 * schedulers written FOLLOW_BATCH at a time (a monitor no longer there, or paused, loses its schedulers).
 */
export async function followCommittedSchedules(
  scheduler: CheckScheduler,
  prisma: PrismaClient,
  monitorIds: readonly string[],
): Promise<void> {
  if (monitorIds.length === 0) return;
  await prisma.$transaction(
    async (tx) => {
      const rows = await tx.$queryRaw<Array<SchedulableMonitor & { enabled: boolean }>>`
        SELECT id::text AS id, "intervalSeconds", type::text AS type, regions, enabled FROM monitors
         WHERE id = ANY(${[...monitorIds]}::uuid[]) FOR SHARE`;
      const byId = new Map(rows.map((m) => [m.id, m]));
      for (let i = 0; i < monitorIds.length; i += FOLLOW_BATCH) {
        await Promise.all(
          monitorIds.slice(i, i + FOLLOW_BATCH).map((id) => {
            const m = byId.get(id);
            return m?.enabled ? scheduler.schedule(m) : scheduler.unschedule(id);
          }),
        );
      }
    },
    { timeout: 60_000 },
  );
}
