import { AUTHENTICATION_FAILED_REASON, UNREACHABLE_REASON, isRecord, messageOf, type FailureContext } from '@svc/engines';

/** How PostgreSQL (pg) words a failed connection attempt: SQLSTATEs, then the driver's fixed texts; undefined for other errors. */
export function postgresFailureReason(error: unknown, context: FailureContext): string | undefined {
  return postgresServerReason(error, context) ?? driverTextReason(error);
}

/** SQLSTATE codes of PostgreSQL (and Redshift) errors raised while connecting. */
function postgresServerReason(error: unknown, context: FailureContext): string | undefined {
  if (!isRecord(error) || typeof error['severity'] !== 'string') return undefined;
  const code = error['code'];
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  switch (code) {
    case '28P01':
    case '28000':
      return AUTHENTICATION_FAILED_REASON;
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

/**
 * Fixed texts pg uses for conditions that carry no code: no TLS offered, the connect timeout, a connection
 * closed before the server spoke. Each is a "cannot reach" (UNREACHABLE_REASON): telling them apart would say
 * which ports are open. pg 8 words them so in lib/connection.js and lib/client.js.
 */
const UNREACHABLE_TEXTS = new Set([
  'The server does not support SSL connections',
  'timeout expired',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
]);

function driverTextReason(error: unknown): string | undefined {
  return UNREACHABLE_TEXTS.has(messageOf(error)) ? UNREACHABLE_REASON : undefined;
}

/** Whether a pg error is one of its fixed texts of an attempt that reached no PostgreSQL server. */
export function isPostgresUnreachable(error: unknown): boolean {
  return UNREACHABLE_TEXTS.has(messageOf(error));
}
