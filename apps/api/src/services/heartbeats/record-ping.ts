import { createBatchLoader, loaderPerClient, type PrismaClient } from '@statusvane/shared';

export interface PingedMonitor {
  id: string;
  enabled: boolean;
  /** With the flap state: whether the worker should judge this ping at once (ping.router.ts). */
  status: string;
  /** Counted consecutive passes of the monitor's region (0 before its first counted result). */
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
      const at = new Date().toISOString();
      const found = new Map<string, PingedMonitor>();
      for (const fail of [false, true]) {
        const secrets = keys.filter((k) => k.fail === fail).map((k) => k.secret);
        if (!secrets.length) continue;
        // The counted passes live with the region's flap state (a heartbeat is judged in one region).
        const rows = await prisma.$queryRaw<Array<PingedMonitor & { pingSecret: string }>>`
          UPDATE monitors AS m SET
            "lastPingAt" = CASE WHEN ${fail} THEN m."lastPingAt" ELSE ${at}::timestamptz END,
            "lastPingFailAt" = CASE WHEN ${fail} THEN ${at}::timestamptz ELSE m."lastPingFailAt" END,
            "updatedAt" = ${at}::timestamptz
          WHERE m."pingSecret" = ANY(${secrets}::text[]) AND m.type = 'heartbeat'
          RETURNING m.id, m.enabled, m."pingSecret", m.status::text AS status, m."resolveThreshold",
            coalesce((SELECT min(s."consecutivePasses") FROM monitor_region_states s WHERE s."monitorId" = m.id), 0)::int
              AS "consecutivePasses"`;
        for (const { pingSecret, ...r } of rows) found.set(`${fail}/${pingSecret}`, r);
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
