-- CreateTable
CREATE TABLE "check_rollups_hourly" (
    "monitorId" UUID NOT NULL,
    "region" VARCHAR(40) NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "total" INTEGER NOT NULL DEFAULT 0,
    "downCount" INTEGER NOT NULL DEFAULT 0,
    "responseSum" BIGINT NOT NULL DEFAULT 0,
    "responseCount" INTEGER NOT NULL DEFAULT 0,
    "dnsSum" BIGINT NOT NULL DEFAULT 0,
    "dnsCount" INTEGER NOT NULL DEFAULT 0,
    "connectSum" BIGINT NOT NULL DEFAULT 0,
    "connectCount" INTEGER NOT NULL DEFAULT 0,
    "tlsSum" BIGINT NOT NULL DEFAULT 0,
    "tlsCount" INTEGER NOT NULL DEFAULT 0,
    "waitingSum" BIGINT NOT NULL DEFAULT 0,
    "waitingCount" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "check_rollups_hourly_pkey" PRIMARY KEY ("monitorId","region","hour")
);

-- AddForeignKey
ALTER TABLE "check_rollups_hourly" ADD CONSTRAINT "check_rollups_hourly_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
