import { ConnectionPool, type config as MssqlConfig } from 'mssql';
import { Client, type ClientConfig } from 'pg';
import type { WarehouseConnection } from './connection-options';
import { ConnectionStringError } from './connection-string-error';
import { withinDeadline } from './deadline';
import { UNSUPPORTED_CONNECTION_STRING, UNSUPPORTED_WAREHOUSE_URL, sourceEngineOf, warehouseEngineOf } from './engine';
import { connectionFailureReason, timedOutReason } from './failure-reason';
import { postgresClientConfig, warehouseClientConfig } from './postgres-config';
import { sqlServerConfig } from './sql-server-config';

export interface ProbeOptions {
  encrypt: boolean;
  timeoutMs: number;
}

/**
 * Opens a connection and runs `select 1`; null on success, else a short reason ('connection refused',
 * 'authentication failed', 'database "x" does not exist', 'timed out after 10 s', …). The reason never
 * contains the password or the connection string.
 */
export async function probeDatabase(connectionString: string, options: ProbeOptions): Promise<string | null> {
  const engine = sourceEngineOf(connectionString);
  if (engine === null) return UNSUPPORTED_CONNECTION_STRING;
  const connect = { encrypt: options.encrypt, connectTimeoutMs: options.timeoutMs };
  try {
    switch (engine) {
      case 'postgres':
        return await probePostgres(postgresClientConfig(connectionString, connect), options.timeoutMs);
      case 'sqlserver':
        return await probeSqlServer(sqlServerConfig(connectionString, connect), options.timeoutMs);
    }
  } catch (error) {
    // Thrown while building the driver config (the probes themselves resolve to a reason).
    if (error instanceof ConnectionStringError) return error.message;
    return connectionFailureReason(error, { timeoutMs: options.timeoutMs });
  }
}

/** Same as probeDatabase for the warehouse (PostgreSQL or Redshift over the PostgreSQL protocol). */
export async function probeWarehouse(warehouse: WarehouseConnection, timeoutMs: number): Promise<string | null> {
  if (warehouseEngineOf(warehouse.url) === null) return UNSUPPORTED_WAREHOUSE_URL;
  return probePostgres(warehouseClientConfig(warehouse, timeoutMs), timeoutMs);
}

async function probePostgres(config: ClientConfig, timeoutMs: number): Promise<string | null> {
  const client = new Client(config);
  // A connection dropped by the server after the probe must not become an unhandled 'error' event.
  client.on('error', () => undefined);
  const attempt = (async () => {
    await client.connect();
    await client.query('select 1');
  })();
  const close = () => client.end();
  return settleProbe(attempt, close, timeoutMs, config.database);
}

async function probeSqlServer(config: MssqlConfig, timeoutMs: number): Promise<string | null> {
  const pool = new ConnectionPool({ ...config, requestTimeout: timeoutMs, pool: { min: 0, max: 1 } });
  pool.on('error', () => undefined);
  const attempt = (async () => {
    await pool.connect();
    await pool.request().query('select 1');
  })();
  const close = async () => {
    await pool.close();
  };
  return settleProbe(attempt, close, timeoutMs, config.database);
}

/**
 * Waits for the attempt within the deadline and maps its failure. The connection is closed once the
 * attempt has settled (mssql refuses to close a pool that is still connecting); after a timeout that
 * happens in the background, bounded by the driver's own connect timeout.
 */
async function settleProbe(
  attempt: Promise<void>,
  close: () => Promise<void>,
  timeoutMs: number,
  database: string | undefined,
): Promise<string | null> {
  const closeWhenSettled = attempt
    .catch(() => undefined)
    .then(close)
    .catch(() => undefined);
  try {
    const outcome = await withinDeadline(attempt, timeoutMs);
    if (!outcome.settled) return timedOutReason(timeoutMs);
    await closeWhenSettled;
    return null;
  } catch (error) {
    return connectionFailureReason(error, { ...(database !== undefined && { database }), timeoutMs });
  }
}
