import type { TableRef } from '@svc/contracts';
import type { Client, Pool, PoolClient } from 'pg';
import { installTsqlRuntime } from './tsql-runtime';

/**
 * SQL Server Change Tracking as Microsoft documents it, modelled in a PostgreSQL database (schema `ct_model`) so that
 * the SQL Server source's own statements can run against it (tsql-to-postgres.ts translates them). What it models:
 *   - One database version counter. "SQL Change Tracking will assign version at transaction commit time and all the rows
 *     affected by the transaction will have the same version" (Microsoft's Sync Framework team, "SQL Server Change
 *     Tracking vs min_active_rowversion()", https://learn.microsoft.com/en-us/archive/blogs/synchronizer/sql-server-change-tracking-vs-min_active_rowversion).
 *     Row triggers log (key, operation) with no version; a DEFERRABLE INITIALLY DEFERRED constraint trigger stamps them at
 *     COMMIT under a transaction-scoped advisory lock, taking nextval only then: commits are serialised in version order,
 *     a version is visible once its transaction has committed (PostgreSQL releases the lock after the commit is visible),
 *     and every snapshot sees a prefix of the versions.
 *   - CHANGE_TRACKING_CURRENT_VERSION(): "Returns a version that is associated with the last committed transaction",
 *     "NULL when change tracking is not enabled for the database"
 *     (https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/change-tracking-current-version-transact-sql);
 *     read in the caller's snapshot (0 before any change).
 *   - CHANGE_TRACKING_MIN_VALID_VERSION(object_id): per table, set "when the table was enabled for change tracking",
 *     raised "when the background cleanup task ran" (ct_model.cleanup here) and "if the table was truncated"; NULL when
 *     tracking is off for the database or "the specified table object ID isn't valid"
 *     (https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/change-tracking-min-valid-version-transact-sql).
 *     Permissions are not modelled: the login sees every table.
 *   - CHANGETABLE(CHANGES t, @last) (https://learn.microsoft.com/en-us/sql/relational-databases/system-functions/changetable-transact-sql):
 *     "changes with a version greater than last_sync_version"; "Only one row is returned for each row in the user table
 *     that has been changed, even if there have been multiple changes"; SYS_CHANGE_VERSION "associated with the last
 *     change to the row", SYS_CHANGE_CREATION_VERSION "associated with the last insert operation"; SYS_CHANGE_OPERATION
 *     "relative to the baseline (last_sync_version)": I when the key was inserted after it, D when its last change is a
 *     delete, else U; "If a primary key value changes, it is considered to be a delete of the old value and an insert of
 *     the new value"; "If you delete a row and then insert a row that has the old primary key, the change is seen as an
 *     update" (an insert right after a delete of its key counts as an update; within one statement a key both deleted and
 *     inserted is one update, as SQL Server's plan collapses them); "When a table is truncated, the change tracking version
 *     information that is associated with the table is reset as if change tracking has just been enabled on the table ...
 *     The validation fails if the table has been truncated" (the truncating transaction's version becomes the minimum).
 *   - "Change Tracking and data restore" (https://learn.microsoft.com/en-us/sql/relational-databases/track-changes/work-with-change-tracking-sql-server):
 *     ct_model.restore_versions_to(v) rewinds the versions (not the rows) as a restore to version v would.
 * Tables may have int and nvarchar(n) columns only (PostgreSQL integer and varchar(n)); the catalog answer reports any
 * other type as one SQL Server does not have, which the source refuses.
 */
export const CHANGE_TRACKING_MODEL_SCHEMA = 'ct_model';

/** The advisory lock that serialises commits (an arbitrary constant of the model). */
const COMMIT_ORDER_LOCK = 7_230_519;

