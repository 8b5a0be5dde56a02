/**
 * Heartbeat evaluation: a pure function of the monitor's ping timestamps and the clock. No I/O.
 * (docs/adr/0014-heartbeat-deadlines.md)
 *
 * What one result is, so that openThreshold and resolveThreshold keep their meaning:
 * - Each success ping is at most one passing result, keyed by the ping's time.
 * - Each fail ping (`/ping/<secret>/fail`) is at most one failing result (`fail_ping`), keyed by the ping's time.
 * - Each missed period is exactly one failing result (`heartbeat_missed`), keyed by its deadline. With A the last
 *   ping of either kind (or the monitor's creation when it was never pinged), I = intervalSeconds and
 *   G = graceSeconds, the deadlines are D_k = A + G + k * I (k = 1, 2, ...): the first is interval + grace after
 *   the last sign of life, and every further interval without a ping is one more missed period. So a daily job
 *   with openThreshold 2 opens an incident at the second missed run (D_2), not at the first.
 * - The key is the result's slot: however often the monitor is evaluated (its schedule, the deadline job, the ping
 *   receiver's prompt evaluation, a retry), one ping or one missed period stores one result.
 *
 * - A run (`/start`) not ended within G is one failing result (`run_timeout`), keyed by its start + G; a success
 *   ping that ended a run longer than `maxRunSeconds` is a failing result (`run_too_long`) instead of a pass, and one
 *   that ended a run shorter than `minRunSeconds` is one (`run_too_short`): the job did not do its work. A success
 *   ping that ended no run (no `/start` before it) has no duration and is judged by neither.
 * - With a cron `schedule` the expected times are the schedule's after A (expected.ts in the shared package), the
 *   deadlines each one + G; `intervalSeconds` is then only the backstop evaluation's cadence.
 *
 * Rules of one evaluation at `now`: the verdict is the latest event that has happened (the last ping, a missed
 * deadline, a run's timeout); the ones below are for an interval heartbeat without a run in progress.
 * - The last ping is a fail ping when it is strictly more recent than the last success ping (a tie goes to the
 *   success). A ping time in the future (clock skew between API and worker) counts as fresh.
 * - now - A <= I + G (inclusive): the last ping's result (up, or down `fail_ping`); never pinged: pending (null).
 * - Otherwise: down `heartbeat_missed` for the latest deadline passed, D_k with the largest k such that D_k < now.
 * - `nextEvaluationAt`: the first moment the verdict changes with time alone, D_(k+1) + 1 ms (D_1 + 1 ms while fresh
 *   or pending). The worker arms a delayed job for it, so a missed deadline is reported when it passes, not at the
 *   next scheduled run (up to an interval later).
 * - The result has the ProbeResult shape with responseMs, statusCode and every phase null.
 */
import { expectedAfter, latestExpectedBefore, type HeartbeatExpectation } from '@statusvane/shared';
import { downResult } from './result.js';
import { type ProbeResult, NO_PHASES } from './types.js';

export interface HeartbeatInput {
  now: Date;
  createdAt: Date;
  intervalSeconds: number;
  graceSeconds: number;
  /** A 5-field cron expression in `timezone` (IANA, UTC when null) instead of `intervalSeconds`. */
  schedule?: string | null;
  timezone?: string | null;
  /** Last success ping. */
  lastPingAt: Date | null;
  /** Last fail ping (`/ping/<secret>/fail` or a non-zero exit code). */
  lastPingFailAt: Date | null;
  /** The run in progress: the last `/start` not ended since. */
  runStartedAt?: Date | null;
  /** The duration of the run the last end ping ended (null: it ended none). */
  lastRunDurationMs?: number | null;
  maxRunSeconds?: number | null;
  minRunSeconds?: number | null;
}

export interface HeartbeatVerdict {
  /** null: pending (never pinged and younger than interval + grace), nothing to report yet. */
  result: ProbeResult | null;
  /** The result's key: the ping's time, the missed deadline or the run's timeout. null when pending. */
  slot: Date | null;
  /** When to evaluate again for the verdict to change without a new ping. */
  nextEvaluationAt: Date;
}

/** Evaluate a heartbeat monitor at `now`. */
export function evaluateHeartbeat(input: HeartbeatInput): HeartbeatVerdict {
  const now = input.now.getTime();
  const graceMs = input.graceSeconds * 1000;
  const expectation: HeartbeatExpectation = input.schedule
    ? { schedule: input.schedule, timezone: input.timezone ?? null }
    : { intervalSeconds: input.intervalSeconds };
  const success = input.lastPingAt?.getTime() ?? null;
  const fail = input.lastPingFailAt?.getTime() ?? null;
  const failedLast = fail !== null && (success === null || fail > success);
  const lastPing = failedLast ? fail : success;
  const anchor = new Date(lastPing ?? input.createdAt.getTime());

  // The events that have happened, latest wins: the last ping (a ping in the future, clock skew, counts as fresh), the
  // latest missed deadline, the run's timeout.
  const events: Array<{ at: number; result: ProbeResult }> = [];
  if (lastPing !== null) {
    const ran = input.lastRunDurationMs ?? null;
    const tooLong = input.maxRunSeconds != null && ran !== null && ran > input.maxRunSeconds * 1000;
    const tooShort = input.minRunSeconds != null && ran !== null && ran < input.minRunSeconds * 1000;
    const result: ProbeResult = failedLast
      ? downResult('fail_ping')
      : tooLong
        ? downResult('run_too_long')
        : tooShort
          ? downResult('run_too_short')
          : { outcome: 'up', reason: null, responseMs: null, statusCode: null, phases: { ...NO_PHASES } };
    events.push({ at: lastPing, result });
  }
  const missed = latestExpectedBefore(expectation, anchor, new Date(now - graceMs));
  if (missed) events.push({ at: missed.getTime() + graceMs, result: downResult('heartbeat_missed') });
  const timeout = input.runStartedAt ? input.runStartedAt.getTime() + graceMs : null;
  if (timeout !== null && timeout < now) events.push({ at: timeout, result: downResult('run_timeout') });

  // The verdict next changes at the next deadline or the run's timeout, 1 ms after it (a deadline is passed when
  // strictly before now).
  const nextDeadline = expectedAfter(expectation, missed ?? anchor).getTime() + graceMs;
  const next = new Date(Math.min(nextDeadline, timeout !== null && timeout >= now ? timeout : Infinity) + 1);
  const latest = events.reduce<(typeof events)[number] | null>((a, e) => (a && a.at > e.at ? a : e), null);
  if (!latest) return { result: null, slot: null, nextEvaluationAt: next };
  return { result: latest.result, slot: new Date(latest.at), nextEvaluationAt: next };
}
