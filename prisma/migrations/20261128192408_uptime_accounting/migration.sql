-- CreateEnum
CREATE TYPE "MonitorSpanKind" AS ENUM ('paused', 'degraded', 'missed');

-- AlterTable
ALTER TABLE "incidents" ADD COLUMN     "downStartedAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "slaTarget" DOUBLE PRECISION;

-- CreateTable
CREATE TABLE "monitor_spans" (
    "id" BIGSERIAL NOT NULL,
    "monitorId" UUID NOT NULL,
    "kind" "MonitorSpanKind" NOT NULL,
    "region" VARCHAR(40) NOT NULL DEFAULT '',
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),

    CONSTRAINT "monitor_spans_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "accounting_policies" (
    "workspaceId" UUID NOT NULL,
    "maintenance" VARCHAR(10) NOT NULL DEFAULT 'excluded',
    "degraded" VARCHAR(10) NOT NULL DEFAULT 'up',
    "noData" VARCHAR(10) NOT NULL DEFAULT 'excluded',
    "timezone" VARCHAR(64) NOT NULL DEFAULT 'UTC',
    "reportRecipients" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounting_policies_pkey" PRIMARY KEY ("workspaceId")
);

-- CreateTable
CREATE TABLE "uptime_report_mails" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "month" CHAR(7) NOT NULL,
    "scheduled" BOOLEAN NOT NULL,
    "recipients" TEXT[],
    "status" "SubscriberDeliveryStatus" NOT NULL DEFAULT 'pending',
    "reason" VARCHAR(500),
    "claimedAt" TIMESTAMPTZ(3),
    "sentAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "uptime_report_mails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "monitor_spans_monitorId_startedAt_idx" ON "monitor_spans"("monitorId", "startedAt");

-- CreateIndex
CREATE INDEX "monitor_spans_endedAt_idx" ON "monitor_spans"("endedAt");

-- CreateIndex
CREATE INDEX "uptime_report_mails_status_createdAt_idx" ON "uptime_report_mails"("status", "createdAt");

-- CreateIndex
CREATE INDEX "uptime_report_mails_workspaceId_createdAt_idx" ON "uptime_report_mails"("workspaceId", "createdAt");

-- AddForeignKey
ALTER TABLE "monitor_spans" ADD CONSTRAINT "monitor_spans_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "accounting_policies" ADD CONSTRAINT "accounting_policies_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "uptime_report_mails" ADD CONSTRAINT "uptime_report_mails_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- At most one open paused and one open degraded span per monitor (the triggers below close the open one before a new
-- one can start). Missed spans are always closed.
CREATE UNIQUE INDEX "monitor_spans_open_key" ON "monitor_spans" ("monitorId", "kind") WHERE "endedAt" IS NULL;

-- At most one scheduled report mail per workspace and month, whatever number of workers race to send it.
CREATE UNIQUE INDEX "uptime_report_mails_scheduled_key" ON "uptime_report_mails" ("workspaceId", "month")
  WHERE "scheduled";

-- Uptime accounting's spans, written at transitions only (docs/adr/0018-uptime-accounting-spans.md), by one
-- statement-level trigger (as monitors_record_status_changed): no statement of the worker's hot path is added, and a
-- statement that changes no status class and no `enabled` costs one join of its transition tables.
-- Degraded: the status entered or left {degraded, down} (results not all passing), at the check time the worker
-- wrote with it (lastCheckedAt: only the worker's result writes change a status).
-- Paused: `enabled` went false or true, at the statement's transaction time.
CREATE FUNCTION monitors_record_spans() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM new_rows n JOIN old_rows o ON o."id" = n."id"
    WHERE (o."status" IN ('degraded', 'down')) <> (n."status" IN ('degraded', 'down')) OR o."enabled" <> n."enabled"
  ) THEN
    RETURN NULL;
  END IF;
  UPDATE "monitor_spans" s
     SET "endedAt" = greatest(s."startedAt", coalesce(n."lastCheckedAt", now()))
    FROM new_rows n JOIN old_rows o ON o."id" = n."id"
   WHERE s."monitorId" = n."id" AND s."kind" = 'degraded' AND s."endedAt" IS NULL
     AND o."status" IN ('degraded', 'down') AND n."status" NOT IN ('degraded', 'down');
  INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt")
  SELECT n."id", 'degraded', coalesce(n."lastCheckedAt", now())
    FROM new_rows n JOIN old_rows o ON o."id" = n."id"
   WHERE n."status" IN ('degraded', 'down') AND o."status" NOT IN ('degraded', 'down')
  ON CONFLICT ("monitorId", "kind") WHERE "endedAt" IS NULL DO NOTHING;
  UPDATE "monitor_spans" s SET "endedAt" = greatest(s."startedAt", now())
    FROM new_rows n JOIN old_rows o ON o."id" = n."id"
   WHERE s."monitorId" = n."id" AND s."kind" = 'paused' AND s."endedAt" IS NULL AND NOT o."enabled" AND n."enabled";
  INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt")
  SELECT n."id", 'paused', now()
    FROM new_rows n JOIN old_rows o ON o."id" = n."id"
   WHERE o."enabled" AND NOT n."enabled"
  ON CONFLICT ("monitorId", "kind") WHERE "endedAt" IS NULL DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER "monitors_record_spans" AFTER UPDATE ON "monitors"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION monitors_record_spans();

-- A monitor created paused has no data from its creation on.
CREATE FUNCTION monitors_record_created_paused() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt")
  SELECT n."id", 'paused', n."createdAt" FROM new_rows n WHERE NOT n."enabled"
  ON CONFLICT ("monitorId", "kind") WHERE "endedAt" IS NULL DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER "monitors_record_created_paused" AFTER INSERT ON "monitors"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION monitors_record_created_paused();

-- What is known of the present: paused monitors since their last change, failing ones since their last check.
INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt")
SELECT "id", 'paused', "updatedAt" FROM "monitors" WHERE NOT "enabled";
INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt")
SELECT "id", 'degraded', coalesce("lastCheckedAt", now()) FROM "monitors" WHERE "status" IN ('degraded', 'down');
