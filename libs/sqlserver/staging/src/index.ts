export { csvRows, CsvFormatError, type CsvField } from './csv-rows';
export * as stagingSql from './staging-sql';
export { compatibilityLevelProblem, compatibilityLevelsOf, setCompatibilityLevelSql, SERVER_MAJOR_VERSION_SQL, SOURCE_COMPATIBILITY_LEVEL_SQL } from './compatibility-level';
export { createSqlServerStaging, SqlServerStaging, type SqlServerStagingOptions } from './sqlserver-staging';
export type { TsqlDatabase, TsqlSession, TsqlParams, TsqlValue, TransactionOutcome } from './tsql-session';
