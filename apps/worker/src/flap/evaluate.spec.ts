import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type FlapDecision,
  type FlapInput,
  type FlapRules,
  type FlapState,
  confirmationGapMs,
  evaluateFlap,
  regionStateOf,
  resetFlapState,
} from './evaluate.js';
import { majorityOf } from '@statusvane/shared';

type Outcome = FlapInput['outcome'];

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const S = 1000;

/** A result: `at` seconds after T0. */
const r = (outcome: Outcome, at: number, region = 'eu', inMaintenance = false): FlapInput => ({
  region,
  slot: new Date(T0 + at * S),
  checkedAt: new Date(T0 + at * S),
  outcome,
  inMaintenance,
});

/** Run a sequence through evaluateFlap, from `start` (default: reset). */
function run(seq: readonly FlapInput[], rules: FlapRules, start: FlapState = resetFlapState()): FlapDecision[] {
  const steps: FlapDecision[] = [];
  let state = start;
  for (const x of seq) {
    const d = evaluateFlap(state, x, rules);
    steps.push(d);
    state = d.state;
  }
  return steps;
}

const eventTypes = (steps: FlapDecision[]) => steps.map((s) => s.events.map((e) => e.type).join('+') || '-');
const flat = (steps: FlapDecision[]) => steps.flatMap((s) => s.events.map((e) => e.type));
const rules = (
  openThreshold: number,
  resolveThreshold: number,
  regions = ['eu'],
  intervalSeconds = 60,
  confirmAfterSeconds = 15,
  quorum = majorityOf(regions.length),
): FlapRules => ({
  openThreshold,
  resolveThreshold,
  intervalSeconds,
  confirmAfterSeconds,
  recheck: true,
  regions,
  quorum,
});
/** n results of one outcome in one region, one interval (60 s) apart from `from` seconds. */
const every60 = (outcome: Outcome, n: number, from = 0, region = 'eu') =>
  Array.from({ length: n }, (_, i) => r(outcome, from + i * 60, region));

/**
 * Reference model, written from the definition instead of incremental state. Which results count is decided per
 * region by the gap, but for a result that starts a confirmation (against its region at rest: the region's last
 * counted result on the side the region is on), which counts at once. A region's `failing` at step i is found by scanning its counted results backwards for the
 * latest one that set or cleared it: a counted failure ending a run of >= openThreshold failures sets it, a counted
 * pass ending a run of >= resolveThreshold passes clears it; with neither, the region takes the side the incident
 * had when the region's first counted result came (or has now, before any). An incident opens on a counted failure
 * outside maintenance with at least `quorum` regions failing, and resolves on a counted pass with fewer failing. A
 * counted result asks for a re-check `confirmAfterSeconds` after it when its region's failing state, after it, is
 * not the result's own (a failure of a region not failing yet, a pass of one still failing).
 */
