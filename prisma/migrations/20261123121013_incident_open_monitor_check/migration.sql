-- "At most one open incident per monitor" rests on the unique index on incidents."openMonitorId". This CHECK ties
-- that column to the incident's state, so the index means what it says: while the incident's monitor exists,
-- "openMonitorId" equals "monitorId" exactly when the incident is a monitor incident that is open or acknowledged,
-- and is NULL otherwise. (When the monitor is deleted, ON DELETE SET NULL clears "monitorId" alone; the row is
-- then no monitor's open incident, whatever "openMonitorId" still holds, and the CHECK lets the FK action through.)
-- Prisma cannot express CHECK constraints; its differ ignores them, so the drift check is unaffected.

-- Rows the application never writes, but a hand-made row might have: make them consistent first.
UPDATE "incidents" SET "openMonitorId" = NULL
 WHERE "openMonitorId" IS NOT NULL AND "monitorId" IS NOT NULL
   AND ("source" <> 'monitor' OR "status" = 'resolved' OR "openMonitorId" <> "monitorId");

-- Open monitor incidents without "openMonitorId": the newest per monitor takes it unless another row already holds
-- it; every other one is resolved (the invariant says there can be only one).
WITH candidates AS (
  SELECT i."id", i."monitorId",
         row_number() OVER (PARTITION BY i."monitorId" ORDER BY i."startedAt" DESC, i."id") AS n,
         EXISTS (SELECT 1 FROM "incidents" o WHERE o."openMonitorId" = i."monitorId") AS held
    FROM "incidents" i
   WHERE i."monitorId" IS NOT NULL AND i."source" = 'monitor' AND i."status" <> 'resolved' AND i."openMonitorId" IS NULL
)
UPDATE "incidents" i
   SET "openMonitorId" = CASE WHEN c.n = 1 AND NOT c.held THEN c."monitorId" END,
       "status" = CASE WHEN c.n = 1 AND NOT c.held THEN i."status" ELSE 'resolved'::"IncidentStatus" END,
       "resolvedAt" = CASE WHEN c.n = 1 AND NOT c.held THEN i."resolvedAt" ELSE coalesce(i."resolvedAt", now()) END
  FROM candidates c
 WHERE i."id" = c."id";

ALTER TABLE "incidents" ADD CONSTRAINT "incidents_open_monitor_id_check" CHECK (
  "monitorId" IS NULL
  OR "openMonitorId" IS NOT DISTINCT FROM (CASE WHEN "source" = 'monitor' AND "status" <> 'resolved' THEN "monitorId" END)
);
