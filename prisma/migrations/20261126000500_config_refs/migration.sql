-- AlterTable
ALTER TABLE "escalation_policies" ADD COLUMN     "ref" VARCHAR(100);

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "ref" VARCHAR(100);

-- AlterTable
ALTER TABLE "status_pages" ADD COLUMN     "ref" VARCHAR(100);

-- CreateIndex
CREATE UNIQUE INDEX "escalation_policies_workspaceId_ref_key" ON "escalation_policies"("workspaceId", "ref");

-- CreateIndex
CREATE UNIQUE INDEX "monitors_workspaceId_ref_key" ON "monitors"("workspaceId", "ref");

-- CreateIndex
CREATE UNIQUE INDEX "status_pages_workspaceId_ref_key" ON "status_pages"("workspaceId", "ref");
