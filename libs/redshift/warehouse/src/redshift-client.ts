import { ConnectionStringError, UNSUPPORTED_WAREHOUSE_URL, warehouseEndpointOf, type WarehouseConnection } from '@svc/engines';
import { Pool, type PoolConfig } from 'pg';
import type { ConnectionOptions } from 'node:tls';

/**
 * How the connector reaches Redshift: PostgreSQL's protocol, TLS 1.2+ with the certificate verified (Redshift
 * endpoints present certificates of a public CA), unless the URL says `sslmode=require` (encrypt, do not verify).
 * `tls: false` is for the suite's Redshift-dialect pair on a local PostgreSQL only.
 */
export function redshiftClientConfig(warehouse: WarehouseConnection, options: { connectTimeoutMs: number; tls?: boolean }): PoolConfig {
  const endpoint = warehouseEndpointOf(warehouse.url);
  if (endpoint === null) throw new ConnectionStringError(UNSUPPORTED_WAREHOUSE_URL);
  return {
    host: endpoint.host,
    port: endpoint.port,
    user: warehouse.username,
    // A function, so that the password is not a plain property of the config an error might print.
    password: () => warehouse.password,
    database: warehouse.databaseName,
    ssl: options.tls === false ? false : redshiftTls(endpoint.params.get('sslmode')),
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: 'svc-warehouse-loader',
  };
}

function redshiftTls(sslmode: string | undefined): ConnectionOptions {
  const verify = sslmode?.toLowerCase() !== 'require';
  return { minVersion: 'TLSv1.2', rejectUnauthorized: verify };
}

/**
 * A pool whose every connection bounds its statements by Warehouse.TimeoutInMins (Redshift takes no
 * statement_timeout startup parameter, so it is set once a connection opens) and never crashes the process
 * when the server drops it.
 */
export function createRedshiftPool(config: PoolConfig, statementTimeoutMs: number): Pool {
  if (!Number.isInteger(statementTimeoutMs) || statementTimeoutMs <= 0) throw new RangeError('statementTimeoutMs must be a positive integer');
  const pool = new Pool(config);
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    client.query(`SET statement_timeout TO ${statementTimeoutMs}`).catch(() => undefined);
  });
  return pool;
}
