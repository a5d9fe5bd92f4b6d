export { columnPlan, planOfSourceType, UnsupportedColumnTypeError, type CatalogColumn, type ColumnPlan } from './column-types';
export { createSqlServerSource, SnapshotIsolationPendingError, type SqlServerSourceOptions } from './sqlserver-source';
