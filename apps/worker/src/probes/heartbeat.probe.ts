/**
 * Heartbeat evaluation: a pure function of the monitor's ping timestamps and the clock. No I/O.
 * (docs/adr/0014-heartbeat-deadlines.md)
 *
 * What one result is, so that openThreshold and resolveThreshold keep their meaning:
 * - Each success ping is at most one passing result, keyed by the ping's time.
 * - Each fail ping (`/ping/<secret>/fail`) is at most one failing result (`fail_ping`), keyed by the ping's time.
 * - Each missed period is exactly one failing result (`missed_heartbeat`), keyed by its deadline. With A the last
 *   ping of either kind (or the monitor's creation when it was never pinged), I = intervalSeconds and
 *   G = graceSeconds, the deadlines are D_k = A + G + k * I (k = 1, 2, ...): the first is interval + grace after
 *   the last sign of life, and every further interval without a ping is one more missed period. So a daily job
 *   with openThreshold 2 opens an incident at the second missed run (D_2), not at the first.
 * - The key is the result's slot: however often the monitor is evaluated (its schedule, the deadline job, the ping
 *   receiver's prompt evaluation, a retry), one ping or one missed period stores one result.
 *
 * Rules of one evaluation at `now`:
 * - The last ping is a fail ping when it is strictly more recent than the last success ping (a tie goes to the
 *   success). A ping time in the future (clock skew between API and worker) counts as fresh.
 * - now - A <= I + G (inclusive): the last ping's result (up, or down `fail_ping`); never pinged: pending (null).
 * - Otherwise: down `missed_heartbeat` for the latest deadline passed, D_k with the largest k such that D_k < now.
 * - `nextEvaluationAt`: the first moment the verdict changes with time alone, D_(k+1) + 1 ms (D_1 + 1 ms while fresh
 *   or pending). The worker arms a delayed job for it, so a missed deadline is reported when it passes, not at the
 *   next scheduled run (up to an interval later).
 * - The result has the ProbeResult shape with responseMs, statusCode and every phase null.
 */
import { downResult } from './result.js';
import { type ProbeResult, NO_PHASES } from './types.js';

export interface HeartbeatInput {
  now: Date;
  createdAt: Date;
  intervalSeconds: number;
  graceSeconds: number;
  /** Last success ping. */
  lastPingAt: Date | null;
  /** Last fail ping (`/ping/<secret>/fail`). */
  lastPingFailAt: Date | null;
}

export interface HeartbeatVerdict {
  /** null: pending (never pinged and younger than interval + grace), nothing to report yet. */
  result: ProbeResult | null;
  /** The result's key: the ping's time, or the missed deadline. null when pending. */
  slot: Date | null;
  /** When to evaluate again for the verdict to change without a new ping. */
  nextEvaluationAt: Date;
}

/** Evaluate a heartbeat monitor at `now`. */
export function evaluateHeartbeat(input: HeartbeatInput): HeartbeatVerdict {
  const now = input.now.getTime();
  const intervalMs = input.intervalSeconds * 1000;
  const graceMs = input.graceSeconds * 1000;
  const success = input.lastPingAt?.getTime() ?? null;
  const fail = input.lastPingFailAt?.getTime() ?? null;
  const failedLast = fail !== null && (success === null || fail > success);
  const lastPing = failedLast ? fail : success;
  const anchor = lastPing ?? input.createdAt.getTime();
  const deadline = (k: number) => anchor + graceMs + k * intervalMs;

  if (now - anchor <= intervalMs + graceMs) {
    const next = new Date(deadline(1) + 1);
    if (lastPing === null) return { result: null, slot: null, nextEvaluationAt: next };
    const result: ProbeResult = failedLast
      ? downResult('fail_ping')
      : { outcome: 'up', reason: null, responseMs: null, statusCode: null, phases: { ...NO_PHASES } };
    return { result, slot: new Date(lastPing), nextEvaluationAt: next };
  }
  // The largest k with D_k < now (k >= 1 here, since now > D_1).
  const k = Math.floor((now - anchor - graceMs - 1) / intervalMs);
  return {
    result: downResult('missed_heartbeat'),
    slot: new Date(deadline(k)),
    nextEvaluationAt: new Date(deadline(k + 1) + 1),
  };
}
