-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'sent', 'failed');

-- CreateTable
CREATE TABLE "events" (
    "seq" BIGSERIAL NOT NULL,
    "txid" BIGINT NOT NULL DEFAULT (pg_current_xact_id())::text::bigint,
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "type" VARCHAR(64) NOT NULL,
    "subject" VARCHAR(200) NOT NULL,
    "time" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "data" JSONB NOT NULL,
    "key" VARCHAR(200),

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "urlEnc" TEXT NOT NULL,
    "urlDisplay" VARCHAR(2048) NOT NULL,
    "secretEnc" TEXT NOT NULL,
    "types" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "description" VARCHAR(500) NOT NULL DEFAULT '',
    "cursorTxid" BIGINT NOT NULL,
    "cursorSeq" BIGINT NOT NULL DEFAULT 0,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "webhookId" UUID NOT NULL,
    "eventSeq" BIGINT NOT NULL,
    "eventId" UUID NOT NULL,
    "eventType" VARCHAR(64) NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 0,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "responseStatus" INTEGER,
    "reason" VARCHAR(500),
    "nextAttemptAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastAttemptAt" TIMESTAMPTZ(3),
    "deliveredAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "events_id_key" ON "events"("id");

-- CreateIndex
CREATE INDEX "events_workspaceId_txid_seq_idx" ON "events"("workspaceId", "txid", "seq");

-- CreateIndex
CREATE INDEX "events_time_idx" ON "events"("time");

-- CreateIndex
CREATE UNIQUE INDEX "events_workspaceId_key_key" ON "events"("workspaceId", "key");

-- CreateIndex
CREATE INDEX "webhooks_workspaceId_createdAt_idx" ON "webhooks"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhookId_createdAt_idx" ON "webhook_deliveries"("webhookId", "createdAt");

-- CreateIndex
CREATE INDEX "webhook_deliveries_createdAt_idx" ON "webhook_deliveries"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_webhookId_eventSeq_generation_key" ON "webhook_deliveries"("webhookId", "eventSeq", "generation");

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhookId_fkey" FOREIGN KEY ("webhookId") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The dispatcher and the overdue sweep find pending deliveries without a scan.
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("nextAttemptAt") WHERE "status" = 'pending';

-- ---------------------------------------------------------------------------------------------------------------
-- The event log's status transitions are recorded by triggers, in the statement that changes the status: incidents
-- open (insert), are acknowledged and resolved in the API, in the worker and in bulk statements (a monitor deleted
-- resolves its incidents), and monitors change status in the worker's group commit. Events of resource writes made
-- through the API (monitor.created, maintenance.cancelled ...) are recorded by the service with recordEvent
-- (packages/shared/src/events), because they carry the API's record. docs/decisions.md, "Event log".
-- ---------------------------------------------------------------------------------------------------------------

-- ISO 8601 in UTC with milliseconds, whatever the session's TimeZone (JSON dates as the API writes them).
CREATE FUNCTION event_iso_time(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- The `incident` object of every incident.* event (the API's incident.updated adds `update`).
CREATE FUNCTION incident_event_data(i "incidents") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('incident', jsonb_build_object(
    'id', i."id", 'title', i."title", 'status', i."status", 'impact', i."impact", 'source', i."source",
    'monitorId', i."monitorId", 'startedAt', event_iso_time(i."startedAt"),
    'acknowledgedAt', event_iso_time(i."acknowledgedAt"), 'resolvedAt', event_iso_time(i."resolvedAt")))
$$;

CREATE FUNCTION incidents_record_events() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  kind text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    kind := 'incident.opened';
  ELSE
    kind := 'incident.' || NEW."status"::text;
  END IF;
  INSERT INTO "events" ("id", "workspaceId", "type", "subject", "data")
  VALUES (gen_random_uuid(), NEW."workspaceId", kind, 'incidents/' || NEW."id", incident_event_data(NEW));
  RETURN NULL;
END
$$;

CREATE TRIGGER "incidents_record_opened" AFTER INSERT ON "incidents"
  FOR EACH ROW EXECUTE FUNCTION incidents_record_events();
CREATE TRIGGER "incidents_record_status" AFTER UPDATE OF "status" ON "incidents"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" AND NEW."status" IN ('acknowledged', 'resolved'))
  EXECUTE FUNCTION incidents_record_events();

CREATE FUNCTION monitors_record_status_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "events" ("id", "workspaceId", "type", "subject", "data")
  VALUES (gen_random_uuid(), NEW."workspaceId", 'monitor.status_changed', 'monitors/' || NEW."id",
    jsonb_build_object(
      'monitor', jsonb_build_object('id', NEW."id", 'name', NEW."name", 'type', NEW."type"),
      'previousStatus', OLD."status", 'status', NEW."status", 'checkedAt', event_iso_time(NEW."lastCheckedAt")));
  RETURN NULL;
END
$$;

CREATE TRIGGER "monitors_record_status_changed" AFTER UPDATE OF "status" ON "monitors"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION monitors_record_status_changed();
