import { Redis, type RedisOptions } from 'ioredis';

/**
 * Connections for request paths (API): fail fast instead of queueing while Redis is away, so the API can
 * answer 503 at once. The client keeps reconnecting in the background and recovers by itself.
 */
export function createApiRedis(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 3000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
    // The commands of one event-loop turn (the rate-limit checks of a batch of requests) go out in one write.
    enableAutoPipelining: true,
    ...extra,
  });
}

/** Connections for BullMQ workers: block and retry forever (BullMQ requires maxRetriesPerRequest null). */
export function createWorkerRedis(url: string, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    ...extra,
  });
}
