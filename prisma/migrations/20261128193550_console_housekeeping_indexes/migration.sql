-- CreateIndex
CREATE INDEX "console_sessions_expiresAt_idx" ON "console_sessions"("expiresAt");

-- CreateIndex
CREATE INDEX "console_sessions_lastSeenAt_idx" ON "console_sessions"("lastSeenAt");

-- CreateIndex
CREATE INDEX "password_links_expiresAt_idx" ON "password_links"("expiresAt");
