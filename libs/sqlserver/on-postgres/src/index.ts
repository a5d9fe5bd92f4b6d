export { SQLSERVER_ON_POSTGRES_HOOK, postgresDatabaseUrl, serveSqlServerOnPostgres, sqlServerServedByPostgresForTests } from './serve-on-postgres';
export {
  CHANGE_TRACKING_MODEL_SCHEMA,
  cleanupChanges,
  currentVersion,
  enableTableTracking,
  installChangeTrackingModel,
  minValidVersion,
  restoreVersionsTo,
} from './change-tracking-model';
export { installTsqlRuntime, postgresTypeOf } from './tsql-runtime';
export { MssqlPoolOnPostgres, type PoolOnPostgresSettings } from './pool-on-postgres';
export { UntranslatedStatementError, translateTsql, type TsqlInput } from './tsql-to-postgres';
export { answeredText, storedText } from './unpaired-halves';
