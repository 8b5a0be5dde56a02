import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type FlapEvent,
  type FlapInput,
  type FlapState,
  type FlapThresholds,
  evaluateFlap,
  resetFlapState,
} from './evaluate.js';

type Outcome = FlapInput['outcome'];

const down: FlapInput = { outcome: 'down', inMaintenance: false };
const up: FlapInput = { outcome: 'up', inMaintenance: false };
const degraded: FlapInput = { outcome: 'degraded', inMaintenance: false };
const mDown: FlapInput = { outcome: 'down', inMaintenance: true };
const mUp: FlapInput = { outcome: 'up', inMaintenance: true };

interface Step {
  state: FlapState;
  events: FlapEvent[];
}

/** Run a sequence through evaluateFlap, from `start` (default: reset). */
function run(seq: readonly FlapInput[], t: FlapThresholds, start: FlapState = resetFlapState()): Step[] {
  const steps: Step[] = [];
  let state = start;
  for (const r of seq) {
    const d = evaluateFlap(state, r, t);
    steps.push(d);
    state = d.state;
  }
  return steps;
}

const eventTypes = (steps: Step[]) => steps.map((s) => s.events.map((e) => e.type).join('+') || '-');
const flat = (steps: Step[]) => steps.flatMap((s) => s.events.map((e) => e.type));
const repeat = <T>(x: T, n: number): T[] => Array.from({ length: n }, () => x);
const t = (openThreshold: number, resolveThreshold: number): FlapThresholds => ({ openThreshold, resolveThreshold });

/**
 * Reference model, written from the definition instead of counters: at step i the number of
 * consecutive failures (passes) is the length of the run of failing (passing) results ending at i,
 * found by scanning backwards. An incident opens on a failing, non-maintenance step whose failure run
 * is >= openThreshold while none is open; it resolves on a passing step whose pass run is >=
 * resolveThreshold while one is open.
 */
function reference(seq: readonly FlapInput[], th: FlapThresholds) {
  const isFail = (r: FlapInput) => r.outcome === 'down';
  const runEndingAt = (i: number, pred: (r: FlapInput) => boolean) => {
    let n = 0;
    for (let j = i; j >= 0 && pred(seq[j] as FlapInput); j--) n++;
    return n;
  };
  let open = false;
  return seq.map((r, i) => {
    const failures = runEndingAt(i, isFail);
    const passes = runEndingAt(i, (x) => !isFail(x));
    let event: 'open' | 'resolve' | null = null;
    if (isFail(r) && !open && !r.inMaintenance && failures >= th.openThreshold) {
      open = true;
      event = 'open';
    } else if (!isFail(r) && open && passes >= th.resolveThreshold) {
      open = false;
      event = 'resolve';
    }
    return {
      state: { consecutiveFailures: failures, consecutivePasses: passes, incidentOpen: open },
      events: event ? [{ type: event }] : [],
    };
  });
}

const arbInput: fc.Arbitrary<FlapInput> = fc.record({
  outcome: fc.constantFrom<Outcome>('up', 'degraded', 'down'),
  // Maintenance comes in stretches in real life; a biased coin still covers every transition.
  inMaintenance: fc.boolean(),
});
// Failure-heavy sequences reach high thresholds more often.
const arbBiasedInput: fc.Arbitrary<FlapInput> = fc.record({
  outcome: fc.constantFrom<Outcome>('down', 'down', 'down', 'up', 'degraded'),
  inMaintenance: fc.constantFrom(false, false, false, true),
});
const arbSeq = fc.oneof(fc.array(arbInput, { maxLength: 60 }), fc.array(arbBiasedInput, { maxLength: 80 }));

const PAIRS: Array<[number, number]> = [];
for (let o = 1; o <= 10; o++) for (let r = 1; r <= 10; r++) PAIRS.push([o, r]);

describe('evaluateFlap — against a reference model, every threshold pair 1..10 x 1..10', () => {
  it.each(PAIRS)('open %i / resolve %i', (o, r) => {
    const th = t(o, r);
    fc.assert(
      fc.property(arbSeq, (seq) => {
        expect(run(seq, th)).toEqual(reference(seq, th));
      }),
      { numRuns: 60 },
    );
  });
});