function reference(seq: readonly FlapInput[], th: FlapRules) {
  const gap = (th.confirmAfterSeconds || th.intervalSeconds) * 1000;
  const lastCounted = new Map<string, FlapInput>();
  // Filled step by step: whether a result starts a confirmation depends on its region's failing state before it.
  const counted: boolean[] = [];
  const isFail = (x: FlapInput) => x.outcome === 'down';
  // The incident's state before each step (filled as we go), to know a region's starting side.
  const openBefore: boolean[] = [];
  const runEndingAt = (idx: number[], k: number, pred: (x: FlapInput) => boolean) => {
    let n = 0;
    for (let j = k; j >= 0 && pred(seq[idx[j]!]!); j--) n++;
    return n;
  };
  const failingAt = (region: string, i: number, openNow: boolean) => {
    const idx = seq.flatMap((x, j) => (j <= i && counted[j] && x.region === region ? [j] : []));
    for (let k = idx.length - 1; k >= 0; k--) {
      const x = seq[idx[k]!]!;
      if (isFail(x) && runEndingAt(idx, k, isFail) >= th.openThreshold) return true;
      if (!isFail(x) && runEndingAt(idx, k, (y) => !isFail(y)) >= th.resolveThreshold) return false;
    }
    return idx.length ? openBefore[idx[0]!]! : openNow;
  };
  let open = false;
  const lastCountedIndex = new Map<string, number>();
  return seq.map((x, i) => {
    openBefore.push(open);
    const last = lastCounted.get(x.region);
    // A result against a region at rest (its last counted result on the side the region is on) starts a
    // confirmation and counts at once; any other needs the gap.
    const startsConfirmation =
      last !== undefined &&
      isFail(x) !== isFail(last) &&
      isFail(last) === failingAt(x.region, lastCountedIndex.get(x.region)!, open);
    counted.push(last === undefined || startsConfirmation || x.checkedAt.getTime() - last.checkedAt.getTime() >= gap);
    if (counted[i]) {
      lastCounted.set(x.region, x);
      lastCountedIndex.set(x.region, i);
    }
    let event: 'open' | 'resolve' | null = null;
    let recheckAt: number | null = null;
    if (counted[i]) {
      const failing = th.regions.filter((reg) => failingAt(reg, i, open)).length;
      if (th.confirmAfterSeconds > 0 && failingAt(x.region, i, open) !== isFail(x))
        recheckAt = x.checkedAt.getTime() + th.confirmAfterSeconds * 1000;
      if (isFail(x) && !open && !x.inMaintenance && failing >= th.quorum) event = 'open';
      else if (!isFail(x) && open && failing < th.quorum) event = 'resolve';
      if (event) open = event === 'open';
    }
    return { counted: counted[i], incidentOpen: open, event, recheckAt };
  });
}

const REGIONS = ['eu', 'us', 'ap', 'sa'];
/** Results in one to four regions, each some seconds after the previous (0 s: at the same instant). */
const arbScenario = fc
  .record({
    regionCount: fc.integer({ min: 1, max: 4 }),
    /** Picks the quorum among 1..regionCount (0: the default majority). */
    quorumPick: fc.nat({ max: 4 }),
    intervalSeconds: fc.constantFrom(60, 120, 300),
    confirmAfterSeconds: fc.constantFrom(0, 1, 5, 15, 15, 30, 300),
    steps: fc.array(
      fc.record({
        region: fc.nat({ max: 3 }),
        afterSeconds: fc.oneof(fc.constantFrom(0, 1, 2, 14, 15, 16, 60), fc.nat({ max: 90 })),
        // Failure-heavy often enough to reach high thresholds.
        outcome: fc.constantFrom<Outcome>('down', 'down', 'down', 'up', 'degraded'),
        inMaintenance: fc.constantFrom(false, false, false, true),
      }),
      { maxLength: 60 },
    ),
  })
  .map(({ regionCount, quorumPick, intervalSeconds, confirmAfterSeconds, steps }) => {
    const regions = REGIONS.slice(0, regionCount);
    let at = 0;
    const seq = steps.map((s) => {
      at += s.afterSeconds;
      return r(s.outcome, at, regions[s.region % regionCount], s.inMaintenance);
    });
    const quorum = quorumPick === 0 ? majorityOf(regionCount) : Math.min(quorumPick, regionCount);
    return { regions, intervalSeconds, confirmAfterSeconds, quorum, seq };
  });

const PAIRS: Array<[number, number]> = [];
for (let o = 1; o <= 10; o++) for (let res = 1; res <= 10; res++) PAIRS.push([o, res]);

describe('evaluateFlap — against a reference model, every threshold pair 1..10 x 1..10', () => {
  it.each(PAIRS)('open %i / resolve %i', (o, res) => {
    fc.assert(
      fc.property(arbScenario, ({ regions, intervalSeconds, confirmAfterSeconds, quorum, seq }) => {
        const th = rules(o, res, regions, intervalSeconds, confirmAfterSeconds, quorum);
        const got = run(seq, th).map((d, i) => ({
          counted: d.counted,
          incidentOpen: d.state.incidentOpen,
          event: d.events[0]?.type ?? null,
          recheckAt: d.counted ? (d.state.regions.get(seq[i]!.region)!.confirmSlot?.getTime() ?? null) : null,
        }));
        expect(got).toEqual(reference(seq, th));
      }),
      { numRuns: 40 },
    );
  });
});

