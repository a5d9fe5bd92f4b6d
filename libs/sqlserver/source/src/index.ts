export { createSqlServerSource, SnapshotIsolationPendingError, type SqlServerSourceOptions } from './sqlserver-source';
