-- Latency histograms in the rollups (docs/adr/0019-latency-histograms.md): p50 and p95 of any hours, days and
-- regions from adding counters, kept by the statement that already keeps the rollups (no query of its own per
-- check). And the daily rollups get the hourly ones' sums, so the 30- and 90-day histories read one row per day.

-- AlterTable
ALTER TABLE "check_rollups_daily" ADD COLUMN     "connectCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "connectSum" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "dnsCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "dnsSum" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "latencyHist" INTEGER[],
ADD COLUMN     "responseCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "responseSum" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "tlsCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "tlsSum" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "waitingCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "waitingSum" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "check_rollups_hourly" ADD COLUMN     "latencyHist" INTEGER[];

-- The bucket of a response time in whole ms: the number of bounds at or below it (0 for 0 ms). The bounds are
-- ceil(2^(j/4)), j = 0..64, without repeats: LATENCY_BUCKET_BOUNDS in packages/shared/src/db/latency-histogram.ts,
-- which must stay equal (test/latency-histograms.test.ts compares them). A SQL function PostgreSQL inlines.
CREATE FUNCTION latency_bucket(ms integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT width_bucket(ms, '{1,2,3,4,5,6,7,8,10,12,14,16,20,23,27,32,39,46,54,64,77,91,108,128,153,182,216,256,305,363,431,512,609,725,862,1024,1218,1449,1723,2048,2436,2897,3445,4096,4871,5793,6889,8192,9742,11586,13778,16384,19484,23171,27555,32768,38968,46341,55109,65536}'::integer[])
$$;

-- A histogram is an integer[] whose subscripts are the buckets, spanning only the buckets used (an array may start at
-- any subscript; the gaps are NULL, one bit each): adding a response time is one counter, created where needed.
CREATE FUNCTION latency_hist_add(h integer[], ms integer) RETURNS integer[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  k integer;
BEGIN
  IF ms IS NULL THEN
    RETURN h;
  END IF;
  k := latency_bucket(ms);
  h[k] := coalesce(h[k], 0) + 1;
  RETURN h;
END
$$;

-- Two histograms added (a rollup row meeting the group's new counts, hours into days, regions into all).
CREATE FUNCTION latency_hist_merge(a integer[], b integer[]) RETURNS integer[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF b IS NULL THEN
    RETURN a;
  END IF;
  IF a IS NULL THEN
    RETURN b;
  END IF;
  FOR i IN array_lower(b, 1) .. array_upper(b, 1) LOOP
    IF b[i] IS NOT NULL THEN
      a[i] := coalesce(a[i], 0) + b[i];
    END IF;
  END LOOP;
  RETURN a;
END
$$;

-- The histogram of response times (nulls skipped; null when there are none), and the sum of histograms.
CREATE AGGREGATE latency_hist(integer) (SFUNC = latency_hist_add, STYPE = integer[]);
CREATE AGGREGATE latency_hist_sum(integer[]) (SFUNC = latency_hist_merge, STYPE = integer[]);

-- The daily sums, from the hourly rollups still kept (35 days by default): older days keep only their counts, as
-- before. Histograms start empty: results stored from now on fill them; `rebuildRollups` (repairs) fills a monitor's
-- from the results kept.
UPDATE "check_rollups_daily" d
SET "responseSum" = s."responseSum", "responseCount" = s."responseCount", "dnsSum" = s."dnsSum",
  "dnsCount" = s."dnsCount", "connectSum" = s."connectSum", "connectCount" = s."connectCount", "tlsSum" = s."tlsSum",
  "tlsCount" = s."tlsCount", "waitingSum" = s."waitingSum", "waitingCount" = s."waitingCount"
FROM (
  SELECT "monitorId", region, (hour AT TIME ZONE 'UTC')::date AS day, sum("responseSum") AS "responseSum",
    sum("responseCount")::int AS "responseCount", sum("dnsSum") AS "dnsSum", sum("dnsCount")::int AS "dnsCount",
    sum("connectSum") AS "connectSum", sum("connectCount")::int AS "connectCount", sum("tlsSum") AS "tlsSum",
    sum("tlsCount")::int AS "tlsCount", sum("waitingSum") AS "waitingSum", sum("waitingCount")::int AS "waitingCount"
  FROM "check_rollups_hourly"
  GROUP BY 1, 2, 3
) s
WHERE d."monitorId" = s."monitorId" AND d.region = s.region AND d.day = s.day;
