import {
  certificateDaysRemaining,
  commaListQueryParam,
  dateTimeInputSchema,
  pagination,
  paginationQuerySchema,
  singleQueryValue,
  type CertificateInfo,
  type Pagination,
  Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { dateTime, z } from '../../openapi/zod.js';
import type { ServiceContext } from '../context.js';
import { findOwnMonitor } from './get-monitor.js';
import { certificateSchema } from './monitor-record.js';

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

export const checkResultRecordSchema = z
  .object({
    checkedAt: dateTime,
    slot: dateTime.openapi({
      description: 'The scheduled time the check ran for (one result per monitor, region and slot).',
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
    address: z
      .string()
      .nullable()
      .openapi({
        description:
          'The IP address the check talked to, without port (http and tcp: the one dialled last, which answered, ' +
          'refused or timed out; dns: the resolver asked); null when none was dialled (heartbeats, names that did not ' +
          'resolve, refused targets).',
      }),
    dnsAnswers: z
      .array(z.string())
      .optional()
      .openapi({ description: 'dns: the answers, as `dig +short` prints them; absent when none was obtained.' }),
    certificate: certificateSchema
      .optional()
      .openapi({ description: 'https: the leaf certificate seen; absent when no TLS handshake completed.' }),
  })
  .openapi('CheckResult');
export type CheckResultRecord = z.infer<typeof checkResultRecordSchema>;

/** A result as read from check_results_all (raw and packed results alike, docs/adr/0017-packed-results.md). */
interface Row {
  checkedAt: Date;
  slot: Date;
  region: string;
  outcome: CheckResultRecord['status'];
  reason: string | null;
  statusCode: number | null;
  responseMs: number | null;
  dnsAnswers: unknown;
  certificate: unknown;
  address: string | null;
}

function toCheckResultRecord(row: Row, now: Date): CheckResultRecord {
  const certificate = row.certificate as CertificateInfo | null;
  return {
    checkedAt: row.checkedAt.toISOString(),
    slot: row.slot.toISOString(),
    region: row.region,
    status: row.outcome,
    reason: row.reason,
    statusCode: row.statusCode,
    totalMs: row.responseMs,
    address: row.address,
    ...(Array.isArray(row.dnsAnswers) ? { dnsAnswers: row.dnsAnswers as string[] } : {}),
    ...(certificate
      ? { certificate: { ...certificate, daysRemaining: certificateDaysRemaining(certificate.validTo, now) } }
      : {}),
  };
}

/**
 * GET /monitors/{id}/results: the monitor's check results as stored (kept for the retention period), newest first,
 * filtered by region, status and time.
 */
export async function listCheckResults(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: CheckResultQuery } },
): Promise<{ data: CheckResultRecord[]; pagination: Pagination }> {
  const monitor = await findOwnMonitor(prisma, ctx, input.id);
  const { region, status, since, page, perPage } = input.query;
  // check_results_all: raw results and packed (closed) days alike, the same rows either way.
  const where = Prisma.sql`"monitorId" = ${monitor.id}::uuid
    AND (${region ?? null}::text IS NULL OR region = ${region ?? null}::text)
    AND (${status ?? null}::text[] IS NULL OR outcome::text = ANY(${status ?? null}::text[]))
    AND (${since ?? null}::timestamptz IS NULL OR "checkedAt" >= ${since ?? null}::timestamptz)`;
  const [[count], rows] = await prisma.$transaction([
    prisma.$queryRaw<Array<{ total: number }>>`SELECT count(*)::int AS total FROM check_results_all WHERE ${where}`,
    prisma.$queryRaw<Row[]>`
      SELECT "checkedAt", slot, region, outcome::text AS outcome, reason, "statusCode", "responseMs", "dnsAnswers",
        certificate, host(address) AS address
      FROM check_results_all WHERE ${where}
      -- Results have no id (partitioned by slot, ADR 0016): the per-slot key orders them stably.
      ORDER BY "checkedAt" DESC, slot DESC, region ASC
      OFFSET ${(page - 1) * perPage}::int LIMIT ${perPage}::int`,
  ]);
  const total = count?.total ?? 0;
  return { data: rows.map((r) => toCheckResultRecord(r, ctx.now)), pagination: pagination(input.query, total) };
}
