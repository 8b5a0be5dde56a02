import type { RequestHandler } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, UnavailableError, type Logger, type RedisClient } from '@statusvane/shared';
import { tokenIdOf } from './auth.js';

/**
 * One point per call, the calls of one event-loop turn counted together: the requests of one token that reach the
 * limit in the same turn (a client's concurrent requests, answered by one batched token read) cost one Redis round
 * trip, one INCRBY of their number, instead of one each. Each call is answered as if it had consumed its point alone,
 * in the order of the calls: the k-th of n sees the count the INCRBY reached less n - k, is refused (a RateLimiterRes
 * thrown, as RateLimiterRedis refuses) when that is over the limit, and its remaining points follow from it. A Redis
 * failure fails every call of the turn.
 */
function pointsPerTurn(limiter: RateLimiterRedis): (key: string) => Promise<RateLimiterRes> {
  type Waiter = { resolve: (r: RateLimiterRes) => void; reject: (err: unknown) => void };
  let turn: Map<string, Waiter[]> | null = null;
  const answer = (waiters: Waiter[], total: RateLimiterRes) => {
    waiters.forEach((w, k) => {
      const consumed = total.consumedPoints - (waiters.length - 1 - k);
      const res = new RateLimiterRes(
        Math.max(limiter.points - consumed, 0),
        total.msBeforeNext,
        consumed,
        consumed === 1,
      );
      if (consumed > limiter.points) w.reject(res);
      else w.resolve(res);
    });
  };
  const count = (key: string, waiters: Waiter[]) =>
    limiter.consume(key, waiters.length).then(
      (total) => answer(waiters, total),
      (err: unknown) => {
        if (err instanceof RateLimiterRes) answer(waiters, err);
        else for (const w of waiters) w.reject(err);
      },
    );
  return (key) =>
    new Promise<RateLimiterRes>((resolve, reject) => {
      if (!turn) {
        const gathered = (turn = new Map());
        setImmediate(() => {
          turn = null;
          for (const [k, waiters] of gathered) void count(k, waiters);
        });
      }
      const waiters = turn.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else turn.set(key, [{ resolve, reject }]);
    });
}

/**
 * Per-token limit over a fixed one-minute window, counted in Redis so it holds across API replicas.
 * Answers RateLimit-* headers on every response and 429 `rate_limited` with Retry-After when spent.
 */
export function rateLimit(redis: RedisClient, pointsPerMinute: number, keyPrefix = 'sv:rl'): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    points: pointsPerMinute,
    duration: 60,
    keyPrefix,
    useRedisPackage: false,
  });
  const consume = pointsPerTurn(limiter);
  const setHeaders = (res: Parameters<RequestHandler>[1], r: RateLimiterRes) => {
    res.setHeader('RateLimit-Limit', String(pointsPerMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
    res.setHeader('RateLimit-Reset', String(Math.ceil(r.msBeforeNext / 1000)));
  };
  return async (_req, res, next) => {
    const key = tokenIdOf(res);
    let result: RateLimiterRes;
    try {
      result = await consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        setHeaders(res, err);
        res.setHeader('Retry-After', String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))));
        throw new AppError('rate_limited', `Rate limit of ${pointsPerMinute} requests per minute exceeded`);
      }
      throw new UnavailableError('redis');
    }
    setHeaders(res, result);
    next();
  };
}

/**
 * One point of a public endpoint's limit (subscribe form, OAuth endpoints): true within it, else the limiter's answer
 * (its msBeforeNext gives Retry-After). When Redis cannot count, the request goes through, logged: a public endpoint
 * stays usable rather than refuse everyone.
 */
export async function consumeOrPass(
  limiter: RateLimiterRedis,
  key: string,
  log: { logger: Logger; what: string; requestId: unknown },
): Promise<true | RateLimiterRes> {
  try {
    await limiter.consume(key, 1);
    return true;
  } catch (err) {
    if (err instanceof RateLimiterRes) return err;
    log.logger.warn(`${log.what} limiter unavailable`, { requestId: log.requestId, error: (err as Error)?.message });
    return true;
  }
}
