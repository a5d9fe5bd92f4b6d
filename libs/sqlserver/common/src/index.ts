export { adoBoolean, adoValue, parseAdoConnectionString, type AdoPairs } from './ado-connection-string';
export { SQL_SERVER_DEFAULT_PORT, SQL_SERVER_SCHEMES, parseSqlServerAddress, type SqlServerAddress } from './sql-server-address';
export { sqlServerConfig, sqlServerDatabaseName } from './sql-server-config';
export { sqlServerFailureReason } from './sql-server-failure';
export { keyColumnsGathered, sqlServerAccess, sqlServerConnectionFailure } from './sqlserver-access';
export { columnPlan, planOfSourceType, stagingPlanOf, UnsupportedColumnTypeError, type CatalogColumn, type ColumnPlan, type StagingColumnPlan } from './column-types';
export { connectSqlServer, isTlsVersionRefusal, withLegacyTls } from './tls-fallback';
export { isSqlServerMissingObject } from './missing-object';
