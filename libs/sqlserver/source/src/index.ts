export { createSqlServerSource, SnapshotIsolationPendingError, type SqlServerSourceOptions } from './sqlserver-source';
export * as sourceSql from './source-statements';
