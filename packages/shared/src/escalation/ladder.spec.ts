import { describe, expect, it } from '@jest/globals';
import {
  cycleAnchors,
  elapsedMinutes,
  impactAtLeast,
  ladderState,
  ladderStoppedAt,
  type Impact,
  type LadderDelivery,
  type LadderIncident,
  type LadderPolicy,
} from './ladder.js';

const T0 = new Date('2026-03-01T10:00:00.000Z');
/** The injectable clock: minutes after T0. */
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const step = (position: number, delayMinutes: number, minImpact: Impact = 'none') => ({
  id: `s${position}`,
  position,
  delayMinutes,
  minImpact,
});
const policy = (steps: LadderPolicy['steps'], repeatCount = 0): LadderPolicy => ({ steps, repeatCount });
const incident = (over: Partial<LadderIncident> = {}): LadderIncident => ({
  status: 'open',
  impact: 'major',
  startedAt: T0,
  acknowledgedAt: null,
  resolvedAt: null,
  ...over,
});
/** One delivery row per (step, cycle) is enough for the clock: several targets share the fire time. */
const fired = (stepId: string, cycle: number, minutes: number): LadderDelivery => ({
  stepId,
  cycle,
  createdAt: at(minutes),
});

const THREE = policy([step(0, 0), step(1, 5), step(2, 15)]);

describe('impactAtLeast', () => {
  it('orders none < minor < major < critical', () => {
    const order: Impact[] = ['none', 'minor', 'major', 'critical'];
    for (const [i, a] of order.entries()) {
      for (const [j, b] of order.entries()) expect([a, b, impactAtLeast(a, b)]).toEqual([a, b, i >= j]);
    }
  });
});

describe('elapsedMinutes', () => {
  it('counts whole minutes from startedAt to now', () => {
    expect(elapsedMinutes(incident(), T0)).toBe(0);
    expect(elapsedMinutes(incident(), new Date(T0.getTime() + 59_999))).toBe(0);
    expect(elapsedMinutes(incident(), at(1))).toBe(1);
    expect(elapsedMinutes(incident(), at(90.5))).toBe(90);
  });

  it('stops at resolvedAt, and never goes negative (clock behind startedAt)', () => {
    expect(elapsedMinutes(incident({ resolvedAt: at(12) }), at(500))).toBe(12);
    expect(elapsedMinutes(incident(), at(-3))).toBe(0);
  });

  it('is not stopped by an acknowledgement', () => {
    const s = ladderState(THREE, incident({ status: 'acknowledged', acknowledgedAt: at(2) }), [], at(30));
    expect(s.elapsedMinutes).toBe(30);
  });
});

describe('ladderStoppedAt', () => {
  it('is null while open, the acknowledgement or the resolution otherwise, whichever came first', () => {
    expect(ladderStoppedAt(incident())).toBeNull();
    expect(ladderStoppedAt(incident({ status: 'acknowledged', acknowledgedAt: at(3) }))).toEqual(at(3));
    expect(ladderStoppedAt(incident({ status: 'resolved', resolvedAt: at(9) }))).toEqual(at(9));
    expect(ladderStoppedAt(incident({ status: 'resolved', acknowledgedAt: at(3), resolvedAt: at(9) }))).toEqual(at(3));
  });
});

describe('due and fired within one cycle', () => {
  it('nothing is due before the first delay, and a delay-0 step is due at once', () => {
    const late = ladderState(policy([step(0, 10)]), incident(), [], at(9.99));
    expect(late.steps[0]).toMatchObject({ due: false, fired: false, firedAt: null, dueAt: at(10) });
    const zero = ladderState(THREE, incident(), [], T0);
    expect(zero.steps.map((s) => s.due)).toEqual([true, false, false]);
  });

  it('a step is due exactly at startedAt + delay (inclusive boundary)', () => {
    expect(ladderState(THREE, incident(), [], new Date(at(5).getTime() - 1)).steps[1]!.due).toBe(false);
    expect(ladderState(THREE, incident(), [], at(5)).steps[1]!.due).toBe(true);
  });

  it('fired and firedAt follow the delivery rows (the earliest row of the step in the cycle)', () => {
    const rows = [fired('s0', 0, 0.2), { stepId: 's0', cycle: 0, createdAt: at(0.1) }, fired('s1', 0, 5.1)];
    const s = ladderState(THREE, incident(), rows, at(6));
    expect(s.steps.map((x) => [x.due, x.fired, x.firedAt?.toISOString() ?? null])).toEqual([
      [true, true, at(0.1).toISOString()],
      [true, true, at(5.1).toISOString()],
      [false, false, null],
    ]);
    expect(s).toMatchObject({ cycle: 0, escalating: true, exhausted: false, nextDueAt: at(15) });
  });

  it('sorts steps by position whatever order they come in', () => {
    const s = ladderState(policy([step(2, 15), step(0, 0), step(1, 5)]), incident(), [], at(1));
    expect(s.steps.map((x) => x.position)).toEqual([0, 1, 2]);
  });

  it('a step whose minImpact is above the incident impact is never due', () => {
    const p = policy([step(0, 0, 'minor'), step(1, 0, 'critical')]);
    const s = ladderState(p, incident({ impact: 'major' }), [], at(100));
    expect(s.steps.map((x) => [x.applies, x.due])).toEqual([
      [true, true],
      [false, false],
    ]);
    const none = ladderState(p, incident({ impact: 'none' }), [], at(100));
    expect(none).toMatchObject({ nothingApplies: true, escalating: false });
  });

  it('is exhausted once the only cycle has fired every step that applies', () => {
    const p = policy([step(0, 0), step(1, 5, 'critical')]);
    const s = ladderState(p, incident(), [fired('s0', 0, 0)], at(60));
    expect(s).toMatchObject({ exhausted: true, escalating: false, nextDueAt: null });
  });
});

