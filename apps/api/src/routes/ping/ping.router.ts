import { Router, type RequestHandler } from 'express';
import type { PrismaClient } from '@statusvane/shared';

const SECRET = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * The heartbeat receiver: `<PUBLIC_BASE_URL>/ping/<secret>` (and `/fail` for an explicit failure), GET, HEAD or
 * POST, no token: the unguessable secret is the credential. One indexed UPDATE and a two-byte answer; the body,
 * if any, is never read. The worker turns lastPingAt / lastPingFailAt into check results.
 */
export function pingRouter({ prisma }: { prisma: PrismaClient }): Router {
  const router = Router();
  const receive =
    (fail: boolean): RequestHandler =>
    async (req, res) => {
      const secret = String(req.params.secret);
      const now = new Date();
      const count = SECRET.test(secret)
        ? (
            await prisma.monitor.updateMany({
              where: { pingSecret: secret, type: 'heartbeat' },
              data: fail ? { lastPingFailAt: now } : { lastPingAt: now },
            })
          ).count
        : 0;
      res.setHeader('Cache-Control', 'no-store');
      if (count === 0) {
        res.status(404).type('text/plain').send('unknown ping URL\n');
        return;
      }
      res.status(200).type('text/plain').send('OK');
    };
  for (const [path, fail] of [['/ping/:secret', false], ['/ping/:secret/fail', true]] as const) {
    router.get(path, receive(fail));
    router.head(path, receive(fail));
    router.post(path, receive(fail));
  }
  return router;
}
