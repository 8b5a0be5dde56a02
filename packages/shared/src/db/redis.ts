import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../config/config.js';

/** A connection to one Redis server or to a Redis Cluster: every Statusvane process takes either. */
export type RedisClient = Redis | Cluster;

/** The options both roles share for each node of a cluster: credentials and TLS of REDIS_URL, if given. */
function nodeOptions(url: string | null): RedisOptions {
  if (!url) return {};
  const u = new URL(url);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * The one place connections are made. A URL (or a target without `cluster`) is one server; a target with `cluster`
 * is an ioredis Cluster seeded from those nodes: it discovers the others, follows MOVED/ASK redirections and
 * resharding. Queue keys are hash-tagged per queue on a cluster (`bullPrefix`), so BullMQ's scripts, which touch
 * several keys of one queue, run on one node.
 */
function connect(target: string | RedisTarget, options: RedisOptions, cluster: ClusterOptions): RedisClient {
  const t: RedisTarget = typeof target === 'string' ? { url: target, cluster: null } : target;
  if (!t.cluster) return new Redis(t.url, options);
  const { enableOfflineQueue, enableReadyCheck, enableAutoPipelining, retryStrategy, ...perNode } = options;
  return new Cluster(t.cluster, {
    ...cluster,
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(enableReadyCheck !== undefined ? { enableReadyCheck } : {}),
    ...(enableAutoPipelining !== undefined ? { enableAutoPipelining } : {}),
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    redisOptions: { ...nodeOptions(t.url), ...perNode },
  });
}

/**
 * Connections for request paths (API): fail fast instead of queueing while Redis is away, so the API can
 * answer 503 at once. The client keeps reconnecting in the background and recovers by itself.
 */
export function createApiRedis(url: string, extra?: RedisOptions): Redis;
export function createApiRedis(target: RedisTarget, extra?: RedisOptions): RedisClient;
export function createApiRedis(target: string | RedisTarget, extra: RedisOptions = {}): RedisClient {
  return connect(
    target,
    {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 3000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
      lazyConnect: false,
      // The commands of one event-loop turn (the rate-limit checks of a batch of requests) go out in one write.
      enableAutoPipelining: true,
      ...extra,
    },
    // A MOVED during resharding or a failover is retried on the right node rather than answered 503.
    { slotsRefreshTimeout: 2000, maxRedirections: 16 },
  );
}

/** Connections for BullMQ workers: block and retry forever (BullMQ requires maxRetriesPerRequest null). */
export function createWorkerRedis(url: string, extra?: RedisOptions): Redis;
export function createWorkerRedis(target: RedisTarget, extra?: RedisOptions): RedisClient;
export function createWorkerRedis(target: string | RedisTarget, extra: RedisOptions = {}): RedisClient {
  return connect(
    target,
    {
      maxRetriesPerRequest: null,
      enableReadyCheck: true,
      retryStrategy: (times) => Math.min(times * 200, 2000),
      ...extra,
    },
    { slotsRefreshTimeout: 2000 },
  );
}

/** Whether a connection (or BullMQ connection options) is a Redis Cluster. */
export function isRedisCluster(connection: unknown): boolean {
  return (connection as { isCluster?: unknown } | null)?.isCluster === true;
}

/**
 * BullMQ's key prefix for one queue. On one server: the deployment's QUEUE_PREFIX, as always. On a Redis Cluster
 * every key a BullMQ script touches must hash to one slot, so the prefix becomes a hash tag naming the queue
 * (`{bull:checks-eu}`): each queue's keys live together, and different queues (one per region, escalations) spread
 * over the masters, as BullMQ's documentation recommends.
 */
export function bullPrefix(connection: unknown, prefix: string | undefined, queueName: string): string | undefined {
  return isRedisCluster(connection) ? `{${prefix ?? 'bull'}:${queueName}}` : prefix;
}
