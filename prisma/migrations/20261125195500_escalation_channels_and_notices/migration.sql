-- Alert channels beyond webhook, Slack and email, and the acknowledged / resolved notices sent to every target that
-- was paged for an incident (docs/escalation.md). PostgreSQL 12+ adds several enum values in one transaction.

-- CreateEnum
CREATE TYPE "NoticeKind" AS ENUM ('acknowledged', 'resolved');

-- AlterEnum
ALTER TYPE "DeliveryChannel" ADD VALUE 'pagerduty';
ALTER TYPE "DeliveryChannel" ADD VALUE 'opsgenie';
ALTER TYPE "DeliveryChannel" ADD VALUE 'teams';
ALTER TYPE "DeliveryChannel" ADD VALUE 'discord';
ALTER TYPE "DeliveryChannel" ADD VALUE 'ntfy';
ALTER TYPE "DeliveryChannel" ADD VALUE 'telegram';

-- CreateTable
CREATE TABLE "escalation_notices" (
    "id" UUID NOT NULL,
    "incidentId" UUID NOT NULL,
    "targetId" UUID NOT NULL,
    "kind" "NoticeKind" NOT NULL,
    "channel" "DeliveryChannel" NOT NULL,
    "target" VARCHAR(2048) NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "reason" VARCHAR(500),
    "sentAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimedAt" TIMESTAMPTZ(3),

    CONSTRAINT "escalation_notices_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "escalation_notices_targetId_idx" ON "escalation_notices"("targetId");

-- CreateIndex
CREATE UNIQUE INDEX "escalation_notices_incidentId_kind_targetId_key" ON "escalation_notices"("incidentId", "kind", "targetId");

-- AddForeignKey
ALTER TABLE "escalation_notices" ADD CONSTRAINT "escalation_notices_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_notices" ADD CONSTRAINT "escalation_notices_targetId_fkey" FOREIGN KEY ("targetId") REFERENCES "escalation_targets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The sweeper finds notices still pending without a scan.
CREATE INDEX "escalation_notices_pending_idx" ON "escalation_notices" ("createdAt") WHERE "status" = 'pending';

-- ---------------------------------------------------------------------------------------------------------------
-- Notices: when an incident becomes acknowledged or resolved, one pending notice of that kind per target that was
-- paged for it (a delivery `sent`), in the statement that changes the status. A trigger, so every path that
-- acknowledges or resolves (the API, a monitor recovering in the worker, anything later) writes them atomically
-- with the change; the worker sends them. A page still in flight when the status changes is covered by the engine,
-- which records it `sent` under a share lock on the incident row and adds its notice if the incident is no longer
-- open by then. ON CONFLICT: that path and this one may both add the same notice.
-- ---------------------------------------------------------------------------------------------------------------
CREATE FUNCTION incidents_escalation_notices() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "escalation_notices" ("id", "incidentId", "targetId", "kind", "channel", "target")
  SELECT gen_random_uuid(), NEW."id", t."id", NEW."status"::text::"NoticeKind", t."channel", t."display"
    FROM "escalation_targets" t
   WHERE t."id" IN (SELECT d."targetId" FROM "escalation_deliveries" d WHERE d."incidentId" = NEW."id" AND d."status" = 'sent')
  ON CONFLICT ("incidentId", "kind", "targetId") DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER "incidents_escalation_notices" AFTER UPDATE OF "status" ON "incidents"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status" AND NEW."status" IN ('acknowledged', 'resolved'))
  EXECUTE FUNCTION incidents_escalation_notices();
