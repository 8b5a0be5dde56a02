import {
  bucketStarts,
  histogramPercentile,
  Prisma,
  MAX_RESULT_LAG_MS,
  PERIODS,
  type responseTimesQuerySchema,
  ValidationError,
  type Config,
  type Period,
  type PrismaClient,
} from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import { monitorLookup } from './monitor-record.js';
import { findOwn } from '../records.js';

type ResponseTimesQuery = z.output<typeof responseTimesQuerySchema>;

const RESPONSE_TIME_PERIODS = Object.keys(PERIODS) as [Period, ...Period[]];

const phaseMs = z.number().int().nullable();
const responseTimeBucketSchema = z
  .object({
    bucketStart: dateTime,
    avgMs: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Average over the checks that got a response; null for an empty bucket.' }),
    p50Ms: z
      .number()
      .int()
      .nullable()
      .openapi({
        description:
          'Median (nearest rank) of the checks that got a response, from latency histograms: within 9.4% of the exact ' +
          'value from 20 ms up, within 2 ms below (docs/adr/0019-latency-histograms.md). Null for an empty bucket, and ' +
          'for hours and days stored before the histograms existed.',
      }),
    p95Ms: z
      .number()
      .int()
      .nullable()
      .openapi({ description: '95th percentile (nearest rank), as `p50Ms`: the same histograms and error bound.' }),
    downCount: z.number().int().min(0),
    total: z.number().int().min(0).openapi({ description: 'All checks in the bucket; 0 for an empty bucket.' }),
    phases: z
      .object({ dnsMs: phaseMs, connectMs: phaseMs, tlsMs: phaseMs, waitingMs: phaseMs })
      .openapi({ description: 'Average phase timings. Solo plan or above; on the Free plan every value is null.' }),
  })
  .openapi('ResponseTimeBucket');

export const responseTimeHistorySchema = z
  .object({
    monitorId: z.uuid(),
    period: z.enum(RESPONSE_TIME_PERIODS),
    region: z.string().openapi({ description: 'The region filtered to, or `all`.' }),
    buckets: z.array(responseTimeBucketSchema).openapi({
      description:
        'Fixed-width buckets, oldest first; every bucket of the window is present. The window ends at the current bucket.',
    }),
  })
  .openapi('ResponseTimeHistory');
export type ResponseTimeHistory = z.infer<typeof responseTimeHistorySchema>;

interface BucketRow {
  bucket: Date;
  total: number;
  down: number;
  avg_ms: number | null;
  dns: number | null;
  connect: number | null;
  tls: number | null;
  waiting: number | null;
  /** The bucket's latency histogram: the subscript of its first counter, and its counters from there (SQL nulls). */
  hist_first: number | null;
  hist: Array<number | null> | null;
}

/** What both queries answer per bucket: the histogram read from its first subscript (`[:]` renumbers from 1). */
const BUCKET_COLUMNS = Prisma.sql`b.bucket, b.total, b.down, b.avg_ms, b.dns, b.connect, b.tls, b.waiting,
  array_lower(b.h, 1) AS hist_first, b.h[:] AS hist`;
const utcDate = (d: Date) => d.toISOString().slice(0, 10);

const ALL_REGIONS = 'all';

const round = (v: number | null) => (v === null ? null : Math.round(Number(v)));

/**
 * GET /monitors/{id}/response-times: fixed-width buckets, every one present (empty ones with total 0 and
 * avgMs null), aggregated in SQL. The phase breakdown needs the Solo plan. `region` is one of CHECK_REGIONS, or `all`.
 */
