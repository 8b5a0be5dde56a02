-- On-call schedules, contact methods, calendar feeds and acknowledge / resolve links (issue 31, beyond-the-seed
-- section 10). A schedule or user escalation target fans out to one delivery per contact method of the user it
-- reaches: `fanout` tells those rows apart under the unique key (it is '' for every other target, so each existing
-- row keeps its meaning), and notices follow the same key.

-- CreateEnum
CREATE TYPE "RotationUnit" AS ENUM ('hours', 'days', 'weeks');

-- CreateEnum
CREATE TYPE "LinkAction" AS ENUM ('acknowledge', 'resolve');

-- AlterEnum
ALTER TYPE "AuditActorType" ADD VALUE 'link';

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "DeliveryChannel" ADD VALUE 'schedule';
ALTER TYPE "DeliveryChannel" ADD VALUE 'user';

-- AlterEnum
ALTER TYPE "NoticeKind" ADD VALUE 'handoff';

-- DropIndex
DROP INDEX "escalation_deliveries_incidentId_stepId_cycle_targetId_key";

-- DropIndex
DROP INDEX "escalation_notices_incidentId_kind_targetId_key";

-- AlterTable
ALTER TABLE "escalation_deliveries" ADD COLUMN     "contactMethodId" UUID,
ADD COLUMN     "fanout" VARCHAR(120) NOT NULL DEFAULT '',
ADD COLUMN     "scheduleId" UUID,
ADD COLUMN     "userId" UUID;

-- AlterTable
ALTER TABLE "escalation_notices" ADD COLUMN     "contactMethodId" UUID,
ADD COLUMN     "fanout" VARCHAR(120) NOT NULL DEFAULT '',
ADD COLUMN     "scheduleId" UUID,
ADD COLUMN     "userId" UUID;

-- CreateTable
CREATE TABLE "schedules" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "timezone" VARCHAR(64) NOT NULL,
    "fallbackUserId" UUID,
    "ref" VARCHAR(100),
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schedule_layers" (
    "id" UUID NOT NULL,
    "scheduleId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "startsAt" TIMESTAMPTZ(3) NOT NULL,
    "rotationEvery" INTEGER NOT NULL,
    "rotationUnit" "RotationUnit" NOT NULL,
    "handoffTime" CHAR(5) NOT NULL,
    "members" UUID[],
    "restrictions" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "schedule_layers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "schedule_overrides" (
    "id" UUID NOT NULL,
    "scheduleId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "startsAt" TIMESTAMPTZ(3) NOT NULL,
    "endsAt" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schedule_overrides_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "calendar_tokens" (
    "id" UUID NOT NULL,
    "tokenHash" CHAR(64) NOT NULL,
    "scheduleId" UUID,
    "userId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),

    CONSTRAINT "calendar_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "contact_methods" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "channel" "DeliveryChannel" NOT NULL,
    "display" VARCHAR(2048) NOT NULL,
    "targetEnc" TEXT NOT NULL,
    "encKeyId" VARCHAR(64) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "contact_methods_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "action_links" (
    "id" UUID NOT NULL,
    "tokenHash" CHAR(64) NOT NULL,
    "deliveryId" UUID NOT NULL,
    "incidentId" UUID NOT NULL,
    "action" "LinkAction" NOT NULL,
    "userId" UUID,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "action_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "schedules_workspaceId_createdAt_idx" ON "schedules"("workspaceId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "schedules_workspaceId_ref_key" ON "schedules"("workspaceId", "ref");

-- CreateIndex
CREATE UNIQUE INDEX "schedule_layers_scheduleId_position_key" ON "schedule_layers"("scheduleId", "position");

-- CreateIndex
CREATE INDEX "schedule_overrides_scheduleId_endsAt_idx" ON "schedule_overrides"("scheduleId", "endsAt");

-- CreateIndex
CREATE UNIQUE INDEX "calendar_tokens_tokenHash_key" ON "calendar_tokens"("tokenHash");

-- CreateIndex
CREATE UNIQUE INDEX "calendar_tokens_scheduleId_key" ON "calendar_tokens"("scheduleId");

-- CreateIndex
CREATE UNIQUE INDEX "calendar_tokens_userId_key" ON "calendar_tokens"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "contact_methods_userId_position_key" ON "contact_methods"("userId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "action_links_tokenHash_key" ON "action_links"("tokenHash");

-- CreateIndex
CREATE INDEX "action_links_incidentId_idx" ON "action_links"("incidentId");

-- CreateIndex
CREATE UNIQUE INDEX "action_links_deliveryId_action_key" ON "action_links"("deliveryId", "action");

-- CreateIndex
CREATE UNIQUE INDEX "escalation_deliveries_incidentId_stepId_cycle_targetId_fano_key" ON "escalation_deliveries"("incidentId", "stepId", "cycle", "targetId", "fanout");

-- CreateIndex
CREATE UNIQUE INDEX "escalation_notices_incidentId_kind_targetId_fanout_key" ON "escalation_notices"("incidentId", "kind", "targetId", "fanout");

-- AddForeignKey
ALTER TABLE "escalation_deliveries" ADD CONSTRAINT "escalation_deliveries_contactMethodId_fkey" FOREIGN KEY ("contactMethodId") REFERENCES "contact_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation_notices" ADD CONSTRAINT "escalation_notices_contactMethodId_fkey" FOREIGN KEY ("contactMethodId") REFERENCES "contact_methods"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_fallbackUserId_fkey" FOREIGN KEY ("fallbackUserId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedule_layers" ADD CONSTRAINT "schedule_layers_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedule_overrides" ADD CONSTRAINT "schedule_overrides_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedule_overrides" ADD CONSTRAINT "schedule_overrides_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calendar_tokens" ADD CONSTRAINT "calendar_tokens_scheduleId_fkey" FOREIGN KEY ("scheduleId") REFERENCES "schedules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calendar_tokens" ADD CONSTRAINT "calendar_tokens_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "contact_methods" ADD CONSTRAINT "contact_methods_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "action_links" ADD CONSTRAINT "action_links_deliveryId_fkey" FOREIGN KEY ("deliveryId") REFERENCES "escalation_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "action_links" ADD CONSTRAINT "action_links_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "incidents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A calendar token is a schedule's or a user's, never both nor neither.
ALTER TABLE "calendar_tokens" ADD CONSTRAINT "calendar_tokens_owner_check"
  CHECK (("scheduleId" IS NULL) <> ("userId" IS NULL));

-- Notices (migration 20261125195500) now go to what each delivery `sent` reached: the target itself, or for a
-- schedule or user target, each contact method it used (the delivery's fanout, user and method). Same trigger, same
-- statement, same ON CONFLICT as before.
CREATE OR REPLACE FUNCTION incidents_escalation_notices() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "escalation_notices"
    ("id", "incidentId", "targetId", "kind", "channel", "target", "fanout", "userId", "contactMethodId")
  SELECT gen_random_uuid(), NEW."id", s."targetId", NEW."status"::text::"NoticeKind", s."channel", s."target",
         s."fanout", s."userId", s."contactMethodId"
    FROM (SELECT DISTINCT ON (d."targetId", d."fanout") d."targetId", d."fanout", d."channel", d."target",
                 d."userId", d."contactMethodId"
            FROM "escalation_deliveries" d
           WHERE d."incidentId" = NEW."id" AND d."status" = 'sent'
           ORDER BY d."targetId", d."fanout", d."createdAt" DESC) s
  ON CONFLICT ("incidentId", "kind", "targetId", "fanout") DO NOTHING;
  RETURN NULL;
END
$$;
