-- CreateIndex
CREATE INDEX "audit_events_at_idx" ON "audit_events"("at");
