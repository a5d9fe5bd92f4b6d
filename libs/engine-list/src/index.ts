export { ENGINES } from './engine-list';
export {
  DATABASE_ACCESS,
  DEFAULT_SCHEMAS,
  ENGINE_NAMES,
  UNSUPPORTED_CONNECTION_STRING,
  databaseAccessOf,
  displayNameOf,
  engineNamed,
  enginesPlaying,
  secretsSentToWarehouseServer,
  sourceEngineOf,
  warehouseEngineOf,
  type EngineName,
  type SourceEngine,
  type WarehouseEngine,
} from './engines';
export { TYPES_DOCUMENT_PATH, renderTypesDocument } from './types-document';
