-- CreateEnum
CREATE TYPE "OAuthResource" AS ENUM ('api', 'mcp');

-- CreateEnum
CREATE TYPE "OAuthScope" AS ENUM ('read', 'write');

-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "connectionId" UUID,
ADD COLUMN     "resource" "OAuthResource",
ADD COLUMN     "scope" "OAuthScope";

-- AlterTable
ALTER TABLE "audit_events" ADD COLUMN     "actorClientId" UUID;

-- CreateTable
CREATE TABLE "oauth_clients" (
    "id" UUID NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "redirectUris" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_clients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_connections" (
    "id" UUID NOT NULL,
    "clientId" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "scope" "OAuthScope" NOT NULL,
    "workspaceIds" UUID[],
    "primaryWorkspaceId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_codes" (
    "id" UUID NOT NULL,
    "codeHash" CHAR(64) NOT NULL,
    "connectionId" UUID NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "codeChallenge" VARCHAR(128) NOT NULL,
    "scope" "OAuthScope" NOT NULL,
    "resource" "OAuthResource" NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),

    CONSTRAINT "oauth_codes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oauth_refresh_tokens" (
    "id" UUID NOT NULL,
    "tokenHash" CHAR(64) NOT NULL,
    "connectionId" UUID NOT NULL,
    "scope" "OAuthScope" NOT NULL,
    "resource" "OAuthResource" NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oauth_refresh_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "oauth_connections_userId_clientId_key" ON "oauth_connections"("userId", "clientId");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_codes_codeHash_key" ON "oauth_codes"("codeHash");

-- CreateIndex
CREATE INDEX "oauth_codes_connectionId_idx" ON "oauth_codes"("connectionId");

-- CreateIndex
CREATE UNIQUE INDEX "oauth_refresh_tokens_tokenHash_key" ON "oauth_refresh_tokens"("tokenHash");

-- CreateIndex
CREATE INDEX "oauth_refresh_tokens_connectionId_idx" ON "oauth_refresh_tokens"("connectionId");

-- CreateIndex
CREATE INDEX "api_tokens_connectionId_idx" ON "api_tokens"("connectionId");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "oauth_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_connections" ADD CONSTRAINT "oauth_connections_clientId_fkey" FOREIGN KEY ("clientId") REFERENCES "oauth_clients"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_connections" ADD CONSTRAINT "oauth_connections_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_codes" ADD CONSTRAINT "oauth_codes_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "oauth_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "oauth_refresh_tokens" ADD CONSTRAINT "oauth_refresh_tokens_connectionId_fkey" FOREIGN KEY ("connectionId") REFERENCES "oauth_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;
