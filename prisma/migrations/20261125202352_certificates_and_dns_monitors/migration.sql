-- Issue 15: TLS certificates on https checks (the latest on the monitor, each on its result; certificateExpiryDays
-- defaults to 7 for existing monitors too, as for new ones) and DNS monitors (record type, resolver, expected answers,
-- and the answers kept with each result).

-- AlterEnum
ALTER TYPE "MonitorType" ADD VALUE 'dns';

-- AlterTable
ALTER TABLE "check_results" ADD COLUMN     "certificate" JSONB,
ADD COLUMN     "dnsAnswers" JSONB;

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "certificate" JSONB,
ADD COLUMN     "certificateExpiryDays" INTEGER DEFAULT 7,
ADD COLUMN     "dnsExpected" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "dnsRecordType" VARCHAR(8),
ADD COLUMN     "dnsResolver" VARCHAR(60);
