-- Issue 33: room on each page for the next version of the rows every stored result updates, so that their updates are
-- HOT (no new index entries, less WAL, dead versions pruned within the page without VACUUM). None of the columns these
-- updates change is indexed; what made only 25-40% of them HOT was full pages. The rows a group transaction updates
-- were inserted together (the same monitors fall due together on ADR 0006's grid, and are stored in one group), so
-- they share pages, and a page needs room for all their new versions at once: half of it (test/hot-updates.test.ts).
-- The price: the rollups of closed hours and days keep half their pages empty. They are a row per monitor, region and
-- hour (or day) against 60 raw results an hour at 60 s, so a few percent of the results' space.
-- Only pages written from now on are filled to these limits (no rewrite, no lock beyond a moment's).
ALTER TABLE "monitor_region_states" SET (fillfactor = 50);
ALTER TABLE "check_rollups_hourly" SET (fillfactor = 50);
ALTER TABLE "check_rollups_daily" SET (fillfactor = 50);
