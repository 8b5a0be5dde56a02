-- Issue 33: autovacuum for the two tables in which every stored check rewrites a row: its monitor's (status,
-- lastCheckedAt) and its region's state. PostgreSQL analyzes a table once a tenth of its rows changed since the last
-- analyze, and vacuums it once a fifth are dead. These tables hold a row per monitor (and region) and change every row
-- every interval, so with those defaults autovacuum analyzed and vacuumed both at each of its passes, once a minute at
-- 60 s, for as long as the monitors ran: about 0.9 s of CPU a minute at 100,000 monitors (the monitors' analyze alone
-- 0.45-0.6 s), in a burst the checks' lateness showed.
-- Those rewrites change nothing the planner's statistics describe (the same rows, the same keys), and most are HOT: the
-- region states' nearly all (fillfactor, 20261129200000_hot_state_updates), the monitors' unless the status changes or
-- the page is full; dead versions are pruned within their page without VACUUM, and bottom-up deletion keeps the unchanged
-- keys of a non-HOT update from bloating the indexes. Ten times the table instead: at 60 s, a pass about every ten
-- minutes. Rows added count too, so a table that grows tenfold (monitors created in bulk) is analyzed at the next pass.
-- The rollups keep the defaults: they grow by a row per monitor each hour and day and are kept for weeks and months
-- (ADR 0005), so past their first days a tenth of them takes hours of checks, and their old rows, deleted by
-- housekeeping, need the vacuum.
ALTER TABLE "monitors" SET (autovacuum_analyze_scale_factor = 10, autovacuum_vacuum_scale_factor = 10);
ALTER TABLE "monitor_region_states" SET (autovacuum_analyze_scale_factor = 10, autovacuum_vacuum_scale_factor = 10);
