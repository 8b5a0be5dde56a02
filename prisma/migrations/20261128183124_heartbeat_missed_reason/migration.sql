-- One name for a heartbeat's missed period (issue 26): its results said `missed_heartbeat` where its incidents (and the
-- spec) say `heartbeat_missed`. The worker now writes `heartbeat_missed` on the result too; the results stored before,
-- raw and packed (ADR 0017: `reason` is one text array per packed row), and the incident evidence that quotes them
-- (`lastResult.reason` per region) are renamed here, so that every reader shows one name. Only heartbeat monitors ever
-- had the reason (a monitor's type never changes): their results are found through the (monitorId, ...) keys instead
-- of a scan of every result (a deleted monitor's results went with it).

UPDATE "check_results"
   SET "reason" = 'heartbeat_missed' || substr("reason", 17)
 WHERE "monitorId" IN (SELECT "id" FROM "monitors" WHERE "type" = 'heartbeat')
   AND left("reason", 16) = 'missed_heartbeat';

UPDATE "check_results_packed" AS p
   SET "reason" = (
     SELECT array_agg(CASE WHEN left(u.r, 16) = 'missed_heartbeat' THEN 'heartbeat_missed' || substr(u.r, 17) ELSE u.r END
                      ORDER BY u.n)
       FROM unnest(p."reason") WITH ORDINALITY AS u(r, n))
 WHERE p."monitorId" IN (SELECT "id" FROM "monitors" WHERE "type" = 'heartbeat')
   AND EXISTS (SELECT 1 FROM unnest(p."reason") AS u(r) WHERE left(u.r, 16) = 'missed_heartbeat');

-- Every incident, those of heartbeats since deleted too (incidents are few next to results). The reason is the only
-- string of the evidence that can start with it.
UPDATE "incidents"
   SET "evidence" = replace("evidence"::text, '"missed_heartbeat', '"heartbeat_missed')::jsonb
 WHERE strpos("evidence"::text, '"missed_heartbeat') > 0;
