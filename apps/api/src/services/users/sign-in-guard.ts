import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { sha256Hex, UnavailableError, type RedisClient } from '@statusvane/shared';

/** Failures per (email, client address) in the window that lock that pair (§7). */
export const PAIR_FAILURES = 10;
/** Failures per client address, whatever the emails, that lock the address. */
export const ADDRESS_FAILURES = 100;
/** The counting window and the length of a lock: 15 minutes. */
export const LOCKOUT_SECONDS = 15 * 60;
/** Failures of one email (from any address) before each attempt for it waits; the wait grows to MAX_DELAY_MS. */
const EMAIL_FREE_FAILURES = 10;
const DELAY_STEP_MS = 250;
const MAX_DELAY_MS = 3_000;

/**
 * The delay before answering a sign-in for an email that failed `failures` times in the window, from any address. It
 * slows a guesser spread over many addresses without ever locking the owner out (the owner waits at most 3 s).
 */
export function emailDelayMs(failures: number): number {
  return Math.min(MAX_DELAY_MS, Math.max(0, failures - EMAIL_FREE_FAILURES + 1) * DELAY_STEP_MS);
}

export interface SignInGuard {
  /** Whether an attempt is refused unheard (locked pair or address), and how long it waits first. */
  check(email: string, address: string): Promise<{ locked: boolean; delayMs: number }>;
  /** Counts a failure against the pair, the address and the email; locks what reached its limit. */
  failed(email: string, address: string): Promise<void>;
  /** A right password clears the pair's count (the address and email counts run out with their window). */
  succeeded(email: string, address: string): Promise<void>;
}

/**
 * Sign-in failure counters in Redis (shared by every API replica), fixed 15-minute windows from the first failure.
 * Emails are hashed in the keys. Redis unreachable: 503, never an unmetered sign-in.
 */
export function createSignInGuard(redis: RedisClient, keyPrefix = 'sv:signin'): SignInGuard {
  const limiter = (name: string, points: number) =>
    new RateLimiterRedis({
      storeClient: redis,
      points,
      duration: LOCKOUT_SECONDS,
      keyPrefix: `${keyPrefix}:${name}`,
      useRedisPackage: false,
    });
  const pair = limiter('pair', PAIR_FAILURES);
  const address = limiter('addr', ADDRESS_FAILURES);
  // Counts only: an email is never locked.
  const email = limiter('email', Number.MAX_SAFE_INTEGER);
  const emailKey = (e: string) => sha256Hex(e.toLowerCase()).slice(0, 32);
  const pairKey = (e: string, a: string) => `${emailKey(e)}:${a}`;
  const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch {
      throw new UnavailableError('redis');
    }
  };
  const used = (r: RateLimiterRes | null) => r?.consumedPoints ?? 0;
  return {
    check: (e, a) =>
      guarded(async () => {
        const [p, ad, em] = await Promise.all([pair.get(pairKey(e, a)), address.get(a), email.get(emailKey(e))]);
        return {
          locked: used(p) >= PAIR_FAILURES || used(ad) >= ADDRESS_FAILURES,
          delayMs: emailDelayMs(used(em)),
        };
      }),
    failed: (e, a) =>
      guarded(async () => {
        const [p, ad] = await Promise.all([
          pair.penalty(pairKey(e, a), 1),
          address.penalty(a, 1),
          email.penalty(emailKey(e), 1),
        ]);
        // A lock lasts 15 minutes from the failure that reached the limit, not to the end of the window.
        if (p.consumedPoints === PAIR_FAILURES) await pair.block(pairKey(e, a), LOCKOUT_SECONDS);
        if (ad.consumedPoints === ADDRESS_FAILURES) await address.block(a, LOCKOUT_SECONDS);
      }),
    succeeded: (e, a) =>
      guarded(async () => {
        await pair.delete(pairKey(e, a));
      }),
  };
}
