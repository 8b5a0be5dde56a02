/**
 * Flap logic: a pure function of (state, one check result, rules) -> (next state, events, counted).
 * The worker loads the state (one row per monitor and region, and whether an incident is open) with the monitor row
 * locked, applies this to each result in slot order, and persists state + events in the same transaction. "At most
 * one open incident per monitor" across racing workers (of one region or of several) is enforced by that lock and
 * by the database (partial unique index), not here: this function only guarantees it never emits two opens in one
 * history.
 *
 * Rules (docs/decisions.md, "Thresholds count confirmations" and "Regions, quorum and fast confirmation"):
 * - Confirmations, not results. A result of a region counts only when it was taken at least confirmationGapMs
 *   (`confirmAfterSeconds`, or the interval when that is 0) after the previous counted result of that region, or
 *   when it starts a confirmation (startsConfirmation: the first failure after counted passes of a region not
 *   failing, the first pass after counted failures of a failing one). A closer result (the immediate check of a new
 *   or resumed monitor and its first scheduled slot seconds later, a retried job, two pings a second apart, a quick
 *   pass between two failures) is stored and shown by the caller, and changes nothing here.
 * - Each region keeps its own counters. `up` and `degraded` are passes; `down` is a failure. A counted failure
 *   increments consecutiveFailures and resets consecutivePasses to 0; a counted pass does the opposite. Counters
 *   keep counting past the thresholds.
 * - A region becomes `failing` when its consecutiveFailures reach openThreshold, and stops failing when its
 *   consecutivePasses reach resolveThreshold (hysteresis: one pass does not make a failing region healthy).
 *   A region without state yet takes the incident's side: failing while an incident is open (it has not confirmed
 *   a recovery), not failing otherwise.
 * - Open: on a counted failure, no incident open, not in maintenance, and at least `quorum` of the monitor's regions
 *   failing. Resolve: on a counted pass, an incident open, and fewer than `quorum` failing. With one region this is
 *   "openThreshold consecutive counted failures open, resolveThreshold counted passes resolve".
 * - Fast confirmation: a counted result that moves its region toward a threshold it has not reached (a failure of a
 *   region not failing, a pass of a failing region) asks for a re-check of that region `confirmAfterSeconds` after it
 *   (`confirmSlot`; the caller queues it). The re-check's own result clears it, counted or not.
 * - Maintenance suppresses opening only. Counted failures during maintenance still move the counters, so when
 *   maintenance ends with the target still failing, the first counted failure after it opens at once: the target
 *   has demonstrably been down for that long. Resolving is not suppressed (a resolution pages nobody).
 * - Thresholds must be integers >= 1 (the API allows 1..10); anything else is a programming error.
 */
export interface RegionFlapState {
  consecutiveFailures: number;
  consecutivePasses: number;
  /** Reached openThreshold counted failures, and has not had resolveThreshold counted passes since. */
  failing: boolean;
  /** When the last counted result of the region was taken; null when none since the state began or was reset. */
  lastCountedAt: Date | null;
  /** The slot of the re-check asked for after the last counted result, until a result of that slot is applied. */
  confirmSlot: Date | null;
}

export interface FlapState {
  /** Per region. A region that is not here has no counted result since the state began (or was reset). */
  regions: ReadonlyMap<string, RegionFlapState>;
  incidentOpen: boolean;
}

export interface FlapInput {
  region: string;
  /** The result's slot (part of its unique key): the re-check asked for is recognised by it. */
  slot: Date;
  /** When the result was taken: what the confirmation gap is measured on. */
  checkedAt: Date;
  outcome: 'up' | 'degraded' | 'down';
  inMaintenance: boolean;
}

export interface FlapRules {
  openThreshold: number;
  resolveThreshold: number;
  intervalSeconds: number;
  /** 0 = off: no re-checks, and counted results of a region are an interval apart. */
  confirmAfterSeconds: number;
  /** Whether a re-check is asked for (false for a heartbeat: it is judged from its pings, not probed). */
  recheck: boolean;
  /** The regions that check the monitor (monitorRegions). */
  regions: readonly string[];
  /** How many of them must be failing to open (monitorQuorum); fewer resolve. */
  quorum: number;
}

export type FlapEvent = { type: 'open' } | { type: 'resolve' };

