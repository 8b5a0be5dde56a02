-- AlterTable
ALTER TABLE "escalation_targets" ADD COLUMN     "position" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE UNIQUE INDEX "escalation_targets_stepId_position_key" ON "escalation_targets"("stepId", "position");
