import { randomUUID } from 'node:crypto';
import type { RedisClient } from '@statusvane/shared';
import type { RdapAnswer, RdapClient } from '../probes/rdap.probe.js';

/**
 * At most one RDAP lookup per domain per 6 h across every monitor and worker of the deployment (spec section 12):
 * registries rate-limit RDAP hard, and a hundred monitors of one domain ask the same question. The answer, whatever
 * it is (an error too: asking again sooner is what gets a client blocked), is kept in Redis for CACHE_TTL_MS under
 * `<prefix>:rdap:<domain>`; the worker that takes `<prefix>:rdap:<domain>:lock` (SET NX PX) asks, the others wait
 * for its answer. Within one worker, concurrent checks of one domain share one wait.
 */
export interface DomainLookups {
  /** The registry's answer for `domain` (normalized), from the cache or one lookup. Never throws on RDAP failures. */
  lookup(domain: string): Promise<RdapAnswer>;
}

export const CACHE_TTL_MS = 6 * 3600_000;
/** Longer than a lookup can take (bootstrap and domain, 10 s each): a worker that dies holding it frees it then. */
const LOCK_MS = 30_000;
const POLL_MS = 100;

/** Deletes the lock only if it is still ours (it may have expired and been taken by another worker). */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export function createDomainLookups(deps: {
  redis: RedisClient;
  rdap: RdapClient;
  /** The deployment's queue prefix: deployments sharing one Redis each keep their own answers. */
  prefix: string;
  ttlMs?: number;
}): DomainLookups {
  const ttlMs = deps.ttlMs ?? CACHE_TTL_MS;
  const inFlight = new Map<string, Promise<RdapAnswer>>();

  const cached = async (key: string): Promise<RdapAnswer | null> => {
    const raw = await deps.redis.get(key);
    return raw === null ? null : (JSON.parse(raw) as { answer: RdapAnswer }).answer;
  };

  async function resolve(domain: string): Promise<RdapAnswer> {
    const key = `${deps.prefix}:rdap:${domain}`;
    const lockKey = `${key}:lock`;
    // Past this, the holder died without answering and its lock expired more than once: give up for this check.
    const giveUpAt = Date.now() + 2 * LOCK_MS;
    for (;;) {
      const hit = await cached(key);
      if (hit) return hit;
      const token = randomUUID();
      if ((await deps.redis.set(lockKey, token, 'PX', LOCK_MS, 'NX')) === 'OK') {
        try {
          // Another worker may have stored its answer between our read and our lock.
          const stored = await cached(key);
          if (stored) return stored;
          const answer = await deps.rdap.lookup(domain);
          await deps.redis.set(key, JSON.stringify({ at: new Date().toISOString(), answer }), 'PX', ttlMs);
          return answer;
        } finally {
          await deps.redis.eval(RELEASE, 1, lockKey, token).catch(() => undefined);
        }
      }
      if (Date.now() > giveUpAt) return { kind: 'error', reason: 'lookup_busy: another worker holds the lookup' };
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  return {
    lookup(domain) {
      const running = inFlight.get(domain);
      if (running) return running;
      const p = resolve(domain).finally(() => inFlight.delete(domain));
      inFlight.set(domain, p);
      return p;
    },
  };
}
