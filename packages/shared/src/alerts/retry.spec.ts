import { describe, expect, it } from '@jest/globals';
import { retryableStatus } from './http-post.js';
import { backoffDelay, DEFAULT_RETRY, withRetries, type Attempt } from './retry.js';

/** Attempts answer from a script; sleeping is recorded, not done. */
function scripted(answers: Attempt[]) {
  const slept: number[] = [];
  let calls = 0;
  return {
    slept,
    calls: () => calls,
    attempt: async () => answers[Math.min(calls++, answers.length - 1)]!,
    sleep: async (ms: number) => void slept.push(ms),
  };
}
const fail = (reason: string, retryable = true): Attempt => ({ ok: false, reason, retryable });

describe('withRetries', () => {
  it('by default: 3 attempts, waiting 1 s then 2 s, ending with the last reason', async () => {
    const s = scripted([fail('http_500'), fail('timeout'), fail('http_503')]);
    expect(await withRetries(DEFAULT_RETRY, s.attempt, s.sleep)).toEqual({
      ok: false,
      attempts: 3,
      reason: 'http_503',
    });
    expect(s.slept).toEqual([1000, 2000]);
  });

  it('stops at the first success', async () => {
    const s = scripted([fail('connection_refused'), { ok: true }]);
    expect(await withRetries(DEFAULT_RETRY, s.attempt, s.sleep)).toEqual({ ok: true, attempts: 2, reason: null });
    expect(s.slept).toEqual([1000]);
  });

  it('does not retry a failure that will not pass (4xx, SSRF refusal)', async () => {
    const s = scripted([fail('http_404', false)]);
    expect(await withRetries(DEFAULT_RETRY, s.attempt, s.sleep)).toEqual({
      ok: false,
      attempts: 1,
      reason: 'http_404',
    });
    expect(s.slept).toEqual([]);
  });

  it('doubles the wait each time', () => {
    expect([2, 3, 4, 5].map((n) => backoffDelay({ attempts: 5, backoffMs: 100 }, n))).toEqual([100, 200, 400, 800]);
  });
});

describe('retryableStatus', () => {
  it('retries 5xx, 429 and 408 only', () => {
    expect([500, 502, 503, 429, 408].every(retryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 410, 301, 302].some(retryableStatus)).toBe(false);
  });
});
