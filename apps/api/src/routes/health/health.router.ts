import { Router } from 'express';
import { withTimeout } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: PostgreSQL and Redis answer, and the process is
 * not shutting down: from SIGTERM on it answers 503 `draining` while it still serves for SHUTDOWN_DRAIN_SECONDS).
 */
export function healthRouter({ prisma, redis, lifecycle }: Pick<ApiDeps, 'prisma' | 'redis' | 'lifecycle'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    if (lifecycle?.draining) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const [postgres, redisState] = await Promise.all([
      withTimeout(prisma.$queryRawUnsafe('SELECT 1'), 2000).then(
        () => 'ok',
        () => 'unavailable',
      ),
      withTimeout(redis.ping(), 2000).then(
        () => 'ok',
        () => 'unavailable',
      ),
    ]);
    const ok = postgres === 'ok' && redisState === 'ok';
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks: { postgres, redis: redisState } });
  });
  return router;
}
