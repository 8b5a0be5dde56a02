import {
  certificateDaysRemaining,
  commaListQueryParam,
  dateTimeInputSchema,
  pagination,
  paginationQuerySchema,
  singleQueryValue,
  unpackStepResults,
  type CertificateInfo,
  type Pagination,
  Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import { certificateSchema, monitorLookup } from './monitor-record.js';
import { findOwn } from '../records.js';

/** `missed`: a scheduled slot the workers were too far behind to check within its interval (no data). */
const RESULT_STATUSES = ['up', 'degraded', 'down', 'missed'] as const;

/** GET /monitors/{id}/results query: pagination and filters, combined with AND. */
export const checkResultQuerySchema = paginationQuerySchema.extend({
  region: singleQueryValue(
    z
      .string()
      .min(1)
      .max(40)
      .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a region name (lower-case letters, digits and hyphens)'),
  )
    .optional()
    .meta({ description: 'Results of this region only (one of CHECK_REGIONS).' }),
  status: commaListQueryParam(RESULT_STATUSES).optional(),
  since: singleQueryValue(dateTimeInputSchema)
    .optional()
    .meta({ description: 'Results checked at or after this instant (ISO 8601 with an offset).' }),
});
export type CheckResultQuery = z.output<typeof checkResultQuerySchema>;

const phaseMs = z.number().int().nullable();
const stepResultSchema = z
  .object({
    name: z.string(),
    outcome: z.enum(['passed', 'failed', 'skipped']),
    reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why it failed (or was skipped); secrets as `<secret:NAME>`.' }),
    statusCode: z.number().int().nullable(),
    responseMs: z.number().int().nullable(),
  })
  .openapi('StepResult');

export const checkResultRecordSchema = z
  .object({
    checkedAt: dateTime,
    slot: dateTime.openapi({
      description:
        'The scheduled time the check ran for (one result per monitor, region and slot). The list is ordered by it, ' +
        'newest first, then by region: a result checked late (or a missed slot, recorded late) is listed at its slot.',
    }),
    region: z.string(),
    status: z.enum(RESULT_STATUSES).openapi({
      description:
        '`missed`: no data for this slot, neither up nor down: the workers were too far behind to check it within its interval (reason `checks_behind`). Missed slots count nowhere in uptime or response times.',
    }),
    reason: z.string().nullable().openapi({
      description:
        'Why the check failed, degraded or was missed (`status_code`, `timeout`, `checks_behind`, ...); null when up.',
    }),
    statusCode: z.number().int().nullable().openapi({ description: 'http: the response status; null otherwise.' }),
    totalMs: z.number().int().nullable().openapi({ description: 'How long the check took; null when not measured.' }),
    phases: z.object({ dnsMs: phaseMs, connectMs: phaseMs, tlsMs: phaseMs, waitingMs: phaseMs }).openapi({
      description:
        'Where `totalMs` went: DNS lookup, TCP connect, TLS handshake, and waiting for the first byte (http), each ' +
        'null when the check had no such phase or did not reach it. Solo plan or above; on the Free plan every ' +
        'value is null.',
    }),
    address: z
      .string()
      .nullable()
      .openapi({
        description:
          'The IP address the check talked to, without port (http and tcp: the one dialled last, which answered, ' +
          'refused or timed out; dns: the resolver asked); null when none was dialled (heartbeats, names that did not ' +
          'resolve, refused targets).',
      }),
    traceId: z
      .string()
      .nullable()
      .openapi({
        description:
          'http: the trace id (32 hex digits) of the W3C `traceparent` header the check sent (`sendTraceparent`), to ' +
          "find the request in the target's own traces; null when none was sent.",
      }),
    dnsAnswers: z
      .array(z.string())
      .optional()
      .openapi({ description: 'dns: the answers, as `dig +short` prints them; absent when none was obtained.' }),
    certificate: certificateSchema
      .optional()
      .openapi({ description: 'https: the leaf certificate seen; absent when no TLS handshake completed.' }),
    steps: z
      .array(stepResultSchema)
      .optional()
      .openapi({
        description:
          "api: one entry per step, in order; the result's reason is `step_failed: <step name>: <reason>` of the first " +
          "failed step (a cleanup step's own failure never replaces it). Absent for other types.",
      }),
  })
  .openapi('CheckResult');
export type CheckResultRecord = z.infer<typeof checkResultRecordSchema>;

/** A result as the page query reads it: a raw row of check_results or an element of a packed day alike. */
interface Row {
  checkedAt: Date;
  slot: Date;
  region: string;
  outcome: CheckResultRecord['status'];
  reason: string | null;
  statusCode: number | null;
  responseMs: number | null;
  dnsMs: number | null;
  connectMs: number | null;
  tlsMs: number | null;
  waitingMs: number | null;
  dnsAnswers: unknown;
  certificate: unknown;
  address: string | null;
  steps: unknown;
  traceId: string | null;
}

function toCheckResultRecord(row: Row, now: Date, withPhases: boolean): CheckResultRecord {
  const certificate = row.certificate as CertificateInfo | null;
  return {
    checkedAt: row.checkedAt.toISOString(),
    slot: row.slot.toISOString(),
    region: row.region,
    status: row.outcome,
    reason: row.reason,
    statusCode: row.statusCode,
    totalMs: row.responseMs,
    phases: {
      dnsMs: withPhases ? row.dnsMs : null,
      connectMs: withPhases ? row.connectMs : null,
      tlsMs: withPhases ? row.tlsMs : null,
      waitingMs: withPhases ? row.waitingMs : null,
    },
    address: row.address,
    traceId: row.traceId,
    ...(Array.isArray(row.dnsAnswers) ? { dnsAnswers: row.dnsAnswers as string[] } : {}),
    ...(Array.isArray(row.steps) ? { steps: unpackStepResults(row.steps) ?? [] } : {}),
    ...(certificate
      ? { certificate: { ...certificate, daysRemaining: certificateDaysRemaining(certificate.validTo, now) } }
      : {}),
  };
}

const and = (cond: boolean, sql: Prisma.Sql) => (cond ? Prisma.sql` AND ${sql}` : Prisma.empty);

/**
 * GET /monitors/{id}/results: the monitor's check results as stored (kept for the retention period), newest slot
 * first (then by region), filtered by region, status and time.
 *
 * One statement, so one snapshot (docs/decisions.md, "The results list reads only the days of its page"): it counts
 * the matching results of each UTC day of the slot, raw (`check_results`, through the per-slot key) and packed
 * (`check_results_packed`, docs/adr/0017-packed-results.md: a day's `count`, the positions of the asked statuses in its
 * `outcome` array, or for `since` only the days checked last at or after it, found through their index), which gives
 * the total and the days the page's results are in; then it reads and sorts only those days' results. No query
 * orders or unpacks the whole retention period, and page 1 and page 1,000 cost about the same.
 */
export async function listCheckResults(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: CheckResultQuery } },
): Promise<{ data: CheckResultRecord[]; pagination: Pagination }> {
  const monitor = await findOwn(prisma, ctx, monitorLookup, input.id);
  const { region, status, since, page, perPage } = input.query;
  const offset = BigInt(page - 1) * BigInt(perPage);
  const statuses = status ? Prisma.sql`${status}::text[]::"CheckOutcome"[]` : null;
  // An element u of packed day p checked at or after `since`.
  const checkedSince = Prisma.sql`p.day + (u.s + u.c) * INTERVAL '1 millisecond' >= ${since ?? null}::timestamptz`;
  // A packed day's matching results: all of them, those of the asked statuses (counted without unpacking the
  // others' columns), or with `since`, those checked at or after it (only days checked last at or after it get here).
  const packedCount = since
    ? Prisma.sql`(SELECT count(*) FROM (SELECT unnest(p."slotOffsetMs"), unnest(p."checkedAfterMs"), unnest(p.outcome)) AS u(s, c, o)
        WHERE ${checkedSince}${and(statuses !== null, Prisma.sql`u.o = ANY(${statuses})`)})`
    : statuses
      ? Prisma.sql`(SELECT sum(cardinality(array_positions(p.outcome, st))) FROM unnest(${statuses}) AS st)`
      : Prisma.sql`p.count`;
  const rawWhere = Prisma.sql`"monitorId" = ${monitor.id}::uuid${and(region !== undefined, Prisma.sql`region = ${region ?? null}`)}${and(
    statuses !== null,
    Prisma.sql`outcome = ANY(${statuses})`,
  )}${and(since !== undefined, Prisma.sql`"checkedAt" >= ${since ?? null}::timestamptz`)}`;
  const rows = await prisma.$queryRaw<Array<Row & { total: bigint }>>`
    WITH packed AS (
      SELECT p.day, p.region, ${packedCount}::bigint AS n
      FROM check_results_packed p
      WHERE p."monitorId" = ${monitor.id}::uuid${and(region !== undefined, Prisma.sql`p.region = ${region ?? null}`)}${and(
        since !== undefined,
        Prisma.sql`check_results_packed_last_checked_at(p.day, p."slotOffsetMs", p."checkedAfterMs") >= ${since ?? null}::timestamptz`,
      )}
    ), raw AS (
      SELECT date_bin('1 day', slot, TIMESTAMPTZ 'epoch') AS day, count(*) AS n
      FROM check_results WHERE ${rawWhere}
      GROUP BY 1
    ), days AS (
      SELECT day, sum(n) AS n FROM (SELECT day, n FROM packed UNION ALL SELECT day, n FROM raw) AS d
      WHERE n > 0 GROUP BY day
    ), placed AS (
      -- Each day with the number of matching results of later days: its results are at those positions on.
      SELECT day, n, (sum(n) OVER (ORDER BY day DESC) - n)::bigint AS later FROM days
    ), span AS (
      -- The days the page's results are in, and how many come before the newest of them.
      SELECT min(day) AS oldest, max(day) AS newest, min(later) AS later FROM placed
      WHERE later < ${offset}::bigint + ${perPage}::int AND later + n > ${offset}::bigint
    )
    SELECT (SELECT coalesce(sum(n), 0) FROM days)::bigint AS total, r.*
    FROM (SELECT) AS one LEFT JOIN LATERAL (
      SELECT * FROM (
        SELECT "checkedAt", slot, region, outcome::text AS outcome, reason, "statusCode", "responseMs", "dnsMs",
          "connectMs", "tlsMs", "waitingMs", "dnsAnswers", certificate, host(address) AS address, steps, "traceId"
        FROM check_results
        WHERE ${rawWhere}
          AND slot >= (SELECT oldest FROM span) AND slot < (SELECT newest FROM span) + INTERVAL '1 day'
        UNION ALL
        SELECT p.day + (u.s + u.c) * INTERVAL '1 millisecond', p.day + u.s * INTERVAL '1 millisecond', p.region,
          u.o::text, u.reason, u.code::int, u.resp, u.dns, u.conn, u.tls, u.wait, u.answers, u.cert, host(u.addr), u.steps,
          u.trace
        FROM packed k
        JOIN check_results_packed p ON p."monitorId" = ${monitor.id}::uuid AND p.region = k.region AND p.day = k.day
        -- unnest in the select list: in lockstep (a null array gives nulls), without unnest(a, b, ...)'s tuplestore.
        CROSS JOIN LATERAL (SELECT unnest(p."slotOffsetMs"), unnest(p."checkedAfterMs"), unnest(p.outcome),
          unnest(p."responseMs"), unnest(p."dnsMs"), unnest(p."connectMs"), unnest(p."tlsMs"), unnest(p."waitingMs"),
          unnest(p."statusCode"), unnest(p.reason), unnest(p.certificate), unnest(p."dnsAnswers"), unnest(p.address),
          unnest(p.steps), unnest(p."traceId")) AS u(s, c, o, resp, dns, conn, tls, wait, code, reason, cert, answers, addr,
          steps, trace)
        WHERE k.n > 0 AND k.day >= (SELECT oldest FROM span) AND k.day <= (SELECT newest FROM span)${and(
          statuses !== null,
          Prisma.sql`u.o = ANY(${statuses})`,
        )}${and(since !== undefined, checkedSince)}
      ) AS results
      -- Results have no id (partitioned by slot, ADR 0016): the per-slot key orders them.
      ORDER BY slot DESC, region ASC
      OFFSET ${offset}::bigint - (SELECT later FROM span) LIMIT ${perPage}::int
    ) AS r ON true`;
  const total = Number(rows[0]?.total ?? 0);
  const withPhases = ctx.workspace.plan !== 'free';
  const data = rows.filter((r) => r.slot !== null).map((r) => toCheckResultRecord(r, ctx.now, withPhases));
  return { data, pagination: pagination(input.query, total) };
}
