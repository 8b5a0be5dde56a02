-- Heartbeat pings log and runs (issue 16): every ping stored with its kind, exit code, run id, duration and the
-- first 10,000 bytes of its body; the run in progress and maxRunSeconds on the monitor. Additive only.

-- CreateEnum
CREATE TYPE "HeartbeatPingKind" AS ENUM ('start', 'success', 'fail');

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "lastRunDurationMs" INTEGER,
ADD COLUMN     "maxRunSeconds" INTEGER,
ADD COLUMN     "runStartedAt" TIMESTAMPTZ(3),
ADD COLUMN     "runStartedRid" UUID;

-- CreateTable
CREATE TABLE "heartbeat_pings" (
    "id" UUID NOT NULL,
    "monitorId" UUID NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "kind" "HeartbeatPingKind" NOT NULL,
    "exitCode" INTEGER,
    "durationMs" INTEGER,
    "rid" UUID,
    "body" TEXT,
    "remoteAddress" VARCHAR(64),
    "userAgent" VARCHAR(200),

    CONSTRAINT "heartbeat_pings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "heartbeat_pings_monitorId_at_id_idx" ON "heartbeat_pings"("monitorId", "at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "heartbeat_pings_at_idx" ON "heartbeat_pings"("at");

-- AddForeignKey
ALTER TABLE "heartbeat_pings" ADD CONSTRAINT "heartbeat_pings_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
