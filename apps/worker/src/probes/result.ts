import { type LatencyRules, type ProbePhases, type ProbeResult, NO_PHASES, REASON_MAX_LENGTH } from './types.js';

/** A probe's own deadline passed: reasonForError maps it to `timeout`. */
export class ProbeTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(timeoutMs: number, what = 'Check') {
    super(`${what} did not complete within ${timeoutMs}ms`);
    this.name = 'TimeoutError';
  }
}

/** Cap a reason to what the check_results.reason column holds. */
export function truncateReason(reason: string): string {
  return reason.length <= REASON_MAX_LENGTH ? reason : `${reason.slice(0, REASON_MAX_LENGTH - 1)}…`;
}

export function downResult(
  reason: string,
  extra: {
    responseMs?: number | null;
    statusCode?: number | null;
    phases?: ProbePhases;
    certificate?: ProbeResult['certificate'];
    dnsAnswers?: ProbeResult['dnsAnswers'];
    address?: ProbeResult['address'];
  } = {},
): ProbeResult {
  return {
    outcome: 'down',
    reason: truncateReason(reason),
    responseMs: extra.responseMs ?? null,
    statusCode: extra.statusCode ?? null,
    phases: extra.phases ?? { ...NO_PHASES },
    ...(extra.certificate !== undefined ? { certificate: extra.certificate } : {}),
    ...(extra.dnsAnswers !== undefined ? { dnsAnswers: extra.dnsAnswers } : {}),
    ...(extra.address ? { address: extra.address } : {}),
  };
}

/**
 * The last two steps of every evaluation, applied to a result that passed all other checks:
 * slower than `latencyThresholdMs` fails; otherwise slower than `degradedAfterMs` is degraded.
 * Both comparisons are strict (`>`): a check that takes exactly the threshold passes.
 */
export function applyLatencyRules(responseMs: number, rules: LatencyRules): Pick<ProbeResult, 'outcome' | 'reason'> {
  if (rules.latencyThresholdMs !== null && responseMs > rules.latencyThresholdMs) {
    return { outcome: 'down', reason: `latency_threshold_exceeded: ${responseMs}ms > ${rules.latencyThresholdMs}ms` };
  }
  if (rules.degradedAfterMs !== null && responseMs > rules.degradedAfterMs) {
    return { outcome: 'degraded', reason: `slow: ${responseMs}ms > ${rules.degradedAfterMs}ms` };
  }
  return { outcome: 'up', reason: null };
}
