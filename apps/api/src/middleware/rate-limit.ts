import type { RequestHandler } from 'express';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, UnavailableError, type Logger, type RedisClient } from '@statusvane/shared';
import { tokenIdOf } from './auth.js';

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
  const setHeaders = (res: Parameters<RequestHandler>[1], r: RateLimiterRes) => {
    res.setHeader('RateLimit-Limit', String(pointsPerMinute));
    res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
    res.setHeader('RateLimit-Reset', String(Math.ceil(r.msBeforeNext / 1000)));
  };
  return async (_req, res, next) => {
    const key = tokenIdOf(res);
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(key, 1);
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
