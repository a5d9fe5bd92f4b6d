import { driverHostOf, refuseQueryHosts } from './dial-host';
import { isHostName, parsePort, stripBrackets } from './host-port';
import { hasScheme, parseServerUrl } from './server-url';

/** The engines a Warehouse.Url can name. */
export type WarehouseEngine = 'postgres' | 'redshift';

export const POSTGRES_SCHEMES = ['postgres', 'postgresql'] as const;
export const REDSHIFT_SCHEMES = ['redshift'] as const;
export const POSTGRES_DEFAULT_PORT = 5432;
export const REDSHIFT_DEFAULT_PORT = 5439;

export const UNSUPPORTED_WAREHOUSE_URL = 'unsupported warehouse URL: expected host:port, redshift://host:port or postgres://host:port';

export interface WarehouseEndpoint {
  engine: WarehouseEngine;
  host: string;
  port: number;
  /** Query parameters of a URL form (e.g. `sslmode`), lower-case names. */
  params: ReadonlyMap<string, string>;
  /** Whether the URL carries a user name or password (the API refuses that: they belong in Username and Password). */
  hasCredentials: boolean;
}

/**
 * The warehouse URL grammar, in one place: `postgres://host:port` is PostgreSQL; the seed's bare
 * `host:port` and `redshift://host:port` are Redshift. Null when the URL is none of these.
 */
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
      hasCredentials: parsed.user !== undefined || parsed.password !== undefined,
    };
  }
  // The seed's bare form: `examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439`.
  const bare = /^(\[[^\]]+\]|[^:/\s]+):(\d+)$/.exec(text);
  if (!bare) return null;
  const written = bare[1] ?? '';
  const host = stripBrackets(written);
  const port = parsePort(bare[2] ?? '');
  // Brackets are for an IPv6 address only (`[::1]:5439`), as in a URL.
  const bracketsFit = written === host || host.includes(':');
  if (port === undefined || !isHostName(host) || !bracketsFit) return null;
  return { engine: 'redshift', host, port, params: new Map(), hasCredentials: false };
}

/**
 * What a warehouse driver connects to for a Warehouse.Url: its endpoint, the host as the driver is given it
 * (driverHostOf). Null when the URL is no warehouse URL; throws UnsafeHostError for a host no driver may dial.
 */
export function warehouseDialEndpointOf(url: string): WarehouseEndpoint | null {
  const endpoint = warehouseEndpointOf(url);
  if (endpoint === null) return null;
  refuseQueryHosts(endpoint.params);
  return { ...endpoint, host: driverHostOf(endpoint.host) };
}

/** Engine named by Warehouse.Url, or null. */
export function warehouseEngineOf(url: string): WarehouseEngine | null {
  return warehouseEndpointOf(url)?.engine ?? null;
}
