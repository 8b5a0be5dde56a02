-- CreateTable
CREATE TABLE "check_rollups_daily" (
    "monitorId" UUID NOT NULL,
    "region" VARCHAR(40) NOT NULL,
    "day" DATE NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "downCount" INTEGER NOT NULL DEFAULT 0,
    "degradedCount" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "check_rollups_daily_pkey" PRIMARY KEY ("monitorId","region","day")
);

-- AddForeignKey
ALTER TABLE "check_rollups_daily" ADD CONSTRAINT "check_rollups_daily_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