describe('evaluateFlap — invariants (property)', () => {
  const arbThresholds = fc.record({
    openThreshold: fc.integer({ min: 1, max: 10 }),
    resolveThreshold: fc.integer({ min: 1, max: 10 }),
  });
  const withRules = fc.tuple(arbThresholds, arbScenario).map(([th, s]) => ({
    seq: s.seq,
    th: rules(th.openThreshold, th.resolveThreshold, s.regions, s.intervalSeconds, s.confirmAfterSeconds, s.quorum),
  }));

  it('never two opens without a resolve in between, and never a resolve without an open', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        flat(run(seq, th)).forEach((e, i) => expect(e).toBe(i % 2 === 0 ? 'open' : 'resolve'));
      }),
    );
  });

  it('emits at most one event per result, and only when incidentOpen flips', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        let prev = resetFlapState();
        for (const step of run(seq, th)) {
          expect(step.events.length).toBeLessThanOrEqual(1);
          const flipped = prev.incidentOpen !== step.state.incidentOpen;
          expect(step.events.length === 1).toBe(flipped);
          if (flipped) expect(step.events[0]?.type).toBe(step.state.incidentOpen ? 'open' : 'resolve');
          prev = step.state;
        }
      }),
    );
  });

  it('a result closer than confirmAfterSeconds (the interval when 0) to its region`s last counted one changes nothing, unless it starts a confirmation; any other counts', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        let state = resetFlapState();
        for (const x of seq) {
          const last = state.regions.get(x.region)?.lastCountedAt;
          const d = evaluateFlap(state, x, th);
          const gapMs = (th.confirmAfterSeconds > 0 ? th.confirmAfterSeconds : th.intervalSeconds) * 1000;
          const before = regionStateOf(state, x.region);
          const starts =
            x.outcome === 'down'
              ? !before.failing && before.consecutiveFailures === 0
              : before.failing && before.consecutivePasses === 0;
          const tooClose =
            !starts && last !== undefined && last !== null && x.checkedAt.getTime() - last.getTime() < gapMs;
          expect(d.counted).toBe(!tooClose);
          if (!d.counted) {
            expect(d.state).toBe(state);
            expect(d.events).toEqual([]);
          } else {
            expect(d.state.regions.get(x.region)?.lastCountedAt).toEqual(x.checkedAt);
          }
          state = d.state;
        }
      }),
    );
  });

  it('a counted result moves only its own region`s counters, one of them by one, resetting the other', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        let state = resetFlapState();
        for (const x of seq) {
          const d = evaluateFlap(state, x, th);
          if (d.counted) {
            const before = regionStateOf(state, x.region);
            const after = d.state.regions.get(x.region)!;
            if (x.outcome === 'down')
              expect(after).toMatchObject({
                consecutiveFailures: before.consecutiveFailures + 1,
                consecutivePasses: 0,
              });
            else
              expect(after).toMatchObject({ consecutiveFailures: 0, consecutivePasses: before.consecutivePasses + 1 });
            for (const [region, s] of state.regions)
              if (region !== x.region) expect(d.state.regions.get(region)).toBe(s);
          }
          state = d.state;
        }
      }),
    );
  });

  it('opens only on a counted failure outside maintenance with at least quorum regions failing; resolves only on a counted pass with fewer failing', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        let state = resetFlapState();
        for (const x of seq) {
          const d = evaluateFlap(state, x, th);
          const failing = th.regions.filter(
            (reg) => regionStateOf({ ...d.state, incidentOpen: state.incidentOpen }, reg).failing,
          );
          for (const e of d.events) {
            expect(d.counted).toBe(true);
            if (e.type === 'open') {
              expect([x.outcome, x.inMaintenance]).toEqual(['down', false]);
              expect(failing.length).toBeGreaterThanOrEqual(th.quorum);
            } else {
              expect(x.outcome).not.toBe('down');
              expect(failing.length).toBeLessThan(th.quorum);
            }
          }
          state = d.state;
        }
      }),
    );
  });

  it('never opens during maintenance', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        expect(
          flat(
            run(
              seq.map((x) => ({ ...x, inMaintenance: true })),
              th,
            ),
          ),
        ).not.toContain('open');
      }),
    );
  });

  it('does not mutate its input state', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        let state = resetFlapState();
        for (const x of seq) {
          const copy = {
            incidentOpen: state.incidentOpen,
            regions: new Map([...state.regions].map(([k, v]) => [k, { ...v }])),
          };
          const d = evaluateFlap(state, x, th);
          expect(state).toEqual(copy);
          state = d.state;
        }
      }),
    );
  });

  it('treats degraded exactly like up', () => {
    fc.assert(
      fc.property(withRules, ({ th, seq }) => {
        const asUp = seq.map((x) => (x.outcome === 'degraded' ? { ...x, outcome: 'up' as const } : x));
        expect(run(seq, th)).toEqual(run(asUp, th));
      }),
    );
  });

  it('with one region and results an interval apart, opens on exactly openThreshold failures and resolves on exactly resolveThreshold passes', () => {
    fc.assert(
      fc.property(arbThresholds, fc.integer({ min: 0, max: 5 }), (th, extra) => {
        const t = rules(th.openThreshold, th.resolveThreshold);
        const downs = every60('down', th.openThreshold + extra);
        const ups = every60('up', th.resolveThreshold + extra, downs.length * 60);
        const steps = run([...downs, ...ups], t);
        const expected = [...downs, ...ups].map((_, i) =>
          i === th.openThreshold - 1 ? 'open' : i === downs.length + th.resolveThreshold - 1 ? 'resolve' : '-',
        );
        expect(eventTypes(steps)).toEqual(expected);
      }),
    );
  });
});

