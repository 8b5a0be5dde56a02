-- Packed results (docs/adr/0017-packed-results.md): housekeeping packs each closed day of check_results into one row
-- per monitor, region and UTC hour of the slot, the values in parallel arrays (element i of every array is result i;
-- an array that would hold only nulls is null), then drops the day's partition. Readers read the view
-- "check_results_all": every result, raw or packed, as a row of check_results.

-- Fixed-width columns first, widest first. A row is compressed (TOAST) once it passes 128 bytes rather than the
-- default 2 kB, so that hours of slowly checked monitors are compressed too.
CREATE TABLE "check_results_packed" (
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "monitorId" UUID NOT NULL,
    "count" INTEGER NOT NULL,
    "lastCheckedAt" TIMESTAMPTZ(3) NOT NULL,
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

    CONSTRAINT "check_results_packed_pkey" PRIMARY KEY ("monitorId","region","hour")
) WITH (toast_tuple_target = 128);

-- Retention deletes packed hours across all monitors.
CREATE INDEX "check_results_packed_hour_idx" ON "check_results_packed"("hour");

ALTER TABLE "check_results_packed" ADD CONSTRAINT "check_results_packed_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Every result, raw or packed, with the columns of check_results (and "slotHour", the UTC hour of the slot: a bound on
-- it lets a query skip packed hours without unpacking them).
CREATE VIEW "check_results_all" AS
SELECT "slot", "checkedAt", "monitorId", "outcome", "responseMs", "dnsMs", "connectMs", "tlsMs", "waitingMs",
       "statusCode", "region", "reason", "certificate", "dnsAnswers", "address",
       date_bin('1 hour', "slot", TIMESTAMPTZ 'epoch') AS "slotHour"
  FROM "check_results"
UNION ALL
SELECT p."hour" + u.s * INTERVAL '1 millisecond', p."hour" + (u.s + u.c) * INTERVAL '1 millisecond', p."monitorId",
       u.o, u.resp, u.dns, u.conn, u.tls, u.wait, u.code::int, p."region", u.reason::varchar(500), u.cert, u.answers,
       u.addr, p."hour"
  FROM "check_results_packed" p
  CROSS JOIN LATERAL unnest(p."slotOffsetMs", p."checkedAfterMs", p."outcome", p."responseMs", p."dnsMs",
       p."connectMs", p."tlsMs", p."waitingMs", p."statusCode", p."reason", p."certificate", p."dnsAnswers",
       p."address") AS u(s, c, o, resp, dns, conn, tls, wait, code, reason, cert, answers, addr);

-- A result stored for a slot of a packed day lands in the default partition (its day's partition is gone): stored as
-- usual when the slot is new (the next packing adds it to its hour's row), skipped like any duplicate when the packed
-- row has that slot already (so no rollup counts it twice). The day partitions need no such check: a day is packed
-- and its partition dropped in one transaction.
CREATE FUNCTION "check_results_skip_packed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM "check_results_packed" p
         WHERE p."monitorId" = NEW."monitorId" AND p."region" = NEW."region"
           AND p."hour" = date_bin('1 hour', NEW."slot", TIMESTAMPTZ 'epoch')
           AND (extract(epoch FROM NEW."slot" - p."hour") * 1000)::int = ANY (p."slotOffsetMs")) THEN
        RETURN NULL;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER "check_results_default_skip_packed" BEFORE INSERT ON "check_results_default"
    FOR EACH ROW EXECUTE FUNCTION "check_results_skip_packed"();
