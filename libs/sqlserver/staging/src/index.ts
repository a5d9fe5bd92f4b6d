export * as stagingSql from './staging-sql';
export { createSqlServerStaging, SqlServerStaging, type SqlServerStagingOptions } from './sqlserver-staging';
