import { isRecord, messageOf, timedOutReason, type FailureContext } from '@svc/engines';

/** How PostgreSQL (pg) words a failed connection attempt: SQLSTATEs, then the driver's fixed texts; undefined for other errors. */
export function postgresFailureReason(error: unknown, context: FailureContext): string | undefined {
  return postgresServerReason(error, context) ?? driverTextReason(error, context);
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