export interface FlapDecision {
  state: FlapState;
  events: FlapEvent[];
  /** Whether the result counted toward the thresholds (false: too close to the region's previous counted result). */
  counted: boolean;
}

/** The shortest time between two counted results of one region: confirmAfterSeconds, or the interval when it is 0. */
export function confirmationGapMs(rules: Pick<FlapRules, 'confirmAfterSeconds' | 'intervalSeconds'>): number {
  return (rules.confirmAfterSeconds > 0 ? rules.confirmAfterSeconds : rules.intervalSeconds) * 1000;
}

/** The state of a monitor with no history, and after its incident is resolved by hand or deleted: a new incident needs openThreshold fresh failures. */
export function resetFlapState(): FlapState {
  return { regions: new Map(), incidentOpen: false };
}

/** A region without state: it takes the incident's side (see the rules above). */
export function regionStateOf(state: FlapState, region: string): RegionFlapState {
  return (
    state.regions.get(region) ?? {
      consecutiveFailures: 0,
      consecutivePasses: 0,
      failing: state.incidentOpen,
      lastCountedAt: null,
      confirmSlot: null,
    }
  );
}

function assertThreshold(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
}

/**
 * Whether a result starts a confirmation: it goes against a region at rest (a failure of a region not failing with no
 * counted failure since its last counted pass, a pass of a failing one with no counted pass since its last counted
 * failure). Such a result counts however soon it comes after the region's last counted result: the gap spaces the
 * confirmations of one run, and the previous counted result (of the other outcome) confirms nothing it continues.
 */
function startsConfirmation(prev: RegionFlapState, failed: boolean): boolean {
  return failed ? !prev.failing && prev.consecutiveFailures === 0 : prev.failing && prev.consecutivePasses === 0;
}

/** Apply one check result to the flap state; never mutates `state`. */
export function evaluateFlap(state: FlapState, result: FlapInput, rules: FlapRules): FlapDecision {
  assertThreshold('openThreshold', rules.openThreshold);
  assertThreshold('resolveThreshold', rules.resolveThreshold);
  assertThreshold('quorum', rules.quorum);

  const prev = regionStateOf(state, result.region);
  const failed = result.outcome === 'down';
  if (
    prev.lastCountedAt &&
    !startsConfirmation(prev, failed) &&
    result.checkedAt.getTime() - prev.lastCountedAt.getTime() < confirmationGapMs(rules)
  ) {
    // The re-check asked for has run, even if it does not count: it is not asked for again.
    if (prev.confirmSlot?.getTime() !== result.slot.getTime()) return { state, events: [], counted: false };
    const region = { ...prev, confirmSlot: null };
    return {
      state: { ...state, regions: new Map(state.regions).set(result.region, region) },
      events: [],
      counted: false,
    };
  }

  const region: RegionFlapState = failed
    ? {
        consecutiveFailures: prev.consecutiveFailures + 1,
        consecutivePasses: 0,
        failing: prev.failing || prev.consecutiveFailures + 1 >= rules.openThreshold,
        lastCountedAt: result.checkedAt,
        confirmSlot: null,
      }
    : {
        consecutiveFailures: 0,
        consecutivePasses: prev.consecutivePasses + 1,
        failing: prev.failing && prev.consecutivePasses + 1 < rules.resolveThreshold,
        lastCountedAt: result.checkedAt,
        confirmSlot: null,
      };
  // Toward a threshold not reached yet: a failure of a region still not failing, a pass of one still failing.
  if (rules.recheck && rules.confirmAfterSeconds > 0 && region.failing !== failed)
    region.confirmSlot = new Date(result.checkedAt.getTime() + rules.confirmAfterSeconds * 1000);
  const next: FlapState = {
    regions: new Map(state.regions).set(result.region, region),
    incidentOpen: state.incidentOpen,
  };

  const failingRegions = rules.regions.filter((r) => regionStateOf(next, r).failing).length;
  const events: FlapEvent[] = [];
  if (failed && !next.incidentOpen && !result.inMaintenance && failingRegions >= rules.quorum) {
    next.incidentOpen = true;
    events.push({ type: 'open' });
  } else if (!failed && next.incidentOpen && failingRegions < rules.quorum) {
    next.incidentOpen = false;
    events.push({ type: 'resolve' });
  }
  return { state: next, events, counted: true };
}
