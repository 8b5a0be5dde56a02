import { createBatchLoader, loaderPerClient, type PrismaClient } from '@statusvane/shared';

export type PingKind = 'start' | 'success' | 'fail';

/** One ping as the receiver read it (ping.router.ts). */
export interface Ping {
  secret: string;
  kind: PingKind;
  /** `/ping/<secret>/<exitCode>`: 0 (a success) to 255; null for `/`, `/start` and `/fail`. */
  exitCode: number | null;
  /** `?rid=<uuid>`: pairs a start with its end when runs overlap. */
  rid: string | null;
  /** The POST body's first bytes (the run's log), null when empty. */
  body: string | null;
  remoteAddress: string | null;
  userAgent: string | null;
}

export interface PingedMonitor {
  id: string;
  enabled: boolean;
  /** With the flap state: whether the worker should judge this ping at once (ping.router.ts). */
  status: string;
  /** Counted consecutive passes of the monitor's region (0 before its first counted result). */
  consecutivePasses: number;
  resolveThreshold: number;
  /** The run this end ping closed took longer than the monitor's maxRunSeconds (`run_too_long`). */
  tooLong: boolean;
}

/**
 * The pings of one event-loop turn in one statement per round (a round holds at most one ping per secret, so a turn
 * usually takes one): it locks the monitors, stores every ping in heartbeat_pings with its run's duration, and
 * updates each monitor's ping times and run in progress. Each ping is answered only once its rows are written, so
 * 200 still means recorded.
 *
 * Runs pair as Healthchecks pairs them: a start sets the run in progress (at, rid); an end ping with the same rid
 * (both absent included) ends it and takes its duration; a `fail`, or a success without rid, ends it whatever its
 * rid; a success with another rid leaves it running. An end with a rid that is not the run in progress (overlapping
 * runs) takes its duration from the latest start of that rid in the log.
 */
const pingWriter = loaderPerClient((prisma: PrismaClient) =>
  createBatchLoader<Ping & { seq: number }, PingedMonitor>(
    async (keys) => {
      const at = new Date().toISOString();
      const found = new Map<string, PingedMonitor>();
      const pending = [...new Map(keys.map((k) => [k.seq, k])).values()];
      while (pending.length) {
        const round: typeof pending = [];
        const secrets = new Set<string>();
        for (let i = 0; i < pending.length;) {
          if (secrets.has(pending[i]!.secret)) {
            i++;
            continue;
          }
          secrets.add(pending[i]!.secret);
          round.push(...pending.splice(i, 1));
        }
        const col = <F extends keyof Ping>(f: F) => round.map((p) => p[f]);
        // The counted passes live with the region's flap state (a heartbeat is judged in one region).
        const rows = await prisma.$queryRaw<Array<PingedMonitor & { secret: string }>>`
          WITH p AS (
            SELECT * FROM unnest(${col('secret')}::text[], ${col('kind')}::text[], ${col('exitCode')}::int[],
              ${col('rid')}::uuid[], ${col('body')}::text[], ${col('remoteAddress')}::text[], ${col('userAgent')}::text[])
              AS p(secret, kind, "exitCode", rid, body, "remoteAddress", "userAgent")
          ), m AS (
            SELECT m.id, m."pingSecret", m."runStartedAt", m."runStartedRid", m."maxRunSeconds", m.enabled,
              m.status::text AS status, m."resolveThreshold"
            FROM monitors m WHERE m."pingSecret" = ANY(${col('secret')}::text[]) AND m.type = 'heartbeat'
            FOR UPDATE
          ), j AS (
            SELECT m.*, p.*, (p.kind <> 'start' AND m."runStartedAt" IS NOT NULL
              AND m."runStartedRid" IS NOT DISTINCT FROM p.rid) AS matched
            FROM m JOIN p ON p.secret = m."pingSecret"
          ), d AS (
            SELECT j.*, CASE
              WHEN j.kind = 'start' THEN NULL
              WHEN j.matched THEN j."runStartedAt"
              WHEN j.rid IS NOT NULL THEN (SELECT s.at FROM heartbeat_pings s
                WHERE s."monitorId" = j.id AND s.kind = 'start' AND s.rid = j.rid ORDER BY s.at DESC LIMIT 1)
            END AS "startedAt" FROM j
          ), e AS (
            SELECT d.*, floor(extract(epoch FROM (${at}::timestamptz - d."startedAt")) * 1000)::int AS "durationMs" FROM d
          ), ins AS (
            INSERT INTO heartbeat_pings (id, "monitorId", at, kind, "exitCode", "durationMs", rid, body, "remoteAddress",
              "userAgent")
            SELECT gen_random_uuid(), e.id, ${at}::timestamptz, e.kind::"HeartbeatPingKind", e."exitCode", e."durationMs",
              e.rid, e.body, e."remoteAddress", e."userAgent"
            FROM e
          ), upd AS (
            UPDATE monitors AS m SET
              "lastPingAt" = CASE WHEN e.kind = 'success' THEN ${at}::timestamptz ELSE m."lastPingAt" END,
              "lastPingFailAt" = CASE WHEN e.kind = 'fail' THEN ${at}::timestamptz ELSE m."lastPingFailAt" END,
              "runStartedAt" = CASE WHEN e.kind = 'start' THEN ${at}::timestamptz
                WHEN e.matched OR e.kind = 'fail' OR e.rid IS NULL THEN NULL ELSE m."runStartedAt" END,
              "runStartedRid" = CASE WHEN e.kind = 'start' THEN e.rid
                WHEN e.matched OR e.kind = 'fail' OR e.rid IS NULL THEN NULL ELSE m."runStartedRid" END,
              "lastRunDurationMs" = CASE WHEN e.kind = 'start' THEN m."lastRunDurationMs" ELSE e."durationMs" END,
              "updatedAt" = ${at}::timestamptz
            FROM e WHERE m.id = e.id
          )
          SELECT e.id, e.secret, e.enabled, e.status, e."resolveThreshold",
            coalesce(e."durationMs" > e."maxRunSeconds" * 1000, false) AS "tooLong",
            coalesce((SELECT min(s."consecutivePasses") FROM monitor_region_states s WHERE s."monitorId" = e.id), 0)::int
              AS "consecutivePasses"
          FROM e`;
        const bySecret = new Map(rows.map(({ secret, ...r }) => [secret, r]));
        for (const p of round) {
          const r = bySecret.get(p.secret);
          if (r) found.set(String(p.seq), r);
        }
      }
      return found;
    },
    { keyOf: (k) => String(k.seq) },
  ),
);

let seq = 0;

/** Records a heartbeat ping (start, success or failure); null when no heartbeat monitor has that secret. */
export async function recordPing(prisma: PrismaClient, ping: Ping): Promise<PingedMonitor | null> {
  return (await pingWriter(prisma).load({ ...ping, seq: seq++ })) ?? null;
}
