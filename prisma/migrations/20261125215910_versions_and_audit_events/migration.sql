-- CreateEnum
CREATE TYPE "AuditActorType" AS ENUM ('token', 'user', 'cli');

-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "components" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "escalation_policies" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "incidents" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "maintenance_windows" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "memberships" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "status_page_subscribers" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "status_pages" ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "workspaceId" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "actorType" "AuditActorType" NOT NULL,
    "actorId" VARCHAR(100) NOT NULL,
    "actorName" VARCHAR(320) NOT NULL,
    "action" VARCHAR(100) NOT NULL,
    "resourceType" VARCHAR(60) NOT NULL,
    "resourceId" UUID NOT NULL,
    "changes" JSONB,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_events_workspaceId_at_seq_idx" ON "audit_events"("workspaceId", "at" DESC, "seq" DESC);

-- CreateIndex
CREATE INDEX "audit_events_workspaceId_resourceId_idx" ON "audit_events"("workspaceId", "resourceId");

-- AddForeignKey
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
