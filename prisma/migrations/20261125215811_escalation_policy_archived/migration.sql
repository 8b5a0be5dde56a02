-- AlterTable
ALTER TABLE "escalation_policies" ADD COLUMN     "archivedAt" TIMESTAMPTZ(3);