describe('evaluateFlap — invariants (property)', () => {
  const arbThresholds = fc.record({
    openThreshold: fc.integer({ min: 1, max: 10 }),
    resolveThreshold: fc.integer({ min: 1, max: 10 }),
  });
  const arbState: fc.Arbitrary<FlapState> = fc.oneof(
    fc.record({
      consecutiveFailures: fc.nat({ max: 20 }),
      consecutivePasses: fc.constant(0),
      incidentOpen: fc.boolean(),
    }),
    fc.record({
      consecutiveFailures: fc.constant(0),
      consecutivePasses: fc.nat({ max: 20 }),
      incidentOpen: fc.boolean(),
    }),
  );

  it('never two opens without a resolve in between, and never a resolve without an open', () => {
    fc.assert(
      fc.property(arbThresholds, arbSeq, (th, seq) => {
        const events = flat(run(seq, th));
        events.forEach((e, i) => expect(e).toBe(i % 2 === 0 ? 'open' : 'resolve'));
      }),
    );
  });

  it('emits at most one event per result, and only when incidentOpen flips', () => {
    fc.assert(
      fc.property(arbThresholds, arbState, arbSeq, (th, start, seq) => {
        let prev = start;
        for (const step of run(seq, th, start)) {
          expect(step.events.length).toBeLessThanOrEqual(1);
          const flipped = prev.incidentOpen !== step.state.incidentOpen;
          expect(step.events.length === 1).toBe(flipped);
          if (flipped) expect(step.events[0]?.type).toBe(step.state.incidentOpen ? 'open' : 'resolve');
          prev = step.state;
        }
      }),
    );
  });

  it('keeps exactly one counter non-zero after each result, counting the current run', () => {
    fc.assert(
      fc.property(arbThresholds, arbState, arbInput, (th, start, r) => {
        const { state } = evaluateFlap(start, r, th);
        if (r.outcome === 'down')
          expect(state).toMatchObject({ consecutiveFailures: start.consecutiveFailures + 1, consecutivePasses: 0 });
        else expect(state).toMatchObject({ consecutiveFailures: 0, consecutivePasses: start.consecutivePasses + 1 });
      }),
    );
  });

  it('never opens during maintenance', () => {
    fc.assert(
      fc.property(arbThresholds, arbState, fc.array(arbInput, { maxLength: 40 }), (th, start, seq) => {
        const maint = seq.map((x) => ({ ...x, inMaintenance: true }));
        expect(flat(run(maint, th, start))).not.toContain('open');
      }),
    );
  });

  it('does not mutate its input state', () => {
    fc.assert(
      fc.property(arbThresholds, arbState, arbInput, (th, start, r) => {
        const copy = { ...start };
        evaluateFlap(start, r, th);
        expect(start).toEqual(copy);
      }),
    );
  });

  it('treats degraded exactly like up', () => {
    fc.assert(
      fc.property(arbThresholds, arbState, fc.array(arbInput, { maxLength: 40 }), (th, start, seq) => {
        const asUp = seq.map((x) => (x.outcome === 'degraded' ? { ...x, outcome: 'up' as const } : x));
        expect(run(seq, th, start)).toEqual(run(asUp, th, start));
      }),
    );
  });
});