const MODEL_SQL = `
CREATE SCHEMA ct_model;

-- The database: whether Change Tracking is on, sys.databases.snapshot_isolation_state, the incarnation text (incarnation.ts).
CREATE TABLE ct_model.database_state (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  tracking_on boolean NOT NULL DEFAULT true,
  snapshot_isolation_state int NOT NULL DEFAULT 1,
  incarnation text,
  -- sys.change_tracking_databases: the retention, NULL before ALTER DATABASE … SET CHANGE_TRACKING = ON.
  retention_hours int
);

CREATE SEQUENCE ct_model.versions;

-- One row per committed transaction that changed a tracked table (sys.syscommittab).
CREATE TABLE ct_model.commits (version bigint PRIMARY KEY, xid xid8 NOT NULL UNIQUE);

CREATE TABLE ct_model.tracked_tables (object oid PRIMARY KEY, min_valid_version bigint NOT NULL);

-- Each statement's changed keys; version stays NULL until the transaction commits. T marks a TRUNCATE.
CREATE TABLE ct_model.change_log (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  object oid NOT NULL,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  version bigint,
  operation char(1) NOT NULL CHECK (operation IN ('I', 'U', 'D', 'T')),
  key jsonb
);
CREATE INDEX ON ct_model.change_log (object, key, version);
CREATE INDEX ON ct_model.change_log (xid) WHERE version IS NULL;

-- At COMMIT: the transaction's version, in commit order.
CREATE FUNCTION ct_model.stamp_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  me xid8 := pg_current_xact_id();
  stamped bigint;
BEGIN
  IF EXISTS (SELECT 1 FROM ct_model.commits WHERE xid = me) THEN RETURN NULL; END IF;
  PERFORM pg_advisory_xact_lock(${COMMIT_ORDER_LOCK});
  stamped := nextval('ct_model.versions');
  INSERT INTO ct_model.commits (version, xid) VALUES (stamped, me);
  UPDATE ct_model.change_log SET version = stamped WHERE xid = me AND version IS NULL;
  UPDATE ct_model.tracked_tables t SET min_valid_version = stamped
  WHERE EXISTS (SELECT 1 FROM ct_model.change_log l WHERE l.xid = me AND l.object = t.object AND l.operation = 'T');
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER stamp_at_commit AFTER INSERT ON ct_model.change_log
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ct_model.stamp_commit();

CREATE FUNCTION ct_model.key_of(row_value jsonb, key_columns text[]) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_object_agg(k, row_value -> k) FROM unnest(key_columns) AS k
$$;

-- Statement-level: a key both deleted and inserted by one UPDATE is one update, deletes are logged first.
CREATE FUNCTION ct_model.log_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ct_model.change_log (object, operation, key)
    SELECT TG_RELID, 'I', ct_model.key_of(to_jsonb(n), TG_ARGV) FROM new_rows AS n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ct_model.change_log (object, operation, key)
    SELECT TG_RELID, 'D', ct_model.key_of(to_jsonb(o), TG_ARGV) FROM old_rows AS o;
  ELSE
    INSERT INTO ct_model.change_log (object, operation, key)
    SELECT TG_RELID, CASE WHEN o.key IS NULL THEN 'I' WHEN n.key IS NULL THEN 'D' ELSE 'U' END, coalesce(n.key, o.key)
    FROM (SELECT ct_model.key_of(to_jsonb(r), TG_ARGV) AS key FROM old_rows AS r) AS o
    FULL JOIN (SELECT ct_model.key_of(to_jsonb(r), TG_ARGV) AS key FROM new_rows AS r) AS n ON n.key = o.key
    ORDER BY n.key IS NULL DESC;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION ct_model.log_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ct_model.change_log WHERE object = TG_RELID;
  INSERT INTO ct_model.change_log (object, operation, key) VALUES (TG_RELID, 'T', NULL);
  RETURN NULL;
END $$;

-- CHANGETABLE(CHANGES object, last_sync_version) with the key as jsonb (the per-table function types it).
CREATE FUNCTION ct_model.changes(object oid, last_sync_version bigint)
RETURNS TABLE (key jsonb, sys_change_version bigint, sys_change_creation_version bigint, sys_change_operation text)
LANGUAGE sql STABLE AS $$
  WITH entries AS (
    SELECT l.key, l.version, l.seq,
      CASE WHEN l.operation = 'I' AND lag(l.operation) OVER (PARTITION BY l.key ORDER BY l.version, l.seq) = 'D' THEN 'U' ELSE l.operation END AS operation
    FROM ct_model.change_log AS l
    WHERE l.object = $1 AND l.version IS NOT NULL AND l.operation <> 'T'
  ), per_key AS (
    SELECT e.key, max(e.version) AS last_version,
      max(e.version) FILTER (WHERE e.operation = 'I') AS creation_version,
      (array_agg(e.operation ORDER BY e.version DESC, e.seq DESC))[1] AS last_operation
    FROM entries AS e GROUP BY e.key
  )
  SELECT p.key, p.last_version, p.creation_version,
    CASE WHEN p.last_operation = 'D' THEN 'D' WHEN p.creation_version > coalesce($2, -1) THEN 'I' ELSE 'U' END
  FROM per_key AS p
  WHERE p.last_version > coalesce($2, -1)
$$;

CREATE FUNCTION ct_model.change_tracking_current_version() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN d.tracking_on THEN coalesce((SELECT max(c.version) FROM ct_model.commits AS c), 0) END FROM ct_model.database_state AS d
$$;

CREATE FUNCTION ct_model.change_tracking_min_valid_version(object oid) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT t.min_valid_version FROM ct_model.tracked_tables AS t, ct_model.database_state AS d WHERE d.tracking_on AND t.object = $1
$$;

-- OBJECT_ID(N'[schema].[name]'): the table's oid, NULL for a name of another form or no such table.
CREATE FUNCTION ct_model.object_id(name text) RETURNS oid LANGUAGE plpgsql STABLE AS $$
DECLARE
  parts text[] := regexp_match(name, '^\\[((?:[^\\]]|\\]\\])*)\\]\\.\\[((?:[^\\]]|\\]\\])*)\\]$');
  found regclass;
BEGIN
  IF parts IS NULL THEN RETURN NULL; END IF;
  found := to_regclass(format('%I.%I', replace(parts[1], ']]', ']'), replace(parts[2], ']]', ']')));
  RETURN (SELECT c.oid FROM pg_class AS c WHERE c.oid = found AND c.relkind = 'r');
END $$;

-- The name of the per-table CHANGETABLE function: CHANGES [schema].[name], as the source's statements spell the table.
CREATE FUNCTION ct_model.changes_function_name(target regclass) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT format('CHANGES [%s].[%s]', replace(n.nspname, ']', ']]'), replace(c.relname, ']', ']]'))
  FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE c.oid = target
$$;

-- ALTER TABLE … ENABLE CHANGE_TRACKING: "Change tracking requires a primary key on the table."
CREATE FUNCTION ct_model.enable_table_tracking(target regclass) RETURNS void LANGUAGE plpgsql AS $enable$
DECLARE
  keys text[];
  key_types text[];
  function_name text := ct_model.changes_function_name(target);
BEGIN
  SELECT array_agg(a.attname::text ORDER BY k.ord), array_agg(format_type(a.atttypid, a.atttypmod) ORDER BY k.ord)
  INTO keys, key_types
  FROM pg_constraint AS c, unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord), pg_attribute AS a
  WHERE c.conrelid = target AND c.contype = 'p' AND a.attrelid = target AND a.attnum = k.attnum;
  IF keys IS NULL THEN RAISE EXCEPTION 'Cannot enable change tracking on table ''%''. Change tracking requires a primary key on the table.', target; END IF;
  IF octet_length(function_name) > 63 THEN RAISE EXCEPTION 'the model names CHANGETABLE functions after their table: % is too long', function_name; END IF;
  INSERT INTO ct_model.tracked_tables (object, min_valid_version) VALUES (target, coalesce(ct_model.change_tracking_current_version(), 0));
  EXECUTE format('CREATE TRIGGER ct_model_insert AFTER INSERT ON %s REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ct_model.log_rows(%s)',
    target, (SELECT string_agg(quote_literal(k), ', ') FROM unnest(keys) AS k));
  EXECUTE format('CREATE TRIGGER ct_model_update AFTER UPDATE ON %s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ct_model.log_rows(%s)',
    target, (SELECT string_agg(quote_literal(k), ', ') FROM unnest(keys) AS k));
  EXECUTE format('CREATE TRIGGER ct_model_delete AFTER DELETE ON %s REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ct_model.log_rows(%s)',
    target, (SELECT string_agg(quote_literal(k), ', ') FROM unnest(keys) AS k));
  EXECUTE format('CREATE TRIGGER ct_model_truncate AFTER TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION ct_model.log_truncate()', target);
  -- CHANGETABLE's columns: the version columns, then the primary key columns with their types.
  EXECUTE format($f$CREATE FUNCTION ct_model.%I(last_sync_version bigint)
    RETURNS TABLE (sys_change_version bigint, sys_change_creation_version bigint, sys_change_operation text, %s)
    LANGUAGE sql STABLE AS $body$
      SELECT c.sys_change_version, c.sys_change_creation_version, c.sys_change_operation, %s
      FROM ct_model.changes(%s, last_sync_version) AS c, jsonb_populate_record(NULL::%s, c.key) AS k
    $body$
  $f$,
    function_name,
    (SELECT string_agg(format('%I %s', k, t), ', ' ORDER BY o) FROM unnest(keys, key_types) WITH ORDINALITY AS x(k, t, o)),
    (SELECT string_agg(format('k.%I', k), ', ' ORDER BY o) FROM unnest(keys) WITH ORDINALITY AS x(k, o)),
    target::oid, target);
END $enable$;

-- The background cleanup: changes up to up_to are gone, and so is the validity of a last_sync_version below it.
CREATE FUNCTION ct_model.cleanup(target regclass, up_to bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE removed bigint;
BEGIN
  DELETE FROM ct_model.change_log WHERE object = target AND version <= up_to;
  GET DIAGNOSTICS removed = ROW_COUNT;
  UPDATE ct_model.tracked_tables SET min_valid_version = greatest(min_valid_version, up_to) WHERE object = target;
  RETURN removed;
END $$;

-- A restore to the version v: later commits and their changes are gone, the next commit is v + 1.
CREATE FUNCTION ct_model.restore_versions_to(v bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ct_model.commits WHERE version > v;
  DELETE FROM ct_model.change_log WHERE version > v;
  UPDATE ct_model.tracked_tables SET min_valid_version = least(min_valid_version, v);
  PERFORM setval('ct_model.versions', greatest(v, 1), v > 0);
END $$;

-- ALTER DATABASE … SET CHANGE_TRACKING = ON (CHANGE_RETENTION = n HOURS), or a longer retention for a database that has one.
CREATE FUNCTION ct_model.enable_database_tracking(requested int, OUT retention_hours int, OUT previous_hours int) LANGUAGE plpgsql AS $$
BEGIN
  SELECT d.retention_hours INTO previous_hours FROM ct_model.database_state AS d;
  retention_hours := greatest(coalesce(previous_hours, 0), requested);
  UPDATE ct_model.database_state SET tracking_on = true, retention_hours = enable_database_tracking.retention_hours;
END $$;

-- IF NOT EXISTS (… sys.change_tracking_tables …) ALTER TABLE … ENABLE CHANGE_TRACKING.
CREATE FUNCTION ct_model.ensure_table_tracking(target regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM ct_model.tracked_tables WHERE object = target) THEN PERFORM ct_model.enable_table_tracking(target); END IF;
END $$;

-- ALTER TABLE … DISABLE CHANGE_TRACKING: the table's changes and its CHANGETABLE go (a table gone already is no error).
CREATE FUNCTION ct_model.disable_table_tracking(target regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF target IS NULL OR NOT EXISTS (SELECT 1 FROM ct_model.tracked_tables WHERE object = target) THEN RETURN; END IF;
  EXECUTE format('DROP TRIGGER ct_model_insert ON %s; DROP TRIGGER ct_model_update ON %s; DROP TRIGGER ct_model_delete ON %s; DROP TRIGGER ct_model_truncate ON %s',
    target, target, target, target);
  EXECUTE format('DROP FUNCTION ct_model.%I(bigint)', ct_model.changes_function_name(target));
  DELETE FROM ct_model.change_log WHERE object = target;
  DELETE FROM ct_model.tracked_tables WHERE object = target;
END $$;

-- sys.objects.modify_date: when the table was last created or altered ("also changes when an index on the table … is created or altered").
CREATE TABLE ct_model.schema_changes (object oid PRIMARY KEY, modified timestamp(3) NOT NULL);
CREATE FUNCTION ct_model.note_schema_change() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ct_model.schema_changes (object, modified)
  SELECT DISTINCT d.objid, clock_timestamp() AT TIME ZONE 'UTC' FROM pg_event_trigger_ddl_commands() AS d WHERE d.classid = 'pg_class'::regclass
  ON CONFLICT (object) DO UPDATE SET modified = excluded.modified;
END $$;
CREATE EVENT TRIGGER ct_model_schema_changes ON ddl_command_end WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE INDEX', 'ALTER INDEX')
  EXECUTE FUNCTION ct_model.note_schema_change();

-- The two catalog views the change probe's schema stamp reads (changed-tables-sql.ts), over PostgreSQL's catalog.
CREATE SCHEMA sys;
CREATE VIEW sys.objects AS
  SELECT c.oid AS object_id, c.relname::text AS name, coalesce(s.modified, timestamp '2000-01-01')::tsql.datetime2_3 AS modify_date
  FROM pg_class AS c LEFT JOIN ct_model.schema_changes AS s ON s.object = c.oid WHERE c.relkind IN ('r', 'p');
CREATE VIEW sys.columns AS
  SELECT a.attrelid AS object_id, a.attnum::int AS column_id, a.attname::text AS name FROM pg_attribute AS a WHERE a.attnum > 0 AND NOT a.attisdropped;
`;

