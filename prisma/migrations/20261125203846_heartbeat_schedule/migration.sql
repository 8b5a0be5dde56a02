-- Heartbeats on a cron schedule (issue 16): the expression and its IANA time zone. Additive only.

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "schedule" VARCHAR(100),
ADD COLUMN     "timezone" VARCHAR(64) NOT NULL DEFAULT 'UTC';
