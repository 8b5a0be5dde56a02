import type { PrismaClient } from '@statusvane/shared';
import { bySlot, GroupWriter } from './result-writer.js';

/**
 * Over capacity (docs/decisions.md, "Over capacity: missed slots"): BullMQ keeps one job per scheduler, and a job that
 * starts more than an interval late makes it skip the slots that passed meanwhile (its next job is at the first slot
 * still ahead). The late job itself runs, so that each monitor is checked once per round of the queue and the lateness
 * is shared evenly; the slots skipped are stored as `missed` results (no data). A missed row is cheap on purpose,
 * since it is written when the store is already the bottleneck: one multi-row INSERT shared by every miss of the
 * moment, no monitor lock, no flap state, no rollup (uptime and response times count checks that ran; a missed slot
 * is neither up nor down). The same statement records each new miss as a span for uptime accounting (no data from the
 * slot to the next, kept beyond result retention: docs/adr/0018-uptime-accounting-spans.md).
 */

export interface MissedSlot {
  monitorId: string;
  region: string;
  slot: Date;
  /** When the miss was recorded: the result's `checkedAt`. */
  recordedAt: Date;
  reason: string;
}

/** Whether the slot was stored (false: it already had a result), or why nothing was written. */
export type MissedOutcome = 'recorded' | 'exists' | 'heartbeat' | 'gone';

/** Stores many missed slots in one statement; answers each, in order. Monitors deleted meanwhile are skipped. */
export async function storeMissedSlots(
  prisma: Pick<PrismaClient, '$queryRaw'>,
  slots: readonly MissedSlot[],
): Promise<MissedOutcome[]> {
  if (slots.length === 0) return [];
  const col = <T>(f: (s: MissedSlot) => T) => slots.map(f);
  const rows = await prisma.$queryRaw<Array<{ i: bigint; type: string | null; enabled: boolean | null; ins: boolean }>>`
    WITH v AS (
      SELECT * FROM unnest(${col((s) => s.monitorId)}::uuid[], ${col((s) => s.region)}::text[],
        ${col((s) => s.slot.toISOString())}::timestamptz[], ${col((s) => s.recordedAt.toISOString())}::timestamptz[],
        ${col((s) => s.reason)}::text[]) WITH ORDINALITY AS v(m, r, s, c, reason, i)
    ), ins AS (
      INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, reason)
      SELECT v.m, v.r, v.s, v.c, 'missed', v.reason FROM v
      JOIN monitors mo ON mo.id = v.m AND mo.enabled AND mo.type <> 'heartbeat'
      ON CONFLICT ("monitorId", region, slot) DO NOTHING
      RETURNING "monitorId", region, slot
    ), spans AS (
      INSERT INTO monitor_spans ("monitorId", kind, region, "startedAt", "endedAt")
      SELECT ins."monitorId", 'missed', ins.region, ins.slot, ins.slot + make_interval(secs => mo."intervalSeconds")
      FROM ins JOIN monitors mo ON mo.id = ins."monitorId"
    )
    SELECT v.i, mo.type::text AS type, mo.enabled, (ins.slot IS NOT NULL) AS ins
    FROM v LEFT JOIN monitors mo ON mo.id = v.m
    LEFT JOIN ins ON ins."monitorId" = v.m AND ins.region = v.r AND ins.slot = v.s`;
  const out: MissedOutcome[] = slots.map(() => 'gone');
  for (const r of rows) {
    // A heartbeat is judged from its pings and deadlines, never by schedule slots: none is recorded missed.
    out[Number(r.i) - 1] =
      r.type === null || !r.enabled ? 'gone' : r.type === 'heartbeat' ? 'heartbeat' : r.ins ? 'recorded' : 'exists';
  }
  return out;
}

/**
 * The group writer of missed slots (group commit, result-writer.ts): `write` stores one, in one statement with the
 * other misses of the moment. One per database client: the worker runtime makes it and hands it to the check processor.
 */
export type MissedSlotWriter = Pick<GroupWriter<MissedSlot, MissedOutcome>, 'write'>;

