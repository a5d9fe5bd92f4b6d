import { retentionHours, type RetentionPeriod, type TableRef } from '@svc/contracts';
import { qualifiedName } from './identifiers';

/**
 * Change Tracking on the database with the requested retention, or, when it is on already, the longer of
 * the retention it has and the one requested (retention is per database: two replications of one database
 * keep changes as long as the longer of them needs). Auto cleanup stays on. Answers the retention in force.
 */
export function enableDatabaseTrackingSql(retention: RetentionPeriod): string {
  const hours = retentionHours(retention);
  return `DECLARE @requested_hours int = ${hours};
DECLARE @current_hours int = (
  SELECT CASE retention_period_units WHEN 1 THEN (retention_period + 59) / 60 WHEN 2 THEN retention_period WHEN 3 THEN retention_period * 24 END
  FROM sys.change_tracking_databases WHERE database_id = DB_ID());
IF @current_hours IS NULL
  ALTER DATABASE CURRENT SET CHANGE_TRACKING = ON (CHANGE_RETENTION = ${hours} HOURS, AUTO_CLEANUP = ON);
ELSE IF @current_hours < @requested_hours
  ALTER DATABASE CURRENT SET CHANGE_TRACKING (CHANGE_RETENTION = ${hours} HOURS);
SELECT CASE WHEN @current_hours > @requested_hours THEN @current_hours ELSE @requested_hours END AS retention_hours,
  @current_hours AS previous_hours`;
}

/** Snapshot isolation, which seeds and change reads run in (it stays PENDING_ON until open write transactions end). */
export const ALLOW_SNAPSHOT_ISOLATION_SQL = `IF (SELECT snapshot_isolation_state FROM sys.databases WHERE database_id = DB_ID()) = 0
  ALTER DATABASE CURRENT SET ALLOW_SNAPSHOT_ISOLATION ON`;

/** Whether snapshot isolation can be used yet: 1 (ON) only; 3 (PENDING_ON) waits for write transactions to end. */
export const SNAPSHOT_ISOLATION_STATE_SQL = 'SELECT snapshot_isolation_state AS state FROM sys.databases WHERE database_id = DB_ID()';

/** Idempotent: tracks the table's keys (not which columns changed: the read takes the whole current row). */
export function enableTableTrackingSql(table: TableRef): string {
  return `IF NOT EXISTS (SELECT 1 FROM sys.change_tracking_tables WHERE object_id = OBJECT_ID(@table))
  ALTER TABLE ${qualifiedName(table)} ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = OFF)`;
}

/** Idempotent; a table gone already is no error. The database's own Change Tracking stays on: other tables or applications may use it. */
export function disableTableTrackingSql(table: TableRef): string {
  return `IF EXISTS (SELECT 1 FROM sys.change_tracking_tables WHERE object_id = OBJECT_ID(@table))
  ALTER TABLE ${qualifiedName(table)} DISABLE CHANGE_TRACKING`;
}

/** NULL when the table is not tracked (or unknown, or the login may not see it). */
export const MIN_VALID_VERSION_SQL = 'SELECT CHANGE_TRACKING_MIN_VALID_VERSION(OBJECT_ID(@table)) AS min_valid_version';

/**
 * Whether the login may read the table's changes, asked when MIN_VALID_VERSION_SQL answered NULL: without
 * VIEW CHANGE TRACKING it is NULL as for an untracked table, and a reseed would not help. 1 or 0 (NULL: no such table).
 */
export const VIEW_CHANGE_TRACKING_PERMISSION_SQL = "SELECT HAS_PERMS_BY_NAME(@table, 'OBJECT', 'VIEW CHANGE TRACKING') AS may_view_changes, USER_NAME() AS user_name";

/**
 * What enableDatabaseTrackingSql did, in words for the log: retention is per database, so replications of one
 * database asking for different retentions share the longest. Null when nothing needs saying (it was as asked).
 */
export function retentionReconciled(requestedHours: number, previousHours: number | null): string | null {
  if (previousHours === null) return `Change Tracking switched on for the database with ${requestedHours} hours' retention`;
  if (previousHours < requestedHours) return `the database's Change Tracking retention raised from ${previousHours} to ${requestedHours} hours, as this replication's ChangeTrackingRetentionPeriod asks`;
  if (previousHours > requestedHours) {
    return `the database keeps changes ${previousHours} hours, longer than this replication's ${requestedHours}: retention is per database and another replication or application of it needs the longer one, so it is kept`;
  }
  return null;
}