export async function getResponseTimes(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: ResponseTimesQuery } },
): Promise<ResponseTimeHistory> {
  const { now } = ctx;
  const monitor = await findOwn(prisma, ctx, monitorLookup, input.id);
  const q = input.query;
  // A region no worker checks from has no results: refused rather than answered with empty buckets (a typo would
  // otherwise read as "no data").
  if (q.region !== undefined && q.region !== ALL_REGIONS && !config.checkRegions.includes(q.region)) {
    throw new ValidationError('Invalid query: region', [
      { path: 'region', message: `must be one of the regions checked from (${config.checkRegions.join(', ')}) or all` },
    ]);
  }
  const { bucketSeconds } = PERIODS[q.period];
  const starts = bucketStarts(q.period, now);
  const from = starts[0]!;
  const to = new Date(starts.at(-1)!.getTime() + bucketSeconds * 1000);

  // `all` is what the record says when there is no filter, so `region=all` means every region too (no region may be
  // named `all`: config refuses it).
  const region = q.region === undefined || q.region === ALL_REGIONS ? null : q.region;
  // The `hour` view reads results whose slot is at most MAX_RESULT_LAG_MS before the window (check_results is
  // partitioned by slot: only the days that can hold the window's results are read; a result stored later than that
  // does not show here, rollups count it as always). The bound on the slot's day lets it skip packed days
  // (docs/adr/0017-packed-results.md) without unpacking them.
  const slotFrom = new Date(from.getTime() - MAX_RESULT_LAG_MS);
  const slotDayFrom = new Date(Math.floor(slotFrom.getTime() / 86_400_000) * 86_400_000);
  // `hour` reads the raw results (60 one-minute buckets); `day` and `week` the hourly rollups (at most 168 rows per
  // region); `month` and `quarter` the daily ones (at most 90 rows per region), so the query stays fast however often
  // the monitor is checked. Missed slots (no data) are in none of them: a bucket of only missed slots is empty. The
  // histograms are added in SQL (latency_hist, latency_hist_sum), the percentiles read from them here.
  const { source } = PERIODS[q.period];
  const width = Prisma.sql`make_interval(secs => ${bucketSeconds}::int)`;
  const regionIs = Prisma.sql`(${region}::text IS NULL OR region = ${region}::text)`;
  const rows =
    source === 'results'
      ? await prisma.$queryRaw<BucketRow[]>`
    SELECT ${BUCKET_COLUMNS} FROM (
      SELECT date_bin(${width}, "checkedAt", 'epoch'::timestamptz) AS bucket,
             count(*)::int AS total,
             (count(*) FILTER (WHERE outcome = 'down'))::int AS down,
             avg("responseMs")::float8 AS avg_ms,
             avg("dnsMs")::float8 AS dns,
             avg("connectMs")::float8 AS connect,
             avg("tlsMs")::float8 AS tls,
             avg("waitingMs")::float8 AS waiting,
             latency_hist("responseMs") AS h
        FROM check_results_all
       WHERE "monitorId" = ${monitor.id}::uuid AND outcome <> 'missed'
         AND "checkedAt" >= ${from} AND "checkedAt" < ${to}
         AND slot >= ${slotFrom} AND slot < ${to}
         AND "slotDay" >= ${slotDayFrom} AND "slotDay" < ${to}
         AND ${regionIs}
       GROUP BY 1) b`
      : await prisma.$queryRaw<BucketRow[]>`
    SELECT ${BUCKET_COLUMNS} FROM (
      SELECT date_bin(${width}, r.at, 'epoch'::timestamptz) AS bucket,
             sum(total)::int AS total,
             sum("downCount")::int AS down,
             (sum("responseSum") / nullif(sum("responseCount"), 0))::float8 AS avg_ms,
             (sum("dnsSum") / nullif(sum("dnsCount"), 0))::float8 AS dns,
             (sum("connectSum") / nullif(sum("connectCount"), 0))::float8 AS connect,
             (sum("tlsSum") / nullif(sum("tlsCount"), 0))::float8 AS tls,
             (sum("waitingSum") / nullif(sum("waitingCount"), 0))::float8 AS waiting,
             latency_hist_sum("latencyHist") AS h
        FROM ${
          source === 'hourly'
            ? Prisma.sql`(SELECT *, hour AS at FROM check_rollups_hourly
                WHERE "monitorId" = ${monitor.id}::uuid AND hour >= ${from} AND hour < ${to} AND ${regionIs})`
            : Prisma.sql`(SELECT *, day::timestamp AT TIME ZONE 'UTC' AS at FROM check_rollups_daily
                WHERE "monitorId" = ${monitor.id}::uuid AND day >= ${utcDate(from)}::date AND day < ${utcDate(to)}::date AND ${regionIs})`
        } r
       GROUP BY 1) b`;

  const byStart = new Map(rows.map((r) => [new Date(r.bucket).getTime(), r]));
  const withPhases = ctx.workspace.plan !== 'free';
  return {
    monitorId: monitor.id,
    period: q.period,
    region: region ?? ALL_REGIONS,
    buckets: starts.map((start) => {
      const r = byStart.get(start.getTime());
      const histogram = r?.hist && r.hist_first !== null ? { first: r.hist_first, counts: r.hist } : null;
      return {
        bucketStart: start.toISOString(),
        avgMs: round(r?.avg_ms ?? null),
        p50Ms: histogramPercentile(histogram, 50),
        p95Ms: histogramPercentile(histogram, 95),
        downCount: r?.down ?? 0,
        total: r?.total ?? 0,
        phases: {
          dnsMs: withPhases ? round(r?.dns ?? null) : null,
          connectMs: withPhases ? round(r?.connect ?? null) : null,
          tlsMs: withPhases ? round(r?.tls ?? null) : null,
          waitingMs: withPhases ? round(r?.waiting ?? null) : null,
        },
      };
    }),
  };
}
