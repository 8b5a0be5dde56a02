-- check_results, partitioned by "slot" in UTC days (docs/adr/0016-check-results-partitions.md).
--
-- The existing table is kept as the partition "check_results_legacy" for every slot before the next UTC midnight
-- after this migration runs: its rows stay where they are (no copy, one validating scan), its unique index becomes
-- the partition's share of the parent's, and housekeeping prunes it by batched DELETE until it is all past retention,
-- then drops it. A database without results (a new one) gets no legacy partition. Daily partitions follow;
-- housekeeping creates them ahead. Rows of a day that has no partition yet land in "check_results_default" and move
-- to their day's partition when housekeeping creates it.
--
-- The parent has one index, the per-slot unique key (monitorId, region, slot), which includes the partition key as
-- PostgreSQL requires. Gone: the bigint id (nothing referenced it) and the indexes on checkedAt (retention drops whole
-- partitions) and (monitorId, checkedAt) (the one query of raw results per monitor also bounds the slot).

-- The old table becomes the legacy partition.
ALTER TABLE "check_results" RENAME TO "check_results_legacy";
ALTER TABLE "check_results_legacy" DROP CONSTRAINT "check_results_pkey";
ALTER TABLE "check_results_legacy" DROP COLUMN "id";
DROP INDEX "check_results_monitorId_checkedAt_idx";
ALTER INDEX "check_results_checkedAt_idx" RENAME TO "check_results_legacy_checkedAt_idx";
ALTER INDEX "check_results_monitorId_region_slot_key" RENAME TO "check_results_legacy_monitorId_region_slot_key";
ALTER TABLE "check_results_legacy" RENAME CONSTRAINT "check_results_monitorId_fkey" TO "check_results_legacy_monitorId_fkey";

-- The partitioned table: fixed-width columns first, widest first, so that rows carry no alignment padding.
CREATE TABLE "check_results" (
    "slot" TIMESTAMPTZ(3) NOT NULL,
    "checkedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "monitorId" UUID NOT NULL,
    "outcome" "CheckOutcome" NOT NULL,
    "responseMs" INTEGER,
    "dnsMs" INTEGER,
    "connectMs" INTEGER,
    "tlsMs" INTEGER,
    "waitingMs" INTEGER,
    "statusCode" INTEGER,
    "region" VARCHAR(40) NOT NULL,
    "reason" VARCHAR(500),
    "certificate" JSONB,
    "dnsAnswers" JSONB
) PARTITION BY RANGE ("slot");

CREATE UNIQUE INDEX "check_results_monitorId_region_slot_key" ON "check_results"("monitorId", "region", "slot");

ALTER TABLE "check_results" ADD CONSTRAINT "check_results_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Attach the legacy table (its unique index and foreign key are taken as the partition's own), or drop it when it
-- holds no row (a new database: today's results then go to a daily partition too); then the next three days.
DO $$
DECLARE
    today timestamptz := date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    first timestamptz := today;
    day timestamptz;
BEGIN
    IF EXISTS (SELECT 1 FROM "check_results_legacy") THEN
        first := today + interval '1 day';
        EXECUTE format('ALTER TABLE "check_results" ATTACH PARTITION "check_results_legacy" FOR VALUES FROM (MINVALUE) TO (%L)', first);
    ELSE
        DROP TABLE "check_results_legacy";
    END IF;
    FOR i IN 0..2 LOOP
        day := first + make_interval(days => i);
        EXECUTE format('CREATE TABLE %I PARTITION OF "check_results" FOR VALUES FROM (%L) TO (%L)',
            'check_results_p' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD'), day, day + interval '1 day');
    END LOOP;
END $$;

CREATE TABLE "check_results_default" PARTITION OF "check_results" DEFAULT;

-- The partitions that are not days are pruned row by row, oldest first: each keeps an index on "checkedAt" (the
-- legacy one has it already). The daily partitions need none: they are dropped whole.
CREATE INDEX "check_results_default_checkedAt_idx" ON "check_results_default"("checkedAt");
