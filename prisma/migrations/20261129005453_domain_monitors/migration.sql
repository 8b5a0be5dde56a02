-- AlterEnum
ALTER TYPE "MonitorType" ADD VALUE 'domain';

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "domain" JSONB,
ADD COLUMN     "domainExpiryDays" INTEGER;