describe('the clock stops when the ladder is stopped', () => {
  it('acknowledged: steps whose time came after the acknowledgement are not due', () => {
    const s = ladderState(
      THREE,
      incident({ status: 'acknowledged', acknowledgedAt: at(3) }),
      [fired('s0', 0, 0)],
      at(60),
    );
    expect(s.steps.map((x) => x.due)).toEqual([true, false, false]);
    expect(s).toMatchObject({ escalating: false, clock: at(3) });
  });

  it('resolved: the same, and elapsedMinutes stops too', () => {
    const s = ladderState(
      THREE,
      incident({ status: 'resolved', resolvedAt: at(7) }),
      [fired('s0', 0, 0), fired('s1', 0, 5)],
      at(60),
    );
    expect(s.steps.map((x) => [x.due, x.fired])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
    expect(s).toMatchObject({ escalating: false, elapsedMinutes: 7 });
  });
});

describe('repeat cycles', () => {
  const P = policy([step(0, 0), step(1, 10)], 2); // three cycles in all

  it('the next cycle starts when the previous cycle last step fired, not when it was due', () => {
    // Cycle 0: step 1 due at 10, fired late at 12 (a slow worker). Cycle 1 restarts from 12.
    const rows = [fired('s0', 0, 0), fired('s1', 0, 12)];
    expect(cycleAnchors(P, incident(), rows, at(12))).toEqual([T0, at(12)]);
    const s = ladderState(P, incident(), rows, at(12));
    expect(s.cycle).toBe(1);
    expect(s.steps.map((x) => [x.dueAt.toISOString(), x.due, x.fired, x.firedInCurrentCycle])).toEqual([
      [at(12).toISOString(), true, true, false],
      [at(22).toISOString(), false, true, false],
    ]);
    expect(s.nextDueAt).toEqual(at(12));
  });

  it('firedAt shows the latest cycle in which the step fired', () => {
    const rows = [fired('s0', 0, 0), fired('s1', 0, 10), fired('s0', 1, 10.5)];
    const s = ladderState(P, incident(), rows, at(11));
    expect(s.steps[0]!.firedAt).toEqual(at(10.5));
    expect(s.steps[1]!.firedAt).toEqual(at(10));
  });

  it('runs 1 + repeatCount cycles, then is exhausted', () => {
    const rows = [fired('s0', 0, 0), fired('s1', 0, 10), fired('s0', 1, 10), fired('s1', 1, 20), fired('s0', 2, 20)];
    const mid = ladderState(P, incident(), rows, at(25));
    expect(mid).toMatchObject({ cycle: 2, escalating: true, exhausted: false, nextDueAt: at(30) });
    const done = ladderState(P, incident(), [...rows, fired('s1', 2, 30)], at(31));
    expect(done).toMatchObject({ cycle: 2, escalating: false, exhausted: true });
    expect(done.anchors).toEqual([T0, at(10), at(20)]);
  });

  it('repeatCount 0: one cycle, never a second', () => {
    const s = ladderState(policy([step(0, 0)], 0), incident(), [fired('s0', 0, 0)], at(1000));
    expect(s).toMatchObject({ cycle: 0, exhausted: true, escalating: false });
  });

  it('a last step that can never fire (minImpact) is passed over at its due time', () => {
    const p = policy([step(0, 0), step(1, 30, 'critical')], 1);
    const rows = [fired('s0', 0, 0)];
    expect(ladderState(p, incident(), rows, at(29)).cycle).toBe(0);
    const s = ladderState(p, incident(), rows, at(30));
    expect(s.anchors).toEqual([T0, at(30)]);
    expect(s.steps[0]).toMatchObject({ dueAt: at(30), due: true, firedInCurrentCycle: false });
    expect(s.escalating).toBe(true);
  });

  it('a cycle does not start while the previous last step that applies has not fired (e.g. deferred by maintenance)', () => {
    const s = ladderState(P, incident(), [fired('s0', 0, 0)], at(500));
    expect(s).toMatchObject({ cycle: 0, escalating: true, nextDueAt: at(10) });
    expect(s.steps[1]!.due).toBe(true);
  });

  it('a stopped ladder does not start a cycle after the stop', () => {
    const p = policy([step(0, 0), step(1, 30, 'critical')], 1);
    const s = ladderState(p, incident({ status: 'acknowledged', acknowledgedAt: at(10) }), [fired('s0', 0, 0)], at(60));
    expect(s.cycle).toBe(0);
  });
});

describe('no policy', () => {
  it('has no steps, does not escalate, and still counts minutes', () => {
    expect(ladderState(null, incident(), [], at(42))).toMatchObject({
      steps: [],
      escalating: false,
      elapsedMinutes: 42,
      cycle: 0,
    });
    expect(ladderState(policy([]), incident(), [], at(1))).toMatchObject({ steps: [], escalating: false });
  });
});
