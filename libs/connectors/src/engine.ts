import { adoValue, parseAdoConnectionString } from './ado-connection-string';
import { ADO_KEYS } from './ado-keys';
import { isHostName, parsePort, parseSqlServerAddress, stripBrackets } from './sql-server-address';
import { hasScheme, parseServerUrl } from './server-url';

export type SourceEngine = 'postgres' | 'sqlserver';
export type WarehouseEngine = 'postgres' | 'redshift';

export const POSTGRES_SCHEMES = ['postgres', 'postgresql'] as const;
export const SQL_SERVER_SCHEMES = ['mssql'] as const;
export const REDSHIFT_SCHEMES = ['redshift'] as const;

export const UNSUPPORTED_CONNECTION_STRING = 'unsupported connection string: expected postgres://…, Server=…; or mssql://…';
export const UNSUPPORTED_WAREHOUSE_URL = 'unsupported warehouse URL: expected host:port, redshift://host:port or postgres://host:port';

/** Engine named by a source or staging connection string; null when it is none of the supported forms. */
export function sourceEngineOf(connectionString: string): SourceEngine | null {
  if (hasScheme(connectionString, POSTGRES_SCHEMES)) {
    return parseServerUrl(connectionString) === null ? null : 'postgres';
  }
  if (hasScheme(connectionString, SQL_SERVER_SCHEMES)) {
    const url = parseServerUrl(connectionString);
    return url !== null && url.host !== '' ? 'sqlserver' : null;
  }
  if (/^\s*[a-z][a-z0-9+.-]*:\/\//i.test(connectionString)) return null;
  const pairs = parseAdoConnectionString(connectionString);
  if (pairs === null) return null;
  const server = adoValue(pairs, ADO_KEYS.server);
  return server !== undefined && parseSqlServerAddress(server) !== null ? 'sqlserver' : null;
}

/** Engine named by Warehouse.Url: `postgres://host:port` → PostgreSQL; `host:port` or `redshift://host:port` → Redshift. */
export function warehouseEngineOf(url: string): WarehouseEngine | null {
  return warehouseEndpointOf(url)?.engine ?? null;
}

export interface WarehouseEndpoint {
  engine: WarehouseEngine;
  host: string;
  port: number;
  /** Query parameters of a URL form (e.g. `sslmode`), lower-case names. */
  params: ReadonlyMap<string, string>;
}

export const POSTGRES_DEFAULT_PORT = 5432;
export const REDSHIFT_DEFAULT_PORT = 5439;

export function warehouseEndpointOf(url: string): WarehouseEndpoint | null {
  const text = url.trim();
  const isPostgres = hasScheme(text, POSTGRES_SCHEMES);
  if (isPostgres || hasScheme(text, REDSHIFT_SCHEMES)) {
    const parsed = parseServerUrl(text);
    if (parsed === null || parsed.host === '') return null;
    return {
      engine: isPostgres ? 'postgres' : 'redshift',
      host: parsed.host,
      port: parsed.port ?? (isPostgres ? POSTGRES_DEFAULT_PORT : REDSHIFT_DEFAULT_PORT),
      params: parsed.params,
    };
  }
  // The seed's bare form: `examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439`.
  const bare = /^(\[[^\]]+\]|[^:/\s]+):(\d+)$/.exec(text);
  if (!bare) return null;
  const host = stripBrackets(bare[1] ?? '');
  const port = parsePort(bare[2] ?? '');
  if (port === undefined || !isHostName(host)) return null;
  return { engine: 'redshift', host, port, params: new Map() };
}
