-- CreateEnum
CREATE TYPE "PasswordLinkPurpose" AS ENUM ('invite', 'reset');

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "passwordChangedAt" TIMESTAMPTZ(3),
ADD COLUMN     "passwordHash" VARCHAR(200),
ADD COLUMN     "totpLastStep" BIGINT,
ADD COLUMN     "totpPendingSecretEnc" VARCHAR(300),
ADD COLUMN     "totpSecretEnc" VARCHAR(300);

-- CreateTable
CREATE TABLE "console_sessions" (
    "id" UUID NOT NULL,
    "tokenHash" CHAR(64) NOT NULL,
    "userId" UUID NOT NULL,
    "awaitingSecondFactor" BOOLEAN NOT NULL DEFAULT false,
    "failedCodes" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMPTZ(3) NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "userAgent" VARCHAR(300),

    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "password_links" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "purpose" "PasswordLinkPurpose" NOT NULL,
    "tokenHash" CHAR(64) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "password_links_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recovery_codes" (
    "id" UUID NOT NULL,
    "userId" UUID NOT NULL,
    "codeHash" CHAR(64) NOT NULL,

    CONSTRAINT "recovery_codes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "console_sessions_tokenHash_key" ON "console_sessions"("tokenHash");

-- CreateIndex
CREATE INDEX "console_sessions_userId_idx" ON "console_sessions"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "password_links_tokenHash_key" ON "password_links"("tokenHash");

-- CreateIndex
CREATE INDEX "password_links_userId_idx" ON "password_links"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "recovery_codes_userId_codeHash_key" ON "recovery_codes"("userId", "codeHash");

-- AddForeignKey
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "password_links" ADD CONSTRAINT "password_links_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recovery_codes" ADD CONSTRAINT "recovery_codes_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
