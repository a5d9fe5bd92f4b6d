import { AUTHENTICATION_FAILED_REASON, UNREACHABLE_REASON, isRecord, type EngineErrorKind, type FailureContext } from '@svc/engines';

/**
 * MySQL and MariaDB server error numbers and what they mean for the pipeline ("Server Error Message Reference",
 * https://dev.mysql.com/doc/mysql-errors/8.0/en/server-error-reference.html; MariaDB's "MariaDB Error Codes"). Any
 * other numbered error is a statement that retrying cannot cure.
 */
export const MYSQL_ERROR_KINDS: readonly { numbers: readonly number[]; kind: EngineErrorKind; means: string }[] = [
  { numbers: [1045, 1698, 1862, 1820], kind: 'authentication-failed', means: 'access denied for the user (password), password expired or must be changed' },
  { numbers: [1049], kind: 'database-missing', means: 'unknown database' },
  { numbers: [1146, 1054, 1109], kind: 'object-missing', means: 'table or column does not exist' },
  { numbers: [1044, 1142, 1143, 1227, 1370], kind: 'permission-denied', means: 'command or privilege denied to the user' },
  { numbers: [1205, 1213, 1040, 1203, 1053, 1927, 3024, 1969, 1317, 1180, 1181, 1159, 1160, 1161, 1158, 1614, 3058], kind: 'transient', means: 'lock wait timeout, deadlock (3058: of GET_LOCK, MySQL 5.7+), too many connections, server shutdown, connection killed, statement timeout, network read/write errors' },
  { numbers: [1236], kind: 'changes-purged', means: 'the replica could not read the binary log (the file named was purged)' },
  { numbers: [1062, 1048, 1264, 1406, 1366, 1292, 1452, 1451, 1690, 3140], kind: 'invalid-data', means: 'duplicate key, NULL into NOT NULL, out of range, too long, incorrect value, foreign key, invalid JSON' },
];

/** Client-side codes of mysql2 (lib/connection.js, lib/packets): a connection lost or never made. */
const TRANSIENT_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'POOL_CLOSED']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'HANDSHAKE_NO_SSL_SUPPORT', 'HANDSHAKE_SSL_ERROR']);

/** A mysql2 error: a server error carries errno and sqlState; a connection failure is marked `fatal`. */
function isMysqlError(error: unknown): error is Record<string, unknown> {
  return isRecord(error) && error['severity'] === undefined && (typeof error['sqlState'] === 'string' || error['fatal'] === true || (typeof error['code'] === 'string' && /^(?:ER_|PROTOCOL_|HANDSHAKE_)/.test(error['code'])));
}

export function mysqlErrorKind(error: unknown): EngineErrorKind | undefined {
  if (!isMysqlError(error)) return undefined;
  const errno = error['errno'];
  const code = typeof error['code'] === 'string' ? error['code'] : '';
  if (typeof errno === 'number' && typeof error['sqlState'] === 'string') {
    return MYSQL_ERROR_KINDS.find((entry) => entry.numbers.includes(errno))?.kind ?? 'statement-failed';
  }
  if (UNREACHABLE_CODES.has(code)) return 'unreachable';
  if (TRANSIENT_CODES.has(code)) return 'transient';
  return error['fatal'] === true ? 'transient' : undefined;
}

/** How a failed MySQL connection attempt is worded: its server's refusal, or the one unreachable reason; undefined for another driver's error. */
export function mysqlFailureReason(error: unknown, context: FailureContext): string | undefined {
  if (!isMysqlError(error)) return undefined;
  const errno = error['errno'];
  switch (errno) {
    case 1045:
    case 1698:
    case 1862:
    case 1820:
      return AUTHENTICATION_FAILED_REASON;
    case 1049:
      return context.database === undefined ? 'database does not exist' : `database "${context.database}" does not exist`;
    case 1044:
      return 'permission denied';
    case 1040:
      return 'too many connections';
    default:
      return typeof errno === 'number' && typeof error['sqlState'] === 'string' ? `server refused the connection (error ${errno})` : UNREACHABLE_REASON;
  }
}
