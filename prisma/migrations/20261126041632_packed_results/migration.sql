-- Packed results (docs/adr/0017-packed-results.md): housekeeping packs each closed day of check_results into one row
-- per monitor, region and UTC day of the slot, the values in parallel arrays (element i of every array is result i;
-- an array that would hold only nulls is null), then drops the day's partition. Readers read the view
-- "check_results_all": every result, raw or packed, as a row of check_results.

-- Fixed-width columns first, widest first. The arrays are compressed once a row passes 128 bytes (not the default
-- 2 kB: days of slowly checked monitors are compressed too) and kept in the row (STORAGE MAIN) unless it outgrows a
-- page: out-of-line TOAST costs a pointer and a chunk row per array.
CREATE TABLE "check_results_packed" (
    "day" TIMESTAMPTZ(3) NOT NULL,
    "monitorId" UUID NOT NULL,
    "count" INTEGER NOT NULL,
    "region" VARCHAR(40) NOT NULL,
    "slotOffsetMs" INTEGER[],
    "checkedAfterMs" BIGINT[],
    "outcome" "CheckOutcome"[],
    "responseMs" INTEGER[],
    "dnsMs" INTEGER[],
    "connectMs" INTEGER[],
    "tlsMs" INTEGER[],
    "waitingMs" INTEGER[],
    "statusCode" SMALLINT[],
    "reason" TEXT[],
    "certificate" JSONB[],
    "dnsAnswers" JSONB[],
    "address" INET[],

    CONSTRAINT "check_results_packed_pkey" PRIMARY KEY ("monitorId","region","day")
) WITH (toast_tuple_target = 128);

ALTER TABLE "check_results_packed"
    ALTER COLUMN "slotOffsetMs" SET STORAGE MAIN, ALTER COLUMN "checkedAfterMs" SET STORAGE MAIN,
    ALTER COLUMN "outcome" SET STORAGE MAIN, ALTER COLUMN "responseMs" SET STORAGE MAIN,
    ALTER COLUMN "dnsMs" SET STORAGE MAIN, ALTER COLUMN "connectMs" SET STORAGE MAIN,
    ALTER COLUMN "tlsMs" SET STORAGE MAIN, ALTER COLUMN "waitingMs" SET STORAGE MAIN,
    ALTER COLUMN "statusCode" SET STORAGE MAIN, ALTER COLUMN "reason" SET STORAGE MAIN,
    ALTER COLUMN "certificate" SET STORAGE MAIN, ALTER COLUMN "dnsAnswers" SET STORAGE MAIN,
    ALTER COLUMN "address" SET STORAGE MAIN;

-- Retention deletes packed days across all monitors.
CREATE INDEX "check_results_packed_day_idx" ON "check_results_packed"("day");

ALTER TABLE "check_results_packed" ADD CONSTRAINT "check_results_packed_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every result, raw or packed, with the columns of check_results (and "slotDay", the UTC day of the slot: a bound on
-- it lets a query skip packed days without unpacking them).
CREATE VIEW "check_results_all" AS
SELECT "slot", "checkedAt", "monitorId", "outcome", "responseMs", "dnsMs", "connectMs", "tlsMs", "waitingMs",
       "statusCode", "region", "reason", "certificate", "dnsAnswers", "address",
       date_bin('1 day', "slot", TIMESTAMPTZ 'epoch') AS "slotDay"
  FROM "check_results"
UNION ALL
SELECT p."day" + u.s * INTERVAL '1 millisecond', p."day" + (u.s + u.c) * INTERVAL '1 millisecond', p."monitorId",
       u.o, u.resp, u.dns, u.conn, u.tls, u.wait, u.code::int, p."region", u.reason::varchar(500), u.cert, u.answers,
       u.addr, p."day"
  FROM "check_results_packed" p
  CROSS JOIN LATERAL unnest(p."slotOffsetMs", p."checkedAfterMs", p."outcome", p."responseMs", p."dnsMs",
       p."connectMs", p."tlsMs", p."waitingMs", p."statusCode", p."reason", p."certificate", p."dnsAnswers",
       p."address") AS u(s, c, o, resp, dns, conn, tls, wait, code, reason, cert, answers, addr);

-- A result stored for a slot of a packed day lands in the default partition (its day's partition is gone): stored as
-- usual when the slot is new (the next packing adds it to its day's row), skipped like any duplicate when the packed
-- row has that slot already (so no rollup counts it twice). The day partitions need no such check: a day is packed
-- and its partition dropped in one transaction.
CREATE FUNCTION "check_results_skip_packed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM "check_results_packed" p
         WHERE p."monitorId" = NEW."monitorId" AND p."region" = NEW."region"
           AND p."day" = date_bin('1 day', NEW."slot", TIMESTAMPTZ 'epoch')
           AND (extract(epoch FROM NEW."slot" - p."day") * 1000)::int = ANY (p."slotOffsetMs")) THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER "check_results_default_skip_packed" BEFORE INSERT ON "check_results_default"
    FOR EACH ROW EXECUTE FUNCTION "check_results_skip_packed"();
