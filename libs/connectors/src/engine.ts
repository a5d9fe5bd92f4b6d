import type { DatabaseAccess, WarehouseEngine } from '@svc/engines';
import { postgresAccess } from '@svc/postgres-common';
import { sqlServerAccess } from '@svc/sqlserver-common';

export { POSTGRES_SCHEMES, REDSHIFT_SCHEMES, UNSUPPORTED_WAREHOUSE_URL, warehouseEndpointOf, warehouseEngineOf, type WarehouseEndpoint, type WarehouseEngine } from '@svc/engines';

/** The engines a Source or Staging connection string can name. */
export type SourceEngine = 'postgres' | 'sqlserver';

/** How Create and Alter reach each engine of a Source or Staging connection string: one line per engine. */
export const DATABASE_ACCESS: Readonly<Record<SourceEngine, DatabaseAccess>> = {
  postgres: postgresAccess,
  sqlserver: sqlServerAccess,
};

export const UNSUPPORTED_CONNECTION_STRING = 'unsupported connection string: expected postgres://…, Server=…; or mssql://…';

/** Engine named by a source or staging connection string; null when it is none of the supported forms. */
export function sourceEngineOf(connectionString: string): SourceEngine | null {
  const engines = Object.keys(DATABASE_ACCESS) as SourceEngine[];
  return engines.find((engine) => DATABASE_ACCESS[engine].recognizes(connectionString)) ?? null;
}

/** The access of the engine a connection string names, or null. */
export function databaseAccessOf(connectionString: string): DatabaseAccess | null {
  const engine = sourceEngineOf(connectionString);
  return engine === null ? null : DATABASE_ACCESS[engine];
}

/** Both unions, for tables keyed by every engine (the pipeline's engine table). */
export type EngineName = SourceEngine | WarehouseEngine;
