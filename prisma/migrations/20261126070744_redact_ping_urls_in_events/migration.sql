-- The event log keeps no secret (docs/decisions.md, "Secrets in the event log"): monitor.created and monitor.updated
-- events recorded before recordEvent redacted their data carry a heartbeat's `pingUrl`, whose path is the ping
-- secret. Redacted here as recordEvent now stores it, so that neither GET /events nor a webhook delivery or replay
-- sends it again. (Only these two types ever held a monitor record; the triggers' events hold no secret.)
UPDATE "events"
   SET "data" = jsonb_set("data", '{monitor,pingUrl}', '"<redacted>"')
 WHERE "type" IN ('monitor.created', 'monitor.updated')
   AND jsonb_typeof("data" #> '{monitor,pingUrl}') = 'string'
   AND "data" #>> '{monitor,pingUrl}' <> '<redacted>';
