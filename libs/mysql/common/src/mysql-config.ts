import type { Socket } from 'node:net';
import {
  ConnectionStringError,
  DEFAULT_DIAL_POLICY,
  GuardedSocket,
  driverHostOf,
  hasScheme,
  parseServerUrl,
  refuseQueryHosts,
  type ConnectOptions,
} from '@svc/engines';
import type { ConnectionOptions } from 'mysql2';

/** The schemes of a MySQL or MariaDB connection string: one engine serves both servers. */
export const MYSQL_SCHEMES = ['mysql', 'mariadb'] as const;
export const MYSQL_DEFAULT_PORT = 3306;

/**
 * Query parameters a connection string may carry: TLS beyond EncryptDataInTransit (`ssl-mode` as MySQL's clients
 * spell it). Anything else is refused, naming it, so that a setting the user relies on is never silently ignored.
 */
const SSL_MODES = ['disabled', 'preferred', 'required', 'verify_ca', 'verify_identity'] as const;
type SslMode = (typeof SSL_MODES)[number];

/** Every session of the service: UTC for TIMESTAMP's text, utf8mb4 for every character set, no statement of its own may fold a value. */
export const SESSION_TIME_ZONE = '+00:00';

/**
 * mysql2's options for a `mysql://` or `mariadb://` connection string: host, port, user, password and database from
 * the URL, TLS from EncryptDataInTransit or `ssl-mode`, every socket dialled through the dial policy, every value
 * handed back as the server's text (no JavaScript number or Date ever holds one). The string itself is never kept.
 */
export function mysqlConnectionOptions(connectionString: string, options: ConnectOptions): ConnectionOptions {
  if (!hasScheme(connectionString, MYSQL_SCHEMES)) throw new ConnectionStringError('not a mysql:// or mariadb:// connection string');
  const url = parseServerUrl(connectionString);
  if (url === null) throw new ConnectionStringError('malformed mysql:// connection string');
  refuseQueryHosts(url.params);
  const unknown = [...url.params.keys()].filter((name) => name !== 'ssl-mode' && name !== 'sslmode');
  if (unknown.length > 0) throw new ConnectionStringError(`the mysql:// connection string has parameters this service does not read (${unknown.join(', ')}): only ssl-mode is read`);
  if (url.path.length > 1) throw new ConnectionStringError('a mysql:// connection string names at most one database as its path (mysql://user:password@host:3306/database; without one, every database of the server)');
  const host = driverHostOf(url.host === '' ? 'localhost' : url.host);
  const port = url.port ?? MYSQL_DEFAULT_PORT;
  const policy = options.dial ?? DEFAULT_DIAL_POLICY;
  const ssl = mysqlTls(sslModeOf(url.params), options.encrypt);
  return {
    host,
    port,
    user: url.user ?? 'root',
    password: url.password ?? '',
    ...(url.path[0] !== undefined && { database: url.path[0] }),
    connectTimeout: options.connectTimeoutMs,
    charset: 'utf8mb4_general_ci',
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    multipleStatements: false,
    enableKeepAlive: true,
    keepAliveInitialDelay: 60_000,
    ...(ssl !== undefined && { ssl }),
    // The engines' GuardedSocket: a name through the guarded lookup, and an address literal (which net.connect never
    // hands its lookup) checked before it is dialled.
    stream: (): Socket => new GuardedSocket(policy).connect({ host, port }),
  };
}

function sslModeOf(params: ReadonlyMap<string, string>): SslMode | undefined {
  const given = (params.get('ssl-mode') ?? params.get('sslmode'))?.toLowerCase();
  if (given === undefined) return undefined;
  const mode = SSL_MODES.find((candidate) => candidate === given);
  if (mode === undefined) throw new ConnectionStringError(`ssl-mode must be one of ${SSL_MODES.join(', ')}`);
  return mode;
}

/**
 * TLS as EncryptDataInTransit asks (a verified certificate, TLS 1.2 or later), or as `ssl-mode` says when it asks for
 * more or names a looser check: `required` encrypts without verifying; `verify_ca` verifies as `verify_identity` does
 * (mysql2 checks the name whenever it checks the chain).
 * `disabled` with EncryptDataInTransit true is refused by the caller's contract: encryption was asked for.
 */
function mysqlTls(mode: SslMode | undefined, encrypt: boolean): ConnectionOptions['ssl'] | undefined {
  if (mode === 'disabled' && encrypt) throw new ConnectionStringError('ssl-mode=disabled contradicts EncryptDataInTransit true');
  const wanted = encrypt || mode === 'required' || mode === 'verify_ca' || mode === 'verify_identity';
  if (!wanted) return undefined;
  if (mode === 'required') return { minVersion: 'TLSv1.2', rejectUnauthorized: false };
  return { minVersion: 'TLSv1.2', rejectUnauthorized: true };
}

/** `mysql://host:port/database` in lower case (the identity two strings naming one database share; no database: the server's), or null. */
export function mysqlIdentity(connectionString: string): string | null {
  try {
    const config = mysqlConnectionOptions(connectionString, { encrypt: false, connectTimeoutMs: 1 });
    return `mysql://${String(config.host)}:${String(config.port)}/${config.database ?? ''}`.toLowerCase();
  } catch {
    return null;
  }
}
