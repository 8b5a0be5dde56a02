-- The IP address each check talked to (issue 15: `address` in GET /monitors/{id}/results and in incident evidence).
-- INET: 7 bytes for IPv4 and 19 for IPv6 in a row, nothing (a bit of the null bitmap) when null. Added on the
-- partitioned parent, so every partition (daily, legacy, default) gets it at once, without a rewrite.
ALTER TABLE "check_results" ADD COLUMN "address" INET;
