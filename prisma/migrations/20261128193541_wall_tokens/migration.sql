-- CreateTable
CREATE TABLE "wall_tokens" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "tokenHash" CHAR(64) NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "lastUsedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "wall_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "wall_tokens_tokenHash_key" ON "wall_tokens"("tokenHash");

-- CreateIndex
CREATE INDEX "wall_tokens_workspaceId_createdAt_idx" ON "wall_tokens"("workspaceId", "createdAt");

-- AddForeignKey
ALTER TABLE "wall_tokens" ADD CONSTRAINT "wall_tokens_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
