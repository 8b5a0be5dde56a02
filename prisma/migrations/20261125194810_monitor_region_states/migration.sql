-- Flap state per monitor and region (issue 12: thresholds count confirmations per region). The monitor-wide
-- counters are not carried over (they mixed regions): a monitor with an open incident resolves when a majority of
-- its regions confirm (a region without a row takes the open incident's side); any other starts from zero. The old
-- columns stay, unused, so that processes of the previous version keep working during a rolling deploy.

-- CreateTable
CREATE TABLE "monitor_region_states" (
    "monitorId" UUID NOT NULL,
    "region" VARCHAR(40) NOT NULL,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "consecutivePasses" INTEGER NOT NULL DEFAULT 0,
    "failing" BOOLEAN NOT NULL DEFAULT false,
    "lastCountedAt" TIMESTAMPTZ(3),

    CONSTRAINT "monitor_region_states_pkey" PRIMARY KEY ("monitorId","region")
);

-- AddForeignKey
ALTER TABLE "monitor_region_states" ADD CONSTRAINT "monitor_region_states_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
