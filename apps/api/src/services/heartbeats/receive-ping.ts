import { createBatchLoader, hotQuery, hotStatement, perClient, type PrismaClient } from '@statusvane/shared';

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
  /**
   * The run this success ping closed ended sooner than the monitor's minRunSeconds (`run_too_short`); a ping that
   * closed no run is never too short.
   */
  tooShort: boolean;
}

/**
 * The ping writer's statement ($1-$7: the round's pings column by column, $8: the time): one statement, no read before
 * the write. The UPDATE works out each ping's run from the monitor's row as it locks it (the latest version, whatever
 * committed meanwhile), and RETURNING hands the pings' durations to the log's INSERT (RETURNING sees the new row: an end
 * ping's duration is its new lastRunDurationMs). The counted passes live with the region's flap state (a heartbeat is
 * judged in one region). A hot statement (hotQuery): its planning cost about as much as its execution.
 */
const PING_WRITE = hotStatement(`
  WITH p AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[],
      $4::uuid[], $5::text[], $6::text[], $7::text[])
      AS p(secret, kind, "exitCode", rid, body, "remoteAddress", "userAgent")
  ), u AS (
    UPDATE monitors AS m SET
      "lastPingAt" = CASE WHEN p.kind = 'success' THEN $8::timestamptz ELSE m."lastPingAt" END,
      "lastPingFailAt" = CASE WHEN p.kind = 'fail' THEN $8::timestamptz ELSE m."lastPingFailAt" END,
      "runStartedAt" = CASE WHEN p.kind = 'start' THEN $8::timestamptz
        WHEN (m."runStartedAt" IS NOT NULL AND m."runStartedRid" IS NOT DISTINCT FROM p.rid)
          OR p.kind = 'fail' OR p.rid IS NULL THEN NULL
        ELSE m."runStartedAt" END,
      "runStartedRid" = CASE WHEN p.kind = 'start' THEN p.rid
        WHEN (m."runStartedAt" IS NOT NULL AND m."runStartedRid" IS NOT DISTINCT FROM p.rid)
          OR p.kind = 'fail' OR p.rid IS NULL THEN NULL
        ELSE m."runStartedRid" END,
      "lastRunDurationMs" = CASE WHEN p.kind = 'start' THEN m."lastRunDurationMs"
        ELSE floor(extract(epoch FROM ($8::timestamptz - CASE
          WHEN m."runStartedAt" IS NOT NULL AND m."runStartedRid" IS NOT DISTINCT FROM p.rid THEN m."runStartedAt"
          WHEN p.rid IS NOT NULL THEN (SELECT s.at FROM heartbeat_pings s
            WHERE s."monitorId" = m.id AND s.kind = 'start' AND s.rid = p.rid ORDER BY s.at DESC LIMIT 1)
        END)) * 1000)::int END,
      "updatedAt" = $8::timestamptz
    FROM p
    WHERE m."pingSecret" = p.secret AND m.type = 'heartbeat'
    RETURNING m.id, p.secret, p.kind, p."exitCode", p.rid, p.body, p."remoteAddress", p."userAgent", m.enabled,
      m.status::text AS status, m."resolveThreshold", m."maxRunSeconds",
      m."minRunSeconds",
      CASE WHEN p.kind = 'start' THEN NULL ELSE m."lastRunDurationMs" END AS "durationMs"
  ), ins AS (
    INSERT INTO heartbeat_pings (id, "monitorId", at, kind, "exitCode", "durationMs", rid, body, "remoteAddress",
      "userAgent")
    SELECT gen_random_uuid(), u.id, $8::timestamptz, u.kind::"HeartbeatPingKind", u."exitCode", u."durationMs",
      u.rid, u.body, u."remoteAddress", u."userAgent"
    FROM u
  )
  SELECT u.id, u.secret, u.enabled, u.status, u."resolveThreshold",
    coalesce(u."durationMs" > u."maxRunSeconds" * 1000, false) AS "tooLong",
    coalesce(u.kind = 'success' AND u."durationMs" < u."minRunSeconds" * 1000, false) AS "tooShort",
    coalesce((SELECT min(s."consecutivePasses") FROM monitor_region_states s WHERE s."monitorId" = u.id), 0)::int
      AS "consecutivePasses"
  FROM u`);

/**
 * The pings of one event-loop turn in one statement per round (a round holds at most one ping per secret, so a turn
 * usually takes one): it updates each monitor's ping times and run in progress and stores every ping in
 * heartbeat_pings with its run's duration. Each ping is answered only once its rows are written, so
 * 200 still means recorded.
 *
 * Runs pair as Healthchecks pairs them: a start sets the run in progress (at, rid); an end ping with the same rid
 * (both absent included) ends it and takes its duration; a `fail`, or a success without rid, ends it whatever its
 * rid; a success with another rid leaves it running. An end with a rid that is not the run in progress (overlapping
 * runs) takes its duration from the latest start of that rid in the log.
 */
/**
 * Ping statements at once per API process. A statement's fixed part (its commit, its executor start) is about as costly
 * as 10 of its pings, so fewer, larger ones: with one in flight, the pings that arrive meanwhile all go in the next.
 * Against two in flight, measured under 50 connections of pings (docs/benchmarks.md, twelfth pass): 25-26 pings a
 * statement instead of 20-22, less CPU a ping in the API process and in PostgreSQL, and a lower p50.
 */
const PING_WRITES_IN_FLIGHT = 1;
const pingWriter = perClient((prisma: PrismaClient) =>
  createBatchLoader<Ping & { seq: number }, PingedMonitor>(
    async (keys) => {
      const at = new Date().toISOString();
      const found = new Map<string, PingedMonitor>();
      const pending = [...keys];
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
        const rows = await hotQuery<PingedMonitor & { secret: string }>(prisma, PING_WRITE, [
          col('secret'),
          col('kind'),
          col('exitCode'),
          col('rid'),
          col('body'),
          col('remoteAddress'),
          col('userAgent'),
          at,
        ]);
        const bySecret = new Map(rows.map(({ secret, ...r }) => [secret, r]));
        for (const p of round) {
          const r = bySecret.get(p.secret);
          if (r) found.set(String(p.seq), r);
        }
      }
      return found;
    },
    // Each ping is its own key (its seq): the batch is never padded, whose repeated keys would only be written twice.
    { keyOf: (k) => String(k.seq), maxInFlight: PING_WRITES_IN_FLIGHT, pad: false },
  ),
);

let seq = 0;

/**
 * `<PUBLIC_BASE_URL>/ping/<secret>...`: records a heartbeat ping (start, success or failure); null when no heartbeat
 * monitor has that secret. No `ctx`: the secret is the credential, and it names the monitor.
 */
export async function receivePing(
  { prisma }: { prisma: PrismaClient },
  { input: ping }: { input: Ping },
): Promise<PingedMonitor | null> {
  // Object.assign rather than a spread: several times cheaper on Node 20, on every ping.
  return (await pingWriter(prisma).load(Object.assign({ seq: seq++ }, ping))) ?? null;
}
