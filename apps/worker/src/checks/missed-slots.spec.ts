import { describe, expect, it } from '@jest/globals';
import { MAX_MISSED_SLOTS_PER_JOB, skippedSlotsOf } from './missed-slots.js';

const T = 1_800_000_000_000;
const every = 60_000;
const at = (ms: number) => new Date(T + ms);
const skipped = (startedAfter: number, nextAfter: number | null) =>
  skippedSlotsOf({
    slot: at(0),
    everyMs: every,
    startedAt: at(startedAfter),
    nextSlot: nextAfter === null ? null : at(nextAfter),
  }).map((d) => d.getTime() - T);

describe('skippedSlotsOf (the slots BullMQ skipped after a late job)', () => {
  it('none when the job starts within its interval', () => {
    expect(skipped(0, every)).toEqual([]);
    expect(skipped(every - 1, every)).toEqual([]);
  });

  it('the slots between the late one and the scheduler’s next one', () => {
    // Started exactly at the next slot: that slot is BullMQ's next job, not skipped.
    expect(skipped(every, every)).toEqual([]);
    expect(skipped(every + 30_000, 2 * every)).toEqual([every]);
    expect(skipped(3 * every + 5, 4 * every)).toEqual([every, 2 * every, 3 * every]);
  });

  it('never one that is still ahead (the scheduler’s next, or one after the start)', () => {
    // BullMQ moved on a moment before the processor started: the slot at the start is its next job, not skipped.
    expect(skipped(2 * every + 3, 2 * every)).toEqual([every]);
    // A scheduler re-upserted with a later next slot: nothing after the job's own start.
    expect(skipped(every + 10, 10 * every)).toEqual([every]);
  });

  it('none without a scheduler (paused or deleted), and at most MAX_MISSED_SLOTS_PER_JOB, the latest', () => {
    expect(skipped(5 * every, null)).toEqual([]);
    const many = skipped(1000 * every + 1, 1001 * every);
    expect(many).toHaveLength(MAX_MISSED_SLOTS_PER_JOB);
    expect(many.at(-1)).toBe(1000 * every);
    expect(many[0]).toBe((1001 - MAX_MISSED_SLOTS_PER_JOB) * every);
  });
});
