export { parseAdoConnectionString, type AdoPairs } from './ado-connection-string';
export type { ConnectOptions, WarehouseConnection } from './connection-options';
export { ConnectionStringError } from './connection-string-error';
export { databaseIdentityOf } from './database-identity';
export { databaseNameOf } from './database-name';
export {
  UNSUPPORTED_CONNECTION_STRING,
  UNSUPPORTED_WAREHOUSE_URL,
  sourceEngineOf,
  warehouseEngineOf,
  type SourceEngine,
  type WarehouseEngine,
} from './engine';
export { postgresClientConfig, warehouseClientConfig } from './postgres-config';
export { probeDatabase, probeWarehouse, type ProbeOptions } from './probe';
export {
  REACHABILITY_FIELDS,
  checkReachability,
  type DatabaseTarget,
  type ReachabilityOptions,
  type ReachabilityTarget,
} from './reachability';
export { POSTGRES_USER_TABLES_FILTER, listSourceTables } from './source-tables';
export { sqlServerConfig } from './sql-server-config';
