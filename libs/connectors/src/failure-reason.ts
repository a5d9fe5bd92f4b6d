/**
 * Short, secret-free reasons for failed connection attempts, from pg, mssql/tedious and Node socket errors.
 * Driver messages are never passed through whole: only codes are inspected, plus a few fixed texts.
 */

export interface FailureContext {
  /** The database the attempt named, for "database does not exist". */
  database?: string;
  timeoutMs: number;
}

export function timedOutReason(timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return `timed out after ${seconds} s`;
}

export function connectionFailureReason(error: unknown, context: FailureContext): string {
  return (
    postgresServerReason(error, context) ??
    sqlServerReason(error, context) ??
    driverTextReason(error, context) ??
    socketReason(error, context) ??
    'connection failed'
  );
}

/** SQLSTATE codes of PostgreSQL (and Redshift) errors raised while connecting. */
function postgresServerReason(error: unknown, context: FailureContext): string | undefined {
  if (!isRecord(error) || typeof error['severity'] !== 'string') return undefined;
  const code = error['code'];
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  switch (code) {
    case '28P01':
    case '28000':
      return 'authentication failed';
    case '3D000':
      return context.database === undefined ? 'database does not exist' : `database "${context.database}" does not exist`;
    case '42501':
      return 'permission denied';
    case '53300':
      return 'too many connections';
    case '57P03':
      return 'server is not accepting connections yet';
    default:
      return `server refused the connection (SQLSTATE ${code})`;
  }
}

/** mssql ConnectionError codes (tedious codes copied onto the mssql error). */
function sqlServerReason(error: unknown, context: FailureContext): string | undefined {
  if (!isRecord(error) || error['name'] !== 'ConnectionError') return undefined;
  switch (error['code']) {
    case 'ELOGIN':
      // SQL Server says the same for a missing database and one the login may not open.
      if (/cannot open database/i.test(messageOf(error))) {
        return context.database === undefined ? 'cannot open database' : `cannot open database "${context.database}"`;
      }
      return 'authentication failed';
    case 'ETIMEOUT':
      return timedOutReason(context.timeoutMs);
    case 'EINSTLOOKUP':
      return 'SQL Server instance not found';
    default:
      return undefined;
  }
}

/** Fixed texts pg uses for conditions that carry no code. */
function driverTextReason(error: unknown, context: FailureContext): string | undefined {
  const message = messageOf(error);
  if (message === 'The server does not support SSL connections') return 'server does not support encrypted connections';
  if (message === 'timeout expired' || message === 'Connection terminated due to connection timeout') {
    return timedOutReason(context.timeoutMs);
  }
  if (message === 'Connection terminated unexpectedly') return 'connection closed by server';
  return undefined;
}

const SOCKET_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EAI_NONAME: 'host not found',
  ECONNRESET: 'connection reset by server',
  EPIPE: 'connection reset by server',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'host unreachable',
  EPROTO: 'TLS handshake failed',
};

const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Node socket and TLS codes, searched through wrapped errors (mssql → tedious → AggregateError → socket error). */
function socketReason(error: unknown, context: FailureContext): string | undefined {
  for (const candidate of errorChain(error)) {
    const code = candidate['code'];
    if (typeof code !== 'string') continue;
    if (code === 'ETIMEDOUT') return timedOutReason(context.timeoutMs);
    const reason = SOCKET_REASONS[code];
    if (reason !== undefined) return reason;
    if (CERTIFICATE_CODES.has(code)) return `server certificate not trusted (${code})`;
    if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'TLS handshake failed';
  }
  return undefined;
}

/** The error and everything it wraps (cause, originalError, AggregateError.errors), breadth first. */
function errorChain(error: unknown): Record<string, unknown>[] {
  const chain: Record<string, unknown>[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < 16) {
    const next = queue.shift();
    if (!isRecord(next) || chain.includes(next)) continue;
    chain.push(next);
    queue.push(next['cause'], next['originalError']);
    const inner = next['errors'];
    if (Array.isArray(inner)) queue.push(...(inner as unknown[]));
  }
  return chain;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function messageOf(error: unknown): string {
  return isRecord(error) && typeof error['message'] === 'string' ? error['message'] : '';
}
