/**
 * Flap logic: a pure function of (state, one check result, thresholds) -> (next state, events).
 * The check processor loads the state from the monitor row (consecutiveFailures, consecutivePasses,
 * and whether an incident is open), applies this, and persists state + events in one transaction.
 * "At most one open incident per monitor" across racing workers is enforced by the database (partial
 * unique index), not here: this function only guarantees it never emits two opens in one history.
 *
 * Rules:
 * - `up` and `degraded` are passes; `down` is a failure. A failure increments consecutiveFailures
 *   and resets consecutivePasses to 0; a pass does the opposite.
 * - No incident open, consecutiveFailures >= openThreshold, not in maintenance -> `open`.
 * - Incident open, consecutivePasses >= resolveThreshold -> `resolve`.
 * - Maintenance suppresses opening only. Failures during maintenance still count, so when maintenance
 *   ends with the target still failing, the FIRST failure after it opens the incident at once (the
 *   count is already >= openThreshold) rather than waiting for openThreshold fresh failures: the
 *   target has demonstrably been down for that long. A pass at any time resets the count as usual.
 * - Resolving is not suppressed by maintenance: an incident that was open before the window may
 *   resolve during it (resolution pages nobody).
 * - Counters keep counting past the thresholds (they are "consecutive results", not "results since
 *   the last event"); the `incidentOpen` flag is what prevents a second open or a second resolve.
 * - Thresholds must be integers >= 1 (the API allows 1..10); anything else is a programming error.
 */

export interface FlapState {
  consecutiveFailures: number;
  consecutivePasses: number;
  incidentOpen: boolean;
}

export interface FlapInput {
  outcome: 'up' | 'degraded' | 'down';
  inMaintenance: boolean;
}

export interface FlapThresholds {
  openThreshold: number;
  resolveThreshold: number;
}

export type FlapEvent = { type: 'open' } | { type: 'resolve' };

export interface FlapDecision {
  state: FlapState;
  events: FlapEvent[];
}

/** The state of a monitor with no history, and after its incident is deleted: a new incident needs openThreshold fresh failures. */
export function resetFlapState(): FlapState {
  return { consecutiveFailures: 0, consecutivePasses: 0, incidentOpen: false };
}

function assertThreshold(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
}

/** Apply one check result to the flap state; never mutates `state`. */
export function evaluateFlap(state: FlapState, result: FlapInput, thresholds: FlapThresholds): FlapDecision {
  assertThreshold('openThreshold', thresholds.openThreshold);
  assertThreshold('resolveThreshold', thresholds.resolveThreshold);

  const events: FlapEvent[] = [];
  if (result.outcome === 'down') {
    const next: FlapState = {
      consecutiveFailures: state.consecutiveFailures + 1,
      consecutivePasses: 0,
      incidentOpen: state.incidentOpen,
    };
    if (!next.incidentOpen && !result.inMaintenance && next.consecutiveFailures >= thresholds.openThreshold) {
      next.incidentOpen = true;
      events.push({ type: 'open' });
    }
    return { state: next, events };
  }

  const next: FlapState = {
    consecutiveFailures: 0,
    consecutivePasses: state.consecutivePasses + 1,
    incidentOpen: state.incidentOpen,
  };
  if (next.incidentOpen && next.consecutivePasses >= thresholds.resolveThreshold) {
    next.incidentOpen = false;
    events.push({ type: 'resolve' });
  }
  return { state: next, events };
}
