-- CreateIndex
CREATE INDEX "check_results_checkedAt_idx" ON "check_results"("checkedAt");

-- CreateIndex
CREATE INDEX "check_rollups_daily_day_idx" ON "check_rollups_daily"("day");

-- CreateIndex
CREATE INDEX "check_rollups_hourly_hour_idx" ON "check_rollups_hourly"("hour");