/** What the model's functions are called with: a pool or one of its clients. */
export type ModelDatabase = Pick<Pool, 'query'> | Pick<PoolClient, 'query'>;

/** Installs the T-SQL runtime and the model in an empty database, Change Tracking on and snapshot isolation ON (state 1). */
export async function installChangeTrackingModel(database: Pool | PoolClient | Client, incarnation: string | null): Promise<void> {
  await installTsqlRuntime(database);
  await database.query(MODEL_SQL);
  await database.query('INSERT INTO ct_model.database_state (incarnation) VALUES ($1)', [incarnation]);
}

const regclassOf = 'format($1::text, $2::text, $3::text)::regclass';
const tableArguments = (table: TableRef): string[] => ['%I.%I', table.schema, table.name];

/** ALTER TABLE … ENABLE CHANGE_TRACKING. */
export async function enableTableTracking(database: ModelDatabase, table: TableRef): Promise<void> {
  await database.query(`SELECT ct_model.enable_table_tracking(${regclassOf})`, tableArguments(table));
}

/** The background cleanup removing the table's changes up to `upTo`; answers how many log entries went. */
export async function cleanupChanges(database: ModelDatabase, table: TableRef, upTo: bigint): Promise<number> {
  const result = await database.query<{ removed: string }>(`SELECT ct_model.cleanup(${regclassOf}, $4::bigint) AS removed`, [...tableArguments(table), upTo.toString()]);
  return Number(result.rows[0]?.removed ?? 0);
}

/** The versions as a restore of a backup taken at `version` leaves them. */
export async function restoreVersionsTo(database: ModelDatabase, version: bigint): Promise<void> {
  await database.query('SELECT ct_model.restore_versions_to($1::bigint)', [version.toString()]);
}

/** CHANGE_TRACKING_CURRENT_VERSION() as a new transaction sees it. */
export async function currentVersion(database: ModelDatabase): Promise<bigint | null> {
  const result = await database.query<{ version: string | null }>('SELECT ct_model.change_tracking_current_version() AS version');
  const version = result.rows[0]?.version ?? null;
  return version === null ? null : BigInt(version);
}

/** CHANGE_TRACKING_MIN_VALID_VERSION of the table. */
export async function minValidVersion(database: ModelDatabase, table: TableRef): Promise<bigint | null> {
  const result = await database.query<{ version: string | null }>(
    `SELECT ct_model.change_tracking_min_valid_version(${regclassOf}::oid) AS version`,
    tableArguments(table),
  );
  const version = result.rows[0]?.version ?? null;
  return version === null ? null : BigInt(version);
}
