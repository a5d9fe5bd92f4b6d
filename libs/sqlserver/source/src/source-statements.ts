/** The source's fixed statements, for the PostgreSQL model of SQL Server (libs/sqlserver/on-postgres), which answers each by its text. */
export { DISCOVER_COLUMNS_SQL } from './catalog-sql';
export { ROWS_ESTIMATE_SQL } from './checksums';
export { SOURCE_INCARNATION_SQL } from './incarnation';
export { CURRENT_VERSION_SQL } from './read-sql';
export { ALLOW_SNAPSHOT_ISOLATION_SQL, MIN_VALID_VERSION_SQL, SNAPSHOT_ISOLATION_STATE_SQL, VIEW_CHANGE_TRACKING_PERMISSION_SQL } from './tracking-sql';
export { changeExistsSql, trackedVersionsSql } from './changed-tables-sql';
export { enableDatabaseTrackingSql, enableTableTrackingSql, disableTableTrackingSql } from './tracking-sql';
export { TABLE_SIZE_SQL } from './seed-chunks';
