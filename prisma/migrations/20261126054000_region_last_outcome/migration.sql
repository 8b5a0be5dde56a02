-- The outcome of each region's latest stored result: a multi-region monitor's status follows its regions' latest
-- results (docs/decisions.md, "A multi-region monitor's status"). Null: no result stored since the column exists.
ALTER TABLE "monitor_region_states" ADD COLUMN "lastOutcome" "CheckOutcome";
