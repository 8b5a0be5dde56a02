-- AlterTable
ALTER TABLE "incidents" ADD COLUMN     "evidence" JSONB,
ADD COLUMN     "reason" VARCHAR(500),
ADD COLUMN     "suppressedById" UUID;

-- AlterTable
ALTER TABLE "monitor_region_states" ADD COLUMN     "confirmSlot" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "confirmAfterSeconds" INTEGER NOT NULL DEFAULT 15,
ADD COLUMN     "dependsOn" UUID[] DEFAULT ARRAY[]::UUID[],
ADD COLUMN     "quorum" INTEGER,
ADD COLUMN     "regions" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AddForeignKey
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_suppressedById_fkey" FOREIGN KEY ("suppressedById") REFERENCES "incidents"("id") ON DELETE SET NULL ON UPDATE CASCADE;
