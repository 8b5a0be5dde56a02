-- Multi-step API checks and workspace secrets (issue 30, spec section 9): the `api` monitor type, its steps (public
-- part as JSON, headers and bodies sealed), the secrets a monitor names, http response schemas, per-step results (raw
-- and packed: ADR 0017, one jsonb per result; the view check_results_all does not show them: only the results list
-- reads them), and the workspace_secrets table (values sealed with the keyring).

-- AlterEnum
ALTER TYPE "MonitorType" ADD VALUE 'api';

-- AlterTable
ALTER TABLE "check_results" ADD COLUMN     "steps" JSONB;

-- AlterTable
ALTER TABLE "check_results_packed" ADD COLUMN     "steps" JSONB[];

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "responseSchema" JSONB,
ADD COLUMN     "secretRefs" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "stepSecretsEnc" TEXT,
ADD COLUMN     "steps" JSONB;

-- CreateTable
CREATE TABLE "workspace_secrets" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" VARCHAR(64) NOT NULL,
    "valueEnc" TEXT NOT NULL,
    "allowedHosts" TEXT[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "workspace_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspace_secrets_workspaceId_name_key" ON "workspace_secrets"("workspaceId", "name");

-- AddForeignKey
ALTER TABLE "workspace_secrets" ADD CONSTRAINT "workspace_secrets_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
