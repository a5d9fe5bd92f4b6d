import type { ConnectionPool, config as MssqlConfig } from 'mssql';
import { mssqlDriver } from './mssql-driver';
import { withLoginErrorNumbers } from './login-errors';

/**
 * The seed's EncryptDataInTransit: "the strongest transport-security protocol the server supports: TLS 1.2
 * where the server version supports it, else TLS 1.1, 1.0". A connection first offers TLS 1.2 and newer only;
 * when the server refuses that handshake (a SQL Server without TLS 1.2 support), it connects again offering
 * TLS 1.0 and 1.1 too, with OpenSSL's security level lowered as those need. SSL 3 cannot be offered: Node's
 * OpenSSL has none. Without EncryptDataInTransit tedious negotiates no TLS at all (a server that forces it is
 * refused, EENCRYPT), so the fallback matters only with it.
 */
export function withLegacyTls(config: MssqlConfig): MssqlConfig {
  return { ...config, options: { ...config.options, cryptoCredentialsDetails: { minVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' } } };
}

/** OpenSSL's ways of saying that client and server share no protocol version. */
const VERSION_REFUSALS = [
  'ERR_SSL_UNSUPPORTED_PROTOCOL',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_NO_PROTOCOLS_AVAILABLE',
  'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION',
  'ERR_SSL_UNKNOWN_PROTOCOL',
];
const VERSION_REFUSAL_TEXT = /unsupported protocol|wrong version number|no protocols available|alert protocol version|unknown protocol/i;

/** Whether a failed connection was a TLS handshake refused for its protocol version (mssql wraps the socket error, maybe twice). */
export function isTlsVersionRefusal(error: unknown): boolean {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 4; depth += 1) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && VERSION_REFUSALS.includes(code)) return true;
    if (typeof message === 'string' && VERSION_REFUSAL_TEXT.test(message)) return true;
    const next = cause as { cause?: unknown; originalError?: unknown };
    cause = next.originalError ?? next.cause;
  }
  return false;
}

/** What serves every SQL Server connection instead of the driver: set only by a test hook (SVC_TEST_HOOK_SQLSERVER_ON_POSTGRES). */
let testServer: ((config: MssqlConfig) => Promise<ConnectionPool>) | undefined;

/** Test hook only: `connect` answers every connectSqlServer from now on (libs/sqlserver/on-postgres). */
export function serveSqlServerConnectionsForTests(connect: (config: MssqlConfig) => Promise<ConnectionPool>): void {
  testServer = connect;
}

/** A connected pool: TLS 1.2+ first, the legacy protocols only when the server refused those (see withLegacyTls). */
export async function connectSqlServer(config: MssqlConfig): Promise<ConnectionPool> {
  if (testServer !== undefined) return testServer(config);
  try {
    return await connected(config);
  } catch (error) {
    if (!isTlsVersionRefusal(error)) throw error;
    return connected(withLegacyTls(config));
  }
}

async function connected(config: MssqlConfig): Promise<ConnectionPool> {
  const pool = new (mssqlDriver().ConnectionPool)(withLoginErrorNumbers(config));
  // A connection that dies while idle must not crash the process; the next request connects anew.
  pool.on('error', () => undefined);
  try {
    await pool.connect();
    return pool;
  } catch (error) {
    await pool.close().catch(() => undefined);
    throw error;
  }
}
