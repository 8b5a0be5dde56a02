import { Router, type RequestHandler } from 'express';
import type { CheckScheduler, Logger, PrismaClient } from '@statusvane/shared';
import { recordPing } from '../../services/heartbeats/record-ping.js';

const SECRET = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * The heartbeat receiver: `<PUBLIC_BASE_URL>/ping/<secret>` (and `/fail` for an explicit failure), GET, HEAD or
 * POST, no token: the unguessable secret is the credential. One indexed UPDATE (shared by the pings of one
 * event-loop turn) and a two-byte answer; the body, if any, is never read. The worker turns lastPingAt /
 * lastPingFailAt into check results.
 */
export function pingRouter({
  prisma,
  scheduler,
  logger,
}: {
  prisma: PrismaClient;
  scheduler: CheckScheduler;
  logger: Logger;
}): Router {
  const router = Router();
  const receive =
    (fail: boolean): RequestHandler =>
    async (req, res) => {
      const secret = String(req.params.secret);
      const monitor = SECRET.test(secret) ? await recordPing(prisma, { secret, fail }) : null;
      res.setHeader('Cache-Control', 'no-store');
      if (!monitor) {
        res.status(404).type('text/plain').send('unknown ping URL\n');
        return;
      }
      // Judged at once rather than at the monitor's next deadline: an explicit failure, and a success while the
      // monitor is not steadily up (pending, down, or short of resolveThreshold passes), so a recovery resolves
      // promptly. A steady monitor's pings cost no Redis work: its deadline job finds them (docs/adr/0014). The
      // evaluations of one event-loop turn are queued together. If Redis is away the ping is still recorded and
      // the next evaluation reports it.
      const recovering = monitor.status !== 'up' || monitor.consecutivePasses < monitor.resolveThreshold;
      if (monitor.enabled && (fail || recovering)) {
        await scheduler
          .evaluateHeartbeatSoon(monitor.id, fail ? {} : { notAgainWithinMs: 1000 })
          .catch((err: Error) => logger.warn('could not queue an evaluation for a ping', { error: err.message }));
      }
      res.status(200).type('text/plain').send('OK');
    };
  // Mounted under /ping, so that every other request skips the receiver with one prefix test.
  const pings = Router();
  for (const [path, fail] of [
    ['/:secret', false],
    ['/:secret/fail', true],
  ] as const) {
    pings.route(path).get(receive(fail)).head(receive(fail)).post(receive(fail));
  }
  router.use('/ping', pings);
  return router;
}
