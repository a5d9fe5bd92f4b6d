import {
  ConnectionStringError,
  DEFAULT_DIAL_POLICY,
  GatedPgPool,
  UNSUPPORTED_WAREHOUSE_URL,
  clientBoundMs,
  guardedStream,
  warehouseDialEndpointOf,
  type ConnectionGateOptions,
  type DialPolicy,
  type WarehouseConnection,
} from '@svc/engines';
import type { PoolConfig } from 'pg';
import type { ConnectionOptions } from 'node:tls';

/** TCP keep-alive probes start after this long without traffic, so a connection a network element dropped fails. */
export const KEEP_ALIVE_INITIAL_DELAY_MS = 60_000;

/**
 * How the connector reaches Redshift: PostgreSQL's protocol, TLS 1.2+ with the certificate verified (Redshift
 * endpoints present certificates of a public CA), unless the URL says `sslmode=require` (encrypt, do not verify).
 * `tls: false` is for the suite's Redshift-dialect pair on a local PostgreSQL only. TCP keep-alive is on: a
 * connection silently dropped between the service and the cluster (a NAT or load balancer forgetting it) is
 * found dead instead of waited on forever.
 */
export function redshiftClientConfig(warehouse: WarehouseConnection, options: { connectTimeoutMs: number; tls?: boolean; dial?: DialPolicy }): PoolConfig {
  const endpoint = warehouseDialEndpointOf(warehouse.url);
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
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_INITIAL_DELAY_MS,
    application_name: 'svc-warehouse-loader',
    // Every connect through the dial guard (dial-guard.ts): the name resolved and checked again, TLS verified against it.
    stream: guardedStream(options.dial ?? DEFAULT_DIAL_POLICY),
  };
}

function redshiftTls(sslmode: string | undefined): ConnectionOptions {
  const verify = sslmode?.toLowerCase() !== 'require';
  return { minVersion: 'TLSv1.2', rejectUnauthorized: verify };
}

/**
 * What every session runs before its first statement: the bound of its statements (Redshift takes no statement_timeout
 * startup parameter), and UTC. A user's sessions start in the time zone ALTER USER … SET TIMEZONE gave them ("changes
 * the time zone for subsequent sessions", https://docs.aws.amazon.com/redshift/latest/dg/r_timezone_config.html), and
 * SYSDATE and GETDATE() answer "in the current session time zone (UTC by default)" (r_SYSDATE.html, r_GETDATE.html):
 * the loads' stamps, the batch log's UTC cut-off and the text of TIMESTAMPTZ values would follow the user's zone.
 */
export function sessionSettingsSql(statementTimeoutMs: number): string[] {
  return [`SET statement_timeout TO ${statementTimeoutMs}`, `SET timezone TO 'UTC'`];
}

/**
 * A pool whose every connection bounds its statements by Warehouse.TimeoutInMins on the server and on the client
 * (pg's query_timeout, clientBoundMs), runs in UTC (sessionSettingsSql), and never crashes the process when the server
 * drops it. A connection whose settings failed is closed, so that no statement runs in it; one whose statement timed
 * out on the client is discarded: its statement may still be running, or the connection is dead.
 */
export function createRedshiftPool(config: PoolConfig, statementTimeoutMs: number, gate: Omit<ConnectionGateOptions, 'size'>): GatedPgPool {
  if (!Number.isInteger(statementTimeoutMs) || statementTimeoutMs <= 0) throw new RangeError('statementTimeoutMs must be a positive integer');
  const pool = new GatedPgPool({ ...config, query_timeout: clientBoundMs(statementTimeoutMs) }, gate);
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // Queued ahead of the session's first statement.
    void Promise.all(sessionSettingsSql(statementTimeoutMs).map((setting) => client.query(setting))).catch(() => client.end().catch(() => undefined));
  });
  return pool;
}
