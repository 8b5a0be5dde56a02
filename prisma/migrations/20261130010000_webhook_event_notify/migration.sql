-- Issue 33: event webhooks are dispatched when their events commit, not by a job every second. An event of a
-- workspace that has a webhook notifies the channel `statusvane_webhook_events` (docs/decisions.md, "Event webhooks:
-- dispatched on commit"); the workers LISTEN on it and fan the new events out at once, and a sweep every 30 s
-- (WEBHOOK_DISPATCH_MS) still catches what a notification missed. A workspace without webhooks pays one index probe
-- per event and sends nothing. PostgreSQL folds identical notifications of one transaction into one, delivered after
-- its commit.

CREATE FUNCTION events_notify_webhooks() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "webhooks" WHERE "workspaceId" = NEW."workspaceId") THEN
    PERFORM pg_notify('statusvane_webhook_events', '');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "events_notify_webhooks" AFTER INSERT ON "events"
  FOR EACH ROW EXECUTE FUNCTION events_notify_webhooks();
