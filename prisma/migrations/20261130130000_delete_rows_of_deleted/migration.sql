-- One trigger function for the tables whose rows go with a deleted row by trigger instead of a foreign key (a per-row
-- check on their hot write path): `events` with their workspace, `heartbeat_pings` with their monitor. The trigger's
-- arguments name the table and its column holding the deleted row's id. It replaces the two functions that did the
-- same for one table each (migrations 20261125235000_event_log_cheaper_writes and
-- 20261130110237_heartbeat_pings_cheaper_writes).

CREATE FUNCTION delete_rows_of_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('DELETE FROM %I WHERE %I IN (SELECT "id" FROM old_rows)', TG_ARGV[0], TG_ARGV[1]);
  RETURN NULL;
END
$$;

DROP TRIGGER "workspaces_delete_events" ON "workspaces";
DROP FUNCTION workspaces_delete_events();
CREATE TRIGGER "workspaces_delete_events" AFTER DELETE ON "workspaces"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delete_rows_of_deleted('events', 'workspaceId');

DROP TRIGGER "monitors_delete_pings" ON "monitors";
DROP FUNCTION monitors_delete_pings();
CREATE TRIGGER "monitors_delete_pings" AFTER DELETE ON "monitors"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION delete_rows_of_deleted('heartbeat_pings', 'monitorId');
