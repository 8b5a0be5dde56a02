-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "signingSecretGeneration" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "signingSecretRevealedAt" TIMESTAMPTZ(3),
ADD COLUMN     "signingSecretRotatedAt" TIMESTAMPTZ(3);
