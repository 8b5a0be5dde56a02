-- Scheduling per partition (docs/adr/0020-partitioned-scheduling.md): a partition is (region, interval, offset), and
-- its job reads its members here at run time. Additive: workers and API replicas of the previous release ignore it.
ALTER TABLE "monitors" ADD COLUMN     "checkOffsetMs" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "scheduledSince" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- sha1, for the same hash as spreadOffsetMs (packages/shared/src/scheduling/check-scheduler.ts): a monitor's slots
-- stay the instants its own scheduler ran them, so that during a rolling deploy a slot run by both is stored once.
-- pgcrypto is a trusted extension: the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pgcrypto;

-- spreadOffsetMs in SQL: the first 4 bytes of sha1(id) as an unsigned integer, on the 250 ms grid (OFFSET_STEP_MS)
-- from one step to the last step before the interval; 1 .. every-1 for an interval of a step or less. A spec test
-- holds the two equal.
CREATE FUNCTION monitor_check_offset_ms(monitor_id uuid, every_ms integer) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT (CASE WHEN (every_ms - 1) / 250 >= 1 THEN 250 * (1 + h % ((every_ms - 1) / 250)) ELSE 1 + h % (every_ms - 1) END)::integer
    FROM (SELECT ('x' || encode(substring(digest(monitor_id::text, 'sha1') FROM 1 FOR 4), 'hex'))::bit(32)::bigint AS h) AS x
$$;

-- Backfill: each monitor joined its partition when it was created.
UPDATE "monitors" SET "checkOffsetMs" = monitor_check_offset_ms("id", "intervalSeconds" * 1000), "scheduledSince" = "createdAt";

-- A trigger, so that every write path (the API, config/apply, the admin CLI, a raw insert, the bench's createMany)
-- keeps the offset in step with the interval, and marks when a monitor (re)joins its partitions: created, resumed, a
-- new interval. A partition job runs and records missed slots for a member from then on only. (New regions move no
-- slot: the monitor's slots are the same instants in every region.)
CREATE FUNCTION monitors_partition_columns() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW."checkOffsetMs" := monitor_check_offset_ms(NEW."id", NEW."intervalSeconds" * 1000);
  IF TG_OP = 'INSERT' THEN
    NEW."scheduledSince" := now();
  ELSIF NEW."enabled" AND (NOT OLD."enabled" OR NEW."intervalSeconds" <> OLD."intervalSeconds") THEN
    NEW."scheduledSince" := now();
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "monitors_partition_columns" BEFORE INSERT OR UPDATE OF "intervalSeconds", "enabled"
  ON "monitors" FOR EACH ROW EXECUTE FUNCTION monitors_partition_columns();

-- A partition job's one read: the enabled monitors of an interval and offset.
CREATE INDEX "monitors_partition_idx" ON "monitors" ("intervalSeconds", "checkOffsetMs") WHERE "enabled";
