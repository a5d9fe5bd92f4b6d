import { userInfo } from 'node:os';
import type { ConnectionOptions } from 'node:tls';
import type { ClientConfig } from 'pg';
import {
  ConnectionStringError,
  DEFAULT_DIAL_POLICY,
  POSTGRES_DEFAULT_PORT,
  POSTGRES_SCHEMES,
  UNSUPPORTED_WAREHOUSE_URL,
  driverHostOf,
  guardedStream,
  hasScheme,
  parseServerUrl,
  refuseQueryHosts,
  warehouseDialEndpointOf,
  type ConnectOptions,
  type DialPolicy,
  type WarehouseConnection,
} from '@svc/engines';

/**
 * TCP keep-alive on every connection the service opens across a network: a connection a NAT or load balancer dropped
 * without a reset is found dead by the probes instead of waited on forever (pg: `stream.setKeepAlive(true, delay)`).
 */
export const KEEP_ALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 60_000 } as const;

/**
 * pg config for a `postgres://user:password@host:port/database?sslmode=…` URL.
 *
 * Everything is set explicitly so that nothing falls back to the service's own PG* environment
 * (a PGPASSWORD must never be sent to a host named in a request). The password is handed over as a
 * function, so it is not an enumerable property of the config and never shows up when it is logged.
 */
export function postgresClientConfig(connectionString: string, options: ConnectOptions): ClientConfig {
  if (!hasScheme(connectionString, POSTGRES_SCHEMES)) throw new ConnectionStringError('not a postgres:// connection string');
  const url = parseServerUrl(connectionString);
  if (url === null) throw new ConnectionStringError('malformed postgres:// connection string');
  refuseQueryHosts(url.params);
  const user = url.user ?? defaultUser();
  const applicationName = url.params.get('application_name');
  return {
    host: driverHostOf(url.host === '' ? 'localhost' : url.host),
    port: url.port ?? POSTGRES_DEFAULT_PORT,
    user,
    password: passwordOf(url.password ?? ''),
    database: url.path.length > 0 ? url.path.join('/') : user,
    ssl: postgresTls(url.params, options.encrypt),
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...KEEP_ALIVE,
    // Every connect through the dial guard: the name resolved and checked again, the checked address dialled.
    stream: guardedStream(options.dial ?? DEFAULT_DIAL_POLICY),
    ...(applicationName !== undefined && { application_name: applicationName }),
  };
}

/**
 * The startup options of a source session: pg_catalog is the only schema searched. The source role's own
 * search_path (ALTER ROLE … SET, a database default) could otherwise put a schema before pg_catalog whose
 * `format_type`, operators or types answer the catalog queries; an option sent at startup outranks those
 * settings. User-defined types are then written schema-qualified by format_type (`public.mood`).
 */
export const SOURCE_SESSION_OPTIONS = '-c search_path=pg_catalog';

/** pg config for the warehouse: PostgreSQL per the URL's sslmode; Redshift always over verified TLS. */
export function warehouseClientConfig(warehouse: WarehouseConnection, connectTimeoutMs: number, dial: DialPolicy = DEFAULT_DIAL_POLICY): ClientConfig {
  const endpoint = warehouseDialEndpointOf(warehouse.url);
  if (endpoint === null) throw new ConnectionStringError(UNSUPPORTED_WAREHOUSE_URL);
  return {
    host: endpoint.host,
    port: endpoint.port,
    user: warehouse.username,
    password: passwordOf(warehouse.password),
    database: warehouse.databaseName,
    ssl: postgresTls(endpoint.params, endpoint.engine === 'redshift'),
    connectionTimeoutMillis: connectTimeoutMs,
    ...KEEP_ALIVE,
    stream: guardedStream(dial),
  };
}

const TLS_MIN_VERSION = 'TLSv1.2';
const SSLMODES_THAT_ENCRYPT = new Set(['require', 'verify-ca', 'verify-full', 'no-verify']);

/**
 * TLS is on when the caller asks for it or the URL does (`sslmode=require|verify-ca|verify-full`, `ssl=true`).
 * The certificate is verified unless the URL says `sslmode=require` (libpq's meaning: encrypt, don't verify)
 * or `no-verify`; `verify-ca` checks the chain but not the host name. `prefer`/`allow` cannot fall back in
 * pg, so they count as off unless encryption is requested. Certificate files named in the URL are ignored:
 * a request must not make the service read local files.
 */
export function postgresTls(params: ReadonlyMap<string, string>, encrypt: boolean): false | ConnectionOptions {
  const sslmode = params.get('sslmode')?.toLowerCase();
  const ssl = params.get('ssl')?.toLowerCase();
  const requested = encrypt || (sslmode !== undefined && SSLMODES_THAT_ENCRYPT.has(sslmode)) || ssl === 'true' || ssl === '1';
  if (!requested) return false;
  if (sslmode === 'require' || sslmode === 'no-verify') return { minVersion: TLS_MIN_VERSION, rejectUnauthorized: false };
  if (sslmode === 'verify-ca') return { minVersion: TLS_MIN_VERSION, rejectUnauthorized: true, checkServerIdentity: () => undefined };
  return { minVersion: TLS_MIN_VERSION, rejectUnauthorized: true };
}

function passwordOf(password: string): () => string {
  return () => password;
}

/** libpq's default user is the operating-system user. */
function defaultUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'postgres';
  }
}
