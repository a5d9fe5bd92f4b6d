/** The engine list's dispatch, as the registry's Create and Alter checks use it (@svc/engine-list derives it all). */
export {
  DATABASE_ACCESS,
  DEFAULT_SCHEMAS,
  UNSUPPORTED_CONNECTION_STRING,
  databaseAccessOf,
  displayNameOf,
  engineNamed,
  secretsSentToWarehouseServer,
  sourceEngineOf,
  warehouseEngineOf,
  type EngineName,
  type SourceEngine,
  type WarehouseEngine,
} from '@svc/engine-list';
export { UNSUPPORTED_WAREHOUSE_URL } from '@svc/engines';
