/**
 * Heartbeat evaluation: pure function of the monitor's ping timestamps and the clock. No I/O.
 *
 * Decisions:
 * - window = (intervalSeconds + graceSeconds) seconds.
 * - A fail ping strictly more recent than the last success ping (or with no success ping at all)
 *   -> down `fail_ping`, however old it is: the last word from the job was a failure, and only a
 *   success ping clears it. On an exact tie the success wins.
 * - Otherwise a success ping no older than the window (now - lastPingAt <= window, inclusive) -> up.
 *   A ping time in the future (clock skew between API and worker) counts as fresh.
 * - No ping of either kind yet, and the monitor is no older than the window (now - createdAt <=
 *   window, inclusive) -> null: nothing to report yet (the monitor stays `pending`).
 * - Anything else -> down `missed_heartbeat`.
 * - There is no `lastEvaluatedAt` input: the verdict depends only on pings and the clock, so
 *   evaluating twice gives the same answer, and duplicate evaluations are deduplicated by the check
 *   processor's (monitor, region, slot) key rather than here.
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

/** Evaluate a heartbeat monitor; null means "pending: nothing to report yet". */
export function evaluateHeartbeat(input: HeartbeatInput): ProbeResult | null {
  const now = input.now.getTime();
  const windowMs = (input.intervalSeconds + input.graceSeconds) * 1000;
  const success = input.lastPingAt?.getTime() ?? null;
  const fail = input.lastPingFailAt?.getTime() ?? null;

  if (fail !== null && (success === null || fail > success)) return downResult('fail_ping');
  if (success !== null && now - success <= windowMs) {
    return { outcome: 'up', reason: null, responseMs: null, statusCode: null, phases: { ...NO_PHASES } };
  }
  if (success === null && fail === null && now - input.createdAt.getTime() <= windowMs) return null;
  return downResult('missed_heartbeat');
}
