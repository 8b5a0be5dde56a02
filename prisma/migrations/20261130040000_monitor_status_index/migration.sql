-- Issue 33: the workspace's monitors by (enabled, status). The console's monitors page and GET /monitors/counts count
-- them by status on every view, and `?status=` lists (the counts' links) look them up: through this index instead of
-- reading every row of the workspace. It takes the place of the index on `enabled` alone, which no statement used
-- (a flag most rows share); so a create still writes as many index entries. The worker's update of a monitor after
-- each check stays a heap-only update while its status holds; a status change (rare beside checks) now writes the
-- monitor's index entries too.

DROP INDEX "monitors_enabled_idx";

CREATE INDEX "monitors_workspaceId_enabled_status_idx" ON "monitors"("workspaceId", "enabled", "status");
