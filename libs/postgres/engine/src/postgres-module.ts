import { defineEngine, warehouseEngineOf } from '@svc/engines';
import { postgresAccess, postgresColumnType, postgresSourceTypes } from '@svc/postgres/common';
import { postgresEngine } from './postgres-engine';

/** PostgreSQL, as the engine list names it: source, staging and warehouse. */
export const postgresModule = defineEngine({
  name: 'postgres',
  displayName: postgresEngine.displayName,
  roles: ['source', 'staging', 'warehouse'],
  connectionStringForms: ['postgres://…'],
  databaseAccess: postgresAccess,
  recognizesWarehouseUrl: (url) => warehouseEngineOf(url) === 'postgres',
  // The loader reads the batch files from S3 itself and streams them in: the S3 keys never reach the server.
  warehouseServerReceives: ['password'],
  pipeline: postgresEngine,
  defaultSchema: 'public',
  types: { reads: postgresSourceTypes, declares: postgresColumnType },
});