describe('evaluateFlap — hand-written cases', () => {
  it('opens on exactly openThreshold consecutive failures, not one fewer', () => {
    for (let o = 1; o <= 10; o++) {
      expect(flat(run(repeat(down, o - 1), t(o, 1)))).toEqual([]);
      const steps = run(repeat(down, o), t(o, 1));
      expect(eventTypes(steps).at(-1)).toBe('open');
      expect(flat(steps)).toEqual(['open']);
      expect(steps.at(-1)?.state).toEqual({ consecutiveFailures: o, consecutivePasses: 0, incidentOpen: true });
    }
  });

  it('threshold 1 opens on the first failure and resolves on the first pass', () => {
    expect(eventTypes(run([down, up], t(1, 1)))).toEqual(['open', 'resolve']);
  });

  it('an interleaved pass resets the failure count', () => {
    expect(eventTypes(run([down, down, up, down, down], t(3, 1)))).toEqual(['-', '-', '-', '-', '-']);
    expect(eventTypes(run([down, down, up, down, down, down], t(3, 1)))).toEqual(['-', '-', '-', '-', '-', 'open']);
  });

  it('an interleaved failure resets the pass count', () => {
    const seq = [down, up, up, down, up, up, up];
    expect(eventTypes(run(seq, t(1, 3)))).toEqual(['open', '-', '-', '-', '-', '-', 'resolve']);
  });

  it('resolves after exactly resolveThreshold passes, not one fewer', () => {
    for (let r = 1; r <= 10; r++) {
      const open = run([down], t(1, r)).at(-1)!.state;
      expect(flat(run(repeat(up, r - 1), t(1, r), open))).toEqual([]);
      const steps = run(repeat(up, r), t(1, r), open);
      expect(eventTypes(steps).at(-1)).toBe('resolve');
      expect(steps.at(-1)?.state).toEqual({ consecutiveFailures: 0, consecutivePasses: r, incidentOpen: false });
    }
  });

  it('keeps counting failures after opening without opening again', () => {
    const steps = run(repeat(down, 10), t(2, 2));
    expect(eventTypes(steps)).toEqual(['-', 'open', '-', '-', '-', '-', '-', '-', '-', '-']);
    expect(steps.at(-1)?.state.consecutiveFailures).toBe(10);
  });

  it('does not resolve when no incident is open', () => {
    expect(flat(run(repeat(up, 20), t(1, 1)))).toEqual([]);
  });

  it('degraded counts as a pass', () => {
    expect(eventTypes(run([down, down, degraded, down, down], t(3, 1)))).toEqual(['-', '-', '-', '-', '-']);
    expect(eventTypes(run([down, degraded, degraded], t(1, 2)))).toEqual(['open', '-', 'resolve']);
  });

  describe('maintenance', () => {
    it('suppresses opening but keeps counting failures', () => {
      const steps = run(repeat(mDown, 5), t(2, 2));
      expect(flat(steps)).toEqual([]);
      expect(steps.at(-1)?.state).toEqual({ consecutiveFailures: 5, consecutivePasses: 0, incidentOpen: false });
    });

    it('opens on the first failure after maintenance when the count already reached the threshold', () => {
      expect(eventTypes(run([mDown, mDown, mDown, down], t(3, 1)))).toEqual(['-', '-', '-', 'open']);
      // Two failures inside the window plus one after reach the threshold of 3 together.
      expect(eventTypes(run([mDown, mDown, down], t(3, 1)))).toEqual(['-', '-', 'open']);
      // One inside + one after is not enough for 3.
      expect(eventTypes(run([mDown, down], t(3, 1)))).toEqual(['-', '-']);
    });

    it('a pass during maintenance resets the count like any pass', () => {
      expect(eventTypes(run([mDown, mDown, mUp, down, down], t(3, 1)))).toEqual(['-', '-', '-', '-', '-']);
    });

    it('does not open while failures continue in maintenance, but resolves an incident opened before it', () => {
      const steps = run([down, down, mDown, mUp, mUp], t(2, 2));
      expect(eventTypes(steps)).toEqual(['-', 'open', '-', '-', 'resolve']);
    });

    it('an incident open before maintenance stays open through failures in it', () => {
      const steps = run([down, mDown, mDown], t(1, 1));
      expect(eventTypes(steps)).toEqual(['open', '-', '-']);
      expect(steps.at(-1)?.state.incidentOpen).toBe(true);
    });
  });

  describe('resetFlapState', () => {
    it('returns zero counters and no incident', () => {
      expect(resetFlapState()).toEqual({ consecutiveFailures: 0, consecutivePasses: 0, incidentOpen: false });
    });
    it('returns a fresh object each time', () => {
      const a = resetFlapState();
      a.consecutiveFailures = 9;
      expect(resetFlapState().consecutiveFailures).toBe(0);
    });
    it('after a reset (incident deleted) a new incident needs openThreshold fresh failures', () => {
      const before = run(repeat(down, 5), t(3, 2)).at(-1)!.state;
      expect(before.incidentOpen).toBe(true);
      const after = run(repeat(down, 3), t(3, 2), resetFlapState());
      expect(eventTypes(after)).toEqual(['-', '-', 'open']);
    });
  });

  it('rejects thresholds that are not integers >= 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => evaluateFlap(resetFlapState(), down, t(bad, 1))).toThrow(RangeError);
      expect(() => evaluateFlap(resetFlapState(), down, t(1, bad))).toThrow(RangeError);
    }
  });
});
