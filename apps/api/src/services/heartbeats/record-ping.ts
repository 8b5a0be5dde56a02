import { createBatchLoader, loaderPerClient, padToPowerOfTwo, type PrismaClient } from '@statusvane/shared';

export interface PingedMonitor {
  id: string;
  enabled: boolean;
  /** With the flap state: whether the worker should judge this ping at once (ping.router.ts). */
  status: string;
  consecutivePasses: number;
  resolveThreshold: number;
}

/**
 * The pings of one event-loop turn in one UPDATE per kind (success, fail) instead of one each: a burst of pings costs
 * one round trip and one commit. Each ping is answered only once its row is written, so 200 still means recorded.
 * Two pings of one secret in a turn set the same time once.
 */
const pingWriter = loaderPerClient((prisma: PrismaClient) =>
  createBatchLoader<{ secret: string; fail: boolean }, PingedMonitor>(
    async (keys) => {
      const at = new Date();
      const found = new Map<string, PingedMonitor>();
      for (const fail of [false, true]) {
        const secrets = keys.filter((k) => k.fail === fail).map((k) => k.secret);
        if (!secrets.length) continue;
        const rows = await prisma.monitor.updateManyAndReturn({
          where: { pingSecret: { in: padToPowerOfTwo(secrets) }, type: 'heartbeat' },
          data: fail ? { lastPingFailAt: at } : { lastPingAt: at },
          select: {
            id: true,
            enabled: true,
            pingSecret: true,
            status: true,
            consecutivePasses: true,
            resolveThreshold: true,
          },
        });
        for (const r of rows) {
          found.set(`${fail}/${r.pingSecret}`, {
            id: r.id,
            enabled: r.enabled,
            status: r.status,
            consecutivePasses: r.consecutivePasses,
            resolveThreshold: r.resolveThreshold,
          });
        }
      }
      return found;
    },
    { keyOf: (k) => `${k.fail}/${k.secret}` },
  ),
);

/** Records a heartbeat ping (or an explicit failure); null when no heartbeat monitor has that secret. */
export async function recordPing(
  prisma: PrismaClient,
  ping: { secret: string; fail: boolean },
): Promise<PingedMonitor | null> {
  return (await pingWriter(prisma).load(ping)) ?? null;
}
