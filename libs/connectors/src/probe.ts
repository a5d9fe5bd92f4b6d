import { UNSUPPORTED_WAREHOUSE_URL, redshiftServedByPostgresForTests, warehouseEngineOf, type DialPolicy, type ProbeOptions, type WarehouseConnection } from '@svc/engines';
import { probePostgres, warehouseClientConfig } from '@svc/postgres/common';
import { UNSUPPORTED_CONNECTION_STRING, databaseAccessOf } from './engine';

export type { ProbeOptions } from '@svc/engines';

/**
 * Opens a connection and runs `select 1`; null on success, else a short reason ('connection refused',
 * 'authentication failed', 'database does not exist', 'timed out after 10 s', …). The reason quotes nothing
 * of the connection string: not even the database name, which a malformed string may have cut from the password.
 */
export async function probeDatabase(connectionString: string, options: ProbeOptions): Promise<string | null> {
  const access = databaseAccessOf(connectionString);
  if (access === null) return UNSUPPORTED_CONNECTION_STRING;
  return access.probe(connectionString, options);
}

/**
 * Same as probeDatabase for the warehouse (PostgreSQL or Redshift over the PostgreSQL protocol). Its database
 * name is the public DatabaseName field, so a reason may name it.
 */
export async function probeWarehouse(warehouse: WarehouseConnection, timeoutMs: number, dial?: DialPolicy): Promise<string | null> {
  const engine = warehouseEngineOf(warehouse.url);
  if (engine === null) return UNSUPPORTED_WAREHOUSE_URL;
  const verified = warehouseClientConfig(warehouse, timeoutMs, dial);
  const config = engine === 'redshift' && redshiftServedByPostgresForTests() ? { ...verified, ssl: false } : verified;
  return probePostgres(config, timeoutMs, config.database);
}
