-- Issue 33: the triggers on `monitors` that write status events and uptime spans fire per row, and only for the rows
-- they concern (a WHEN on the columns they read), instead of once per statement with transition tables. A statement
-- with transition tables makes PostgreSQL keep a copy of every old and new row it touches, and runs each trigger's
-- join of them, although nearly every update (a stored check, a ping, an edit) changes no status class and no
-- `enabled`: that cost 12-27 µs of PostgreSQL's CPU a ping and a share of every stored check group. A row-level
-- trigger whose WHEN is false is not even queued. What they write is unchanged; the one difference is the order of
-- the status events of one statement that changes several monitors' statuses (the worker's group store): the order
-- in which the statement updated the rows, where it was by monitor id (neither is a promise of the API: the events'
-- order is their seq).

DROP TRIGGER "monitors_record_status_changed" ON "monitors";
DROP FUNCTION monitors_record_status_changed();

CREATE FUNCTION monitors_record_status_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "events" ("workspaceId", "type", "subject", "monitorName", "monitorType", "previousStatus", "status",
    "checkedAt")
  VALUES (NEW."workspaceId", 'monitor.status_changed', 'monitors/' || NEW."id", NEW."name", NEW."type", OLD."status",
    NEW."status", NEW."lastCheckedAt");
  RETURN NULL;
END
$$;

CREATE TRIGGER "monitors_record_status_changed" AFTER UPDATE ON "monitors"
  FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status")
  EXECUTE FUNCTION monitors_record_status_changed();

-- Uptime accounting's spans (docs/adr/0018-uptime-accounting-spans.md). Degraded: the status entered or left
-- {degraded, down}, at the check time the worker wrote with it. Paused: `enabled` went false or true, at the
-- statement's transaction time.
DROP TRIGGER "monitors_record_spans" ON "monitors";
DROP FUNCTION monitors_record_spans();

CREATE FUNCTION monitors_record_spans() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  was_failing boolean := OLD."status" IN ('degraded', 'down');
  is_failing boolean := NEW."status" IN ('degraded', 'down');
BEGIN
  IF was_failing AND NOT is_failing THEN
    UPDATE "monitor_spans" SET "endedAt" = greatest("startedAt", coalesce(NEW."lastCheckedAt", now()))
     WHERE "monitorId" = NEW."id" AND "kind" = 'degraded' AND "endedAt" IS NULL;
  ELSIF is_failing AND NOT was_failing THEN
    INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt")
    VALUES (NEW."id", 'degraded', coalesce(NEW."lastCheckedAt", now()))
    ON CONFLICT ("monitorId", "kind") WHERE "endedAt" IS NULL DO NOTHING;
  END IF;
  IF NEW."enabled" AND NOT OLD."enabled" THEN
    UPDATE "monitor_spans" SET "endedAt" = greatest("startedAt", now())
     WHERE "monitorId" = NEW."id" AND "kind" = 'paused' AND "endedAt" IS NULL;
  ELSIF OLD."enabled" AND NOT NEW."enabled" THEN
    INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt") VALUES (NEW."id", 'paused', now())
    ON CONFLICT ("monitorId", "kind") WHERE "endedAt" IS NULL DO NOTHING;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "monitors_record_spans" AFTER UPDATE ON "monitors"
  FOR EACH ROW WHEN (
    (OLD."status" IN ('degraded', 'down')) <> (NEW."status" IN ('degraded', 'down')) OR OLD."enabled" <> NEW."enabled"
  )
  EXECUTE FUNCTION monitors_record_spans();

-- A monitor created paused has no data from its creation on.
DROP TRIGGER "monitors_record_created_paused" ON "monitors";
DROP FUNCTION monitors_record_created_paused();

CREATE FUNCTION monitors_record_created_paused() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "monitor_spans" ("monitorId", "kind", "startedAt") VALUES (NEW."id", 'paused', NEW."createdAt")
  ON CONFLICT ("monitorId", "kind") WHERE "endedAt" IS NULL DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER "monitors_record_created_paused" AFTER INSERT ON "monitors"
  FOR EACH ROW WHEN (NOT NEW."enabled")
  EXECUTE FUNCTION monitors_record_created_paused();
