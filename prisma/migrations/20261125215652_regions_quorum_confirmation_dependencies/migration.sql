-- AlterTable
ALTER TABLE "incidents" ADD COLUMN     "evidence" JSONB,
ADD COLUMN     "reason" VARCHAR(500),
ADD COLUMN     "suppressedById" UUID;

-- AlterTable
ALTER TABLE "monitor_region_states" ADD COLUMN     "confirmSlot" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "confirmAfterSeconds" INTEGER NOT NULL DEFAULT 15,
ADD COLUMN     "quorum" INTEGER,
ADD COLUMN     "regions" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "monitor_dependencies" (
    "monitorId" UUID NOT NULL,
    "dependsOnId" UUID NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "monitor_dependencies_pkey" PRIMARY KEY ("monitorId","dependsOnId")
);

-- CreateIndex
CREATE INDEX "monitor_dependencies_dependsOnId_idx" ON "monitor_dependencies"("dependsOnId");

-- AddForeignKey
ALTER TABLE "monitor_dependencies" ADD CONSTRAINT "monitor_dependencies_monitorId_fkey" FOREIGN KEY ("monitorId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitor_dependencies" ADD CONSTRAINT "monitor_dependencies_dependsOnId_fkey" FOREIGN KEY ("dependsOnId") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_suppressedById_fkey" FOREIGN KEY ("suppressedById") REFERENCES "incidents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
