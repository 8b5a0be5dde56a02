export interface RetryPolicy {
  /** Attempts in all, including the first. */
  attempts: number;
  /** Wait before the second attempt; each later wait doubles. */
  backoffMs: number;
}

/** Every channel: 3 attempts, waiting 1 s then 2 s; each attempt has its own timeout. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, backoffMs: 1000 };

/** `statusCode`: the provider's HTTP answer, when there was one. */
export type Attempt =
  { ok: true; statusCode?: number } | { ok: false; reason: string; retryable: boolean; statusCode?: number };

export interface RetryOutcome {
  ok: boolean;
  attempts: number;
  /** The last attempt's failure, or null when it went through. */
  reason: string | null;
  /** The last attempt's HTTP status, when it got an answer. */
  statusCode?: number;
}

/** The wait before attempt `n` (2-based): backoff, 2 x backoff, 4 x backoff ... */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  return policy.backoffMs * 2 ** (attempt - 2);
}

/** Runs `attempt` until it succeeds, fails for good, or the attempts run out. */
export async function withRetries(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<Attempt>,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<RetryOutcome> {
  let last: Attempt = { ok: false, reason: 'not_attempted', retryable: false };
  for (let n = 1; n <= policy.attempts; n++) {
    if (n > 1) await sleep(backoffDelay(policy, n));
    last = await attempt(n);
    const status = last.statusCode === undefined ? {} : { statusCode: last.statusCode };
    if (last.ok) return { ok: true, attempts: n, reason: null, ...status };
    if (!last.retryable) return { ok: false, attempts: n, reason: last.reason, ...status };
  }
  const status = last.statusCode === undefined ? {} : { statusCode: last.statusCode };
  return { ok: false, attempts: policy.attempts, reason: last.ok ? null : last.reason, ...status };
}
