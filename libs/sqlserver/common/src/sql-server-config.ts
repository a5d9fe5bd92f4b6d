import type { config as MssqlConfig } from 'mssql';
import { adoBoolean, adoValue, parseAdoConnectionString } from '@svc/logging';
import { ADO_KEYS } from './ado-keys';
import { ConnectionStringError, DEFAULT_DIAL_POLICY, driverHostOf, guardedConnector, hasScheme, isHostName, parseServerUrl, type ConnectOptions } from '@svc/engines';
import { SQL_SERVER_DEFAULT_PORT, SQL_SERVER_SCHEMES, parseSqlServerAddress, type SqlServerAddress } from './sql-server-address';

/** `Encrypt=` of SqlClient: on, off, or TDS 8 strict mode. */
type EncryptSetting = boolean | 'strict';

/** What a SQL Server connection string names, whatever its form. */
interface SqlServerTarget {
  address: SqlServerAddress;
  database?: string;
  user?: string;
  password?: string;
  encrypt?: EncryptSetting;
  trustServerCertificate?: boolean;
  applicationName?: string;
}

/**
 * mssql config for an ADO string (`Server=tcp:host,1433;Database=…;User ID=…;Password=…`) or an
 * `mssql://user:password@host:port/[instance/]database?encrypt=true` URL.
 *
 * Encryption is on when the caller asks for it or the string does. TLS 1.2 and newer are offered; a server
 * that refuses them is connected to again with TLS 1.0/1.1 as well (connectSqlServer, tls-fallback.ts).
 * The certificate is verified when encrypting unless the string says TrustServerCertificate=true; when not
 * encrypting, tedious offers no encryption at all (the login packet too goes in clear, README's SQL Server
 * section); a server that forces encryption refuses with EENCRYPT (sql-server-failure.ts).
 * requestTimeout is left to the caller.
 */
export function sqlServerConfig(connectionString: string, options: ConnectOptions): MssqlConfig {
  const target = sqlServerTarget(connectionString);
  const encrypt: EncryptSetting = options.encrypt ? (target.encrypt === 'strict' ? 'strict' : true) : (target.encrypt ?? false);
  const { host, port, instanceName } = target.address;
  return {
    server: driverHostOf(host),
    // A port wins over an instance name, as in SqlClient; without either the default port applies.
    ...(port !== undefined || instanceName === undefined ? { port: port ?? SQL_SERVER_DEFAULT_PORT } : {}),
    ...(target.user !== undefined && { user: target.user }),
    ...(target.password !== undefined && { password: target.password }),
    ...(target.database !== undefined && { database: target.database }),
    connectionTimeout: options.connectTimeoutMs,
    options: {
      encrypt,
      trustServerCertificate: target.trustServerCertificate ?? encrypt === false,
      ...(port === undefined && instanceName !== undefined && { instanceName }),
      ...(target.applicationName !== undefined && { appName: target.applicationName }),
      cryptoCredentialsDetails: { minVersion: 'TLSv1.2' },
      // Every connect (a redirect's too) through the dial guard: the name resolved and checked again, the checked address dialled.
      connector: guardedConnector(options.dial ?? DEFAULT_DIAL_POLICY),
    },
  };
}

/** The database a SQL Server connection string names, or undefined. Throws ConnectionStringError when unparseable. */
export function sqlServerDatabaseName(connectionString: string): string | undefined {
  return sqlServerTarget(connectionString).database;
}

function sqlServerTarget(connectionString: string): SqlServerTarget {
  return hasScheme(connectionString, SQL_SERVER_SCHEMES) ? urlTarget(connectionString) : adoTarget(connectionString);
}

function urlTarget(connectionString: string): SqlServerTarget {
  const url = parseServerUrl(connectionString);
  if (url === null || url.host === '' || !isHostName(url.host)) throw new ConnectionStringError('malformed mssql:// connection string');
  if (url.path.length > 2) throw new ConnectionStringError('mssql:// path must be /database or /instance/database');
  const [first, second] = url.path;
  const instanceName = second === undefined ? undefined : first;
  const database = second ?? first;
  const encrypt = encryptSetting(url.params.get('encrypt'));
  const trustServerCertificate = adoBoolean(url.params.get('trustservercertificate'));
  const applicationName = url.params.get('appname') ?? url.params.get('application name');
  return {
    address: {
      host: url.host,
      ...(url.port !== undefined && { port: url.port }),
      ...(instanceName !== undefined && { instanceName }),
    },
    ...(database !== undefined && { database }),
    ...(url.user !== undefined && { user: url.user }),
    ...(url.password !== undefined && { password: url.password }),
    ...(encrypt !== undefined && { encrypt }),
    ...(trustServerCertificate !== undefined && { trustServerCertificate }),
    ...(applicationName !== undefined && { applicationName }),
  };
}

function adoTarget(connectionString: string): SqlServerTarget {
  const pairs = parseAdoConnectionString(connectionString);
  if (pairs === null) throw new ConnectionStringError('malformed connection string: expected Key=Value; pairs');
  const server = adoValue(pairs, ADO_KEYS.server);
  if (server === undefined) throw new ConnectionStringError('connection string has no Server= or Data Source=');
  const address = parseSqlServerAddress(server);
  if (address === null) throw new ConnectionStringError('Server= must name a TCP host: host, host,port or host\\instance');
  const database = nonEmpty(adoValue(pairs, ADO_KEYS.database));
  const user = nonEmpty(adoValue(pairs, ADO_KEYS.user));
  const password = adoValue(pairs, ADO_KEYS.password);
  const encrypt = encryptSetting(adoValue(pairs, ADO_KEYS.encrypt));
  const trustServerCertificate = adoBoolean(adoValue(pairs, ADO_KEYS.trustServerCertificate));
  const applicationName = nonEmpty(adoValue(pairs, ADO_KEYS.applicationName));
  return {
    address,
    ...(database !== undefined && { database }),
    ...(user !== undefined && { user }),
    ...(password !== undefined && { password }),
    ...(encrypt !== undefined && { encrypt }),
    ...(trustServerCertificate !== undefined && { trustServerCertificate }),
    ...(applicationName !== undefined && { applicationName }),
  };
}

function encryptSetting(value: string | undefined): EncryptSetting | undefined {
  const word = value?.trim().toLowerCase();
  if (word === 'strict') return 'strict';
  if (word === 'mandatory') return true;
  if (word === 'optional') return false;
  return adoBoolean(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
