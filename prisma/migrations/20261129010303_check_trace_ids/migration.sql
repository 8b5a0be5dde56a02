-- OpenTelemetry (issue 32, spec section 11): http checks send a W3C traceparent unless `sendTraceparent` is false,
-- and each result keeps the trace id it sent, raw and packed (one element per result, as `steps`; the view
-- check_results_all does not show it: only the results list reads it).

-- AlterTable
ALTER TABLE "check_results" ADD COLUMN     "traceId" VARCHAR(32);

-- AlterTable
ALTER TABLE "check_results_packed" ADD COLUMN     "traceId" TEXT[];

-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "sendTraceparent" BOOLEAN NOT NULL DEFAULT true;