describe('evaluateFlap — hand-written cases', () => {
  it('the immediate check and the first slot seconds later are one confirmation, not two (issue 12)', () => {
    for (const seconds of [0.046, 0.57, 1.58, 5.4, 14.9]) {
      const steps = run([r('down', 0), r('down', seconds)], rules(2, 2));
      expect(eventTypes(steps)).toEqual(['-', '-']);
      expect(steps.map((s) => s.counted)).toEqual([true, false]);
      expect(steps[1]!.state.regions.get('eu')).toMatchObject({ consecutiveFailures: 1, lastCountedAt: new Date(T0) });
    }
    // 15 s after the first counted result, the next one confirms.
    expect(eventTypes(run([r('down', 0), r('down', 5), r('down', 15)], rules(2, 2)))).toEqual(['-', '-', 'open']);
    // The gap runs from the last counted result, not the last result: 10 s, then 20 s after the first.
    expect(eventTypes(run([r('down', 0), r('down', 10), r('down', 20)], rules(2, 2)))).toEqual(['-', '-', 'open']);
  });

  it('confirmAfterSeconds sets the gap between counted results; 0 makes it the interval', () => {
    expect(eventTypes(run([r('down', 0), r('down', 29.9)], rules(2, 2, ['eu'], 60, 30)))).toEqual(['-', '-']);
    expect(eventTypes(run([r('down', 0), r('down', 30)], rules(2, 2, ['eu'], 60, 30)))).toEqual(['-', 'open']);
    expect(eventTypes(run([r('down', 0), r('down', 59.9)], rules(2, 2, ['eu'], 60, 0)))).toEqual(['-', '-']);
    expect(eventTypes(run([r('down', 0), r('down', 60)], rules(2, 2, ['eu'], 60, 0)))).toEqual(['-', 'open']);
  });

  it('asks for a re-check confirmAfterSeconds after a counted result that moves its region toward a threshold not reached', () => {
    const slotOf = (d: FlapDecision) => d.state.regions.get('eu')!.confirmSlot?.getTime() ?? null;
    // Failure 1 of 3 and 2 of 3: re-check 15 s later; failure 3 reaches the threshold: none. Pass 1 of 2 of the failing
    // region: re-check; pass 2 recovers it: none; a pass of a healthy region: none.
    const seq = [r('down', 0), r('down', 15), r('down', 30), r('up', 90), r('up', 105), r('up', 165)];
    expect(run(seq, rules(3, 2)).map(slotOf)).toEqual([15, 30, null, 105, null, null].map((s) => s && T0 + s * S));
    // Off with confirmAfterSeconds 0, and for a heartbeat (judged from its pings).
    expect(run(seq, rules(3, 2, ['eu'], 60, 0)).map(slotOf)).toEqual([null, null, null, null, null, null]);
    expect(run(seq, { ...rules(3, 2), recheck: false }).map(slotOf)).toEqual([null, null, null, null, null, null]);
  });

  it('a confirmation starts at once: the first failure (or recovery) seconds after a counted result counts, so its re-check opens (resolves) confirmAfterSeconds after it, whatever the interval', () => {
    // A 10 s monitor with confirmAfterSeconds 15 (bench/scenarios/scheduling.ts): passes at 0 (counted) and 10 (too
    // close), the target fails: the failure at 20 is 20 s after the last counted pass anyway; at 30 it is not.
    const th = rules(2, 2, ['eu'], 10, 15);
    const slotOf = (d: FlapDecision) => d.state.regions.get('eu')!.confirmSlot?.getTime() ?? null;
    const recheck = (at: number) => ({ ...r('down', at), slot: new Date(T0 + at * S) });
    const steps = run([r('up', 0), r('up', 10), r('up', 20), r('down', 30), r('down', 40), recheck(45)], th);
    expect(steps.map((d) => d.counted)).toEqual([true, false, true, true, false, true]);
    expect(slotOf(steps[3]!)).toBe(T0 + 45 * S);
    expect(eventTypes(steps)).toEqual(['-', '-', '-', '-', '-', 'open']);
    // And back: the first pass of the failing region seconds after its last counted failure starts the recovery.
    const back = run([r('up', 50), r('up', 60), { ...r('up', 65), slot: new Date(T0 + 65 * S) }], th, steps[5]!.state);
    expect(back.map((d) => d.counted)).toEqual([true, false, true]);
    expect(eventTypes(back)).toEqual(['-', '-', 'resolve']);
    // Within a run the gap holds: a quick pass between two failures still moves nothing (see above).
  });

  it('the re-check asked for clears it when it runs, even too close to count; another result too close leaves it', () => {
    const [first] = run([r('down', 0)], rules(3, 2));
    const asked = first!.state;
    const early = { ...r('down', 10), slot: new Date(T0 + 15 * S) };
    const cleared = evaluateFlap(asked, early, rules(3, 2));
    expect(cleared.counted).toBe(false);
    expect(cleared.state.regions.get('eu')).toMatchObject({ consecutiveFailures: 1, confirmSlot: null });
    const other = evaluateFlap(asked, r('down', 10), rules(3, 2));
    expect(other.state).toBe(asked);
  });

  it('a quorum of 1 opens on one region failing and resolves only when none is; a quorum of all needs every region', () => {
    const three = ['eu', 'us', 'ap'];
    expect(eventTypes(run([r('down', 0, 'eu'), r('up', 60, 'eu')], rules(1, 1, three, 60, 15, 1)))).toEqual([
      'open',
      '-',
    ]);
    expect(
      eventTypes(run([r('down', 0, 'eu'), r('down', 0, 'us'), r('down', 0, 'ap')], rules(1, 1, three, 60, 15, 3))),
    ).toEqual(['-', '-', 'open']);
  });

  it('a result earlier than the last counted one (a late retry) does not count', () => {
    const steps = run([r('down', 60), r('down', 0)], rules(2, 2));
    expect(steps.map((s) => s.counted)).toEqual([true, false]);
  });

  it('one result per region at the same instant is one confirmation per region: no open with openThreshold 2', () => {
    const two = ['eu', 'us'];
    expect(eventTypes(run([r('down', 0, 'eu'), r('down', 0, 'us')], rules(2, 2, two)))).toEqual(['-', '-']);
    expect(
      eventTypes(
        run([r('down', 0, 'eu'), r('down', 0, 'us'), r('down', 60, 'eu'), r('down', 60, 'us')], rules(2, 2, two)),
      ),
    ).toEqual(['-', '-', '-', 'open']);
  });

  it('opens when a majority of regions are failing, not one region alone', () => {
    const three = ['eu', 'us', 'ap'];
    // One region failing for ever does not open (1 of 3).
    expect(flat(run(every60('down', 10, 0, 'eu'), rules(1, 1, three)))).toEqual([]);
    // Two of three do.
    expect(eventTypes(run([r('down', 0, 'eu'), r('up', 1, 'us'), r('down', 2, 'ap')], rules(1, 1, three)))).toEqual([
      '-',
      '-',
      'open',
    ]);
    // Two regions: both must fail (a majority of 2 is 2).
    expect(
      eventTypes(run([r('down', 0, 'eu'), r('down', 60, 'eu'), r('down', 61, 'us')], rules(1, 1, ['eu', 'us']))),
    ).toEqual(['-', '-', 'open']);
  });

  it('resolves when fewer than the quorum are failing; a region that has not reported since the open counts as failing', () => {
    const three = ['eu', 'us', 'ap'];
    const opened = run([r('down', 0, 'eu'), r('down', 0, 'us')], rules(1, 1, three));
    expect(eventTypes(opened)).toEqual(['-', 'open']);
    const state = opened.at(-1)!.state;
    // `ap` never reported: with the incident open it is taken as failing, so eu alone passing is not a majority.
    expect(eventTypes(run([r('up', 60, 'eu')], rules(1, 1, three), state))).toEqual(['-']);
    expect(eventTypes(run([r('up', 60, 'eu'), r('up', 60, 'us')], rules(1, 1, three), state))).toEqual([
      '-',
      'resolve',
    ]);
    expect(eventTypes(run([r('up', 60, 'eu'), r('up', 60, 'ap')], rules(1, 1, three), state))).toEqual([
      '-',
      'resolve',
    ]);
  });

  it('a failing region needs resolveThreshold counted passes to stop failing', () => {
    const two = ['eu', 'us'];
    // Both failing and open; eu passes twice (resolveThreshold 3): still failing, no resolve even when us passes 3 times.
    const seq = [
      r('down', 0, 'eu'),
      r('down', 0, 'us'),
      r('up', 60, 'eu'),
      r('up', 120, 'eu'),
      r('up', 60, 'us'),
      r('up', 120, 'us'),
      r('up', 180, 'us'),
      r('up', 180, 'eu'),
    ];
    // us recovered: one region failing is fewer than the quorum (2 of 2).
    expect(eventTypes(run(seq, rules(1, 3, two)))).toEqual(['-', 'open', '-', '-', '-', '-', 'resolve', '-']);
  });

  it('a region failing alone stays failing through one pass (hysteresis), so another region failing opens', () => {
    const three = ['eu', 'us', 'ap'];
    const seq = [
      r('down', 0, 'eu'),
      r('down', 60, 'eu'),
      r('up', 120, 'eu'),
      r('down', 130, 'us'),
      r('down', 190, 'us'),
    ];
    expect(eventTypes(run(seq, rules(2, 2, three)))).toEqual(['-', '-', '-', '-', 'open']);
  });

  it('threshold 1 opens on the first failure and resolves on the first pass', () => {
    expect(eventTypes(run([r('down', 0), r('up', 60)], rules(1, 1)))).toEqual(['open', 'resolve']);
  });

  it('an interleaved counted pass resets the failure count', () => {
    const seq = [r('down', 0), r('down', 60), r('up', 120), r('down', 180), r('down', 240), r('down', 300)];
    expect(eventTypes(run(seq, rules(3, 1)))).toEqual(['-', '-', '-', '-', '-', 'open']);
  });

  it('an interleaved pass too close to count does not reset the failure count', () => {
    const seq = [r('down', 0), r('down', 60), r('up', 61), r('down', 120)];
    expect(eventTypes(run(seq, rules(3, 1)))).toEqual(['-', '-', '-', 'open']);
  });

  it('keeps counting failures after opening without opening again', () => {
    const steps = run(every60('down', 10), rules(2, 2));
    expect(eventTypes(steps)).toEqual(['-', 'open', '-', '-', '-', '-', '-', '-', '-', '-']);
    expect(steps.at(-1)?.state.regions.get('eu')?.consecutiveFailures).toBe(10);
  });

  it('does not resolve when no incident is open', () => {
    expect(flat(run(every60('up', 20), rules(1, 1)))).toEqual([]);
  });

  describe('maintenance', () => {
    const m = (outcome: Outcome, at: number) => r(outcome, at, 'eu', true);

    it('suppresses opening but keeps counting failures', () => {
      const steps = run([m('down', 0), m('down', 60), m('down', 120)], rules(2, 2));
      expect(flat(steps)).toEqual([]);
      expect(steps.at(-1)?.state.regions.get('eu')).toMatchObject({ consecutiveFailures: 3, failing: true });
      expect(steps.at(-1)?.state.incidentOpen).toBe(false);
    });

    it('opens on the first counted failure after maintenance when the count already reached the threshold', () => {
      expect(eventTypes(run([m('down', 0), m('down', 60), m('down', 120), r('down', 180)], rules(3, 1)))).toEqual([
        '-',
        '-',
        '-',
        'open',
      ]);
      // One inside + one after is not enough for 3.
      expect(eventTypes(run([m('down', 0), r('down', 60)], rules(3, 1)))).toEqual(['-', '-']);
      // A failure too close to the last counted one waits for the next confirmation.
      expect(eventTypes(run([m('down', 0), m('down', 60), r('down', 61), r('down', 120)], rules(2, 1)))).toEqual([
        '-',
        '-',
        '-',
        'open',
      ]);
    });

    it('does not open while failures continue in maintenance, but resolves an incident opened before it', () => {
      const steps = run([r('down', 0), r('down', 60), m('down', 120), m('up', 180), m('up', 240)], rules(2, 2));
      expect(eventTypes(steps)).toEqual(['-', 'open', '-', '-', 'resolve']);
    });
  });

  describe('resetFlapState', () => {
    it('returns no region state and no incident, a fresh object each time', () => {
      expect(resetFlapState()).toEqual({ regions: new Map(), incidentOpen: false });
      expect(resetFlapState()).not.toBe(resetFlapState());
    });
    it('after a reset (incident resolved by hand or deleted) a new incident needs openThreshold fresh failures, and the next result counts at once', () => {
      const before = run(every60('down', 5), rules(3, 2)).at(-1)!.state;
      expect(before.incidentOpen).toBe(true);
      const after = run([r('down', 241), r('down', 301), r('down', 361)], rules(3, 2), resetFlapState());
      expect(eventTypes(after)).toEqual(['-', '-', 'open']);
      expect(after[0]!.counted).toBe(true);
    });
  });

  it('majorityOf and confirmationGapMs', () => {
    expect([1, 2, 3, 4, 5].map(majorityOf)).toEqual([1, 2, 2, 3, 3]);
    expect(
      [0, 1, 15, 300].map((confirmAfterSeconds) => confirmationGapMs({ confirmAfterSeconds, intervalSeconds: 60 })),
    ).toEqual([60_000, 1000, 15_000, 300_000]);
  });

  it('rejects thresholds that are not integers >= 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => evaluateFlap(resetFlapState(), r('down', 0), rules(bad, 1))).toThrow(RangeError);
      expect(() => evaluateFlap(resetFlapState(), r('down', 0), rules(1, bad))).toThrow(RangeError);
      expect(() => evaluateFlap(resetFlapState(), r('down', 0), rules(1, 1, ['eu'], 60, 15, bad))).toThrow(RangeError);
    }
  });
});
