export { ConnectionStringError, type ConnectOptions, type WarehouseConnection } from '@svc/engines';
export { databaseIdentityOf } from './database-identity';
export { databaseNameOf } from './database-name';
export {
  DATABASE_ACCESS,
  DEFAULT_SCHEMAS,
  UNSUPPORTED_CONNECTION_STRING,
  UNSUPPORTED_WAREHOUSE_URL,
  databaseAccessOf,
  displayNameOf,
  engineNamed,
  secretsSentToWarehouseServer,
  sourceEngineOf,
  warehouseEngineOf,
  type EngineName,
  type SourceEngine,
  type WarehouseEngine,
} from './engine';
export { connectionFailureReason } from './failure-reason';
export { probeDatabase, probeWarehouse, type ProbeOptions } from './probe';
export {
  REACHABILITY_FIELDS,
  checkReachability,
  type DatabaseTarget,
  type ReachabilityOptions,
  type ReachabilityTarget,
} from './reachability';
export { checkSourceCapture, listSourceTables } from './source-tables';
export { STAGING_PREPARATION_FIELDS, prepareStaging, type PreparedStaging, type StagingPreparationTarget } from './staging-preparation';
export { checkTargetPolicy, hostRefusal, targetPolicyProblems, type ResolveHost, type TargetPolicy, type TargetPolicyVerdict } from './target-policy';