export function createMissedSlotWriter(prisma: PrismaClient): MissedSlotWriter {
  return new GroupWriter({
    group: (inputs: MissedSlot[]) => storeMissedSlots(prisma, inputs),
    one: async (input: MissedSlot) => (await storeMissedSlots(prisma, [input]))[0]!,
    order: bySlot,
  });
}

/**
 * At most this many slots are recorded after one late job: a fleet that was down for days would otherwise write a row
 * per monitor and slot of the whole outage when it comes back. Slots beyond it have no row, which uptime and response
 * times read the same way (no data).
 */
export const MAX_MISSED_SLOTS_PER_JOB = 100;

/**
 * The slots BullMQ skipped after a scheduled check that starts at `startedAt`: none when it starts within its interval
 * (before slot + every); else every later slot of its schedule before the scheduler's next one (`nextSlot`, read
 * after BullMQ moved on), before `startedAt` and from `since` on (when a partition's member joined it: a scheduler of
 * its own made then could not have skipped earlier slots either), the most recent MAX_MISSED_SLOTS_PER_JOB of them.
 * Without `nextSlot` (the scheduler is gone: the monitor was paused or deleted, the partition emptied) none.
 */
export function skippedSlotsOf(input: {
  slot: Date;
  everyMs: number;
  startedAt: Date;
  nextSlot: Date | null;
  since?: Date | null;
}): Date[] {
  const { slot, everyMs, startedAt, nextSlot } = input;
  if (!(everyMs > 0) || nextSlot === null || startedAt.getTime() < slot.getTime() + everyMs) return [];
  const until = Math.min(nextSlot.getTime(), startedAt.getTime());
  // Slots slot + k * every for k >= 1, before `until` and not before `since`.
  const count = Math.max(0, Math.ceil((until - slot.getTime()) / everyMs) - 1);
  const fromSince = input.since ? Math.ceil((input.since.getTime() - slot.getTime()) / everyMs) : 1;
  const first = Math.max(1, fromSince, count - MAX_MISSED_SLOTS_PER_JOB + 1);
  return Array.from(
    { length: Math.max(0, count - first + 1) },
    (_, k) => new Date(slot.getTime() + (first + k) * everyMs),
  );
}

export interface LateJob {
  monitorId: string;
  region: string;
  slot: Date;
  /** The scheduler's interval. */
  everyMs: number;
  startedAt: Date;
  /** A partition's member: when it joined the partition (scheduledSince); no slot before it is recorded. */
  since?: Date | null;
}

/** Whether a scheduled check started an interval or more after its slot: only then may BullMQ have skipped a slot. */
export function startedLate(job: Pick<LateJob, 'slot' | 'everyMs' | 'startedAt'>): boolean {
  return job.startedAt.getTime() >= job.slot.getTime() + job.everyMs;
}

/**
 * A scheduled check whose job started late (startedLate: at or after its slot plus its interval; the caller asks
 * first): records the slots BullMQ skipped after it as missed (it runs itself, as usual). `nextSlot` reads the slot
 * its scheduler (the monitor's own, or its partition's) runs next. Answers how many were written: 0 for a heartbeat,
 * a deleted or paused monitor, or slots already recorded (a job run twice).
 */
export async function recordSkippedSlots(
  deps: { missedSlots: MissedSlotWriter },
  job: LateJob,
  nextSlot: () => Promise<Date | null>,
): Promise<number> {
  const slots = skippedSlotsOf({ ...job, nextSlot: await nextSlot() });
  const late = Math.round((job.startedAt.getTime() - job.slot.getTime()) / 1000);
  const outcomes = await Promise.all(
    slots.map((slot) =>
      deps.missedSlots.write({
        monitorId: job.monitorId,
        region: job.region,
        slot,
        recordedAt: job.startedAt,
        reason: `checks_behind: not run, the checks were ${late} s behind`,
      }),
    ),
  );
  return outcomes.filter((o) => o === 'recorded').length;
}
