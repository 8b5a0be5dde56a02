import { hotQuery, hotStatement, type HotTransaction } from './hot-query.js';
import type { PrismaClient } from './prisma.js';
import { addRollupTimings, ROLLUP_TIMING_COLUMNS, ROLLUP_TIMINGS } from './rollups.js';

/** One check result to store, as the check_results row takes it. */
export interface ResultRow {
  monitorId: string;
  region: string;
  slot: Date;
  checkedAt: Date;
  outcome: 'up' | 'degraded' | 'down';
  responseMs: number | null;
  statusCode: number | null;
  reason: string | null;
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  waitingMs: number | null;
  /** https: the leaf certificate seen (CertificateInfo); null otherwise. */
  certificate: object | null;
  /** dns: the answers; null when none was obtained. */
  dnsAnswers: string[] | null;
  /** The IP address the check talked to; null when none. */
  address: string | null;
  /** api: the steps' results in their stored form (packStepResults); null otherwise. */
  steps?: unknown[] | null;
  /** http: the trace id of the `traceparent` sent; null when none. */
  traceId?: string | null;
}

/** insertResultsWithRollups's statement ($1: the rows as JSON), a hot one (hot-query.ts). */
const INSERT_RESULTS = hotStatement(`
  WITH ins AS (
    INSERT INTO check_results ("monitorId", region, slot, "checkedAt", outcome, "responseMs", "statusCode", reason, "dnsMs", "connectMs", "tlsMs", "waitingMs", certificate, "dnsAnswers", address, steps, "traceId")
    SELECT v.m, v.r, v.s, v.c, v.o::"CheckOutcome", v.resp, v.code, v.reason, v.dns, v.conn, v.tls, v.wait, v.cert, v.answers, v.addr, v.steps, v.trace
    FROM json_to_recordset($1::json) AS v(m uuid, r text, s timestamptz, c timestamptz, o text, resp int, code int, reason text,
      dns int, conn int, tls int, wait int, cert jsonb, answers jsonb, addr inet, steps jsonb, trace text)
    ON CONFLICT ("monitorId", region, slot) DO NOTHING
    RETURNING "monitorId", region, slot, "checkedAt", outcome, "responseMs", "dnsMs", "connectMs", "tlsMs", "waitingMs"
  ), hourly AS (
    INSERT INTO check_rollups_hourly AS h ("monitorId", region, hour, total, "downCount", ${ROLLUP_TIMING_COLUMNS.sql})
    SELECT "monitorId", region, date_trunc('hour', "checkedAt" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*), count(*) FILTER (WHERE outcome = 'down'),
      ${ROLLUP_TIMINGS.sql}
    FROM ins GROUP BY 1, 2, 3
    ON CONFLICT ("monitorId", region, hour) DO UPDATE SET
      total = h.total + EXCLUDED.total, "downCount" = h."downCount" + EXCLUDED."downCount", ${addRollupTimings('h').sql}
  ), daily AS (
    INSERT INTO check_rollups_daily AS d ("monitorId", region, day, total, "downCount", "degradedCount", ${ROLLUP_TIMING_COLUMNS.sql})
    SELECT "monitorId", region, ("checkedAt" AT TIME ZONE 'UTC')::date, count(*), count(*) FILTER (WHERE outcome = 'down'), count(*) FILTER (WHERE outcome = 'degraded'),
      ${ROLLUP_TIMINGS.sql}
    FROM ins GROUP BY 1, 2, 3
    ON CONFLICT ("monitorId", region, day) DO UPDATE SET
      total = d.total + EXCLUDED.total, "downCount" = d."downCount" + EXCLUDED."downCount", "degradedCount" = d."degradedCount" + EXCLUDED."degradedCount",
      ${addRollupTimings('d').sql}
  )
  SELECT "monitorId", region, slot FROM ins`);

/**
 * Inserts many results and adds the newly inserted ones to their hourly and daily rollups (UTC), in one statement:
 * a (monitor, region, slot) already stored is skipped and counted nowhere. The sums and latency histograms
 * (docs/adr/0019-latency-histograms.md) are those of `rebuildRollups` over the same rows, grouped per rollup row.
 * Returns the keys inserted. Call it in a transaction holding the monitors' locks.
 */
export async function insertResultsWithRollups(
  tx: PrismaClient | HotTransaction,
  rows: readonly ResultRow[],
): Promise<Array<{ monitorId: string; region: string; slot: Date }>> {
  if (rows.length === 0) return [];
  // One JSON parameter rather than an array per column: one value to send, whatever the group's size (17 arrays cost
  // Prisma's query compiler about 2 ms of CPU a statement more, issue 33).
  const values = JSON.stringify(
    rows.map((r) => ({
      m: r.monitorId,
      r: r.region,
      s: r.slot,
      c: r.checkedAt,
      o: r.outcome,
      resp: r.responseMs,
      code: r.statusCode,
      // PostgreSQL's JSON refuses a lone surrogate (a text parameter took it as U+FFFD): replaced the same way.
      reason: r.reason === null ? null : r.reason.replace(/\p{Surrogate}/gu, '\uFFFD'),
      dns: r.dnsMs,
      conn: r.connectMs,
      tls: r.tlsMs,
      wait: r.waitingMs,
      cert: r.certificate,
      answers: r.dnsAnswers,
      addr: r.address,
      steps: r.steps ?? null,
      trace: r.traceId ?? null,
    })),
  );
  return hotQuery<{ monitorId: string; region: string; slot: Date }>(tx, INSERT_RESULTS, [values]);
}
