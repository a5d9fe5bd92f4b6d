import { AUTHENTICATION_FAILED_REASON, UNREACHABLE_REASON, isRecord, messageOf, type FailureContext } from '@svc/engines';
import { loginErrorNumbers } from './login-errors';

/**
 * mssql ConnectionError codes (tedious's, copied onto the mssql error; mssql lib/error/connection-error.js names
 * it 'ConnectionError') of an attempt that reached no SQL Server speaking TDS. tedious 19 lib/connection.js raises
 * ETIMEOUT when connectTimeout passes, ESOCKET for a socket error (refused, unknown host, reset, TLS), EINSTLOOKUP
 * when the SQL Browser does not name the instance's port, EENCRYPT when the server demands encryption the client
 * did not ask for (a run retries it; a Create or Alter is refused with ENCRYPTION_REQUIRED_REASON). One reason for
 * the others: telling them apart would say which hosts and ports are open.
 */
const UNREACHABLE_CODES = new Set(['ETIMEOUT', 'ESOCKET', 'EINSTLOOKUP', 'EENCRYPT']);

/** Whether an mssql error is a ConnectionError of an attempt that reached no SQL Server. */
export function isSqlServerUnreachable(error: unknown): boolean {
  return isRecord(error) && error['name'] === 'ConnectionError' && typeof error['code'] === 'string' && UNREACHABLE_CODES.has(error['code']);
}

/**
 * EncryptDataInTransit=false is tedious's encrypt: false, which offers no encryption in PRELOGIN; a server that
 * forces it (Azure SQL always) answers ENCRYPT_REQ and tedious refuses (lib/connection.js:2263-2265). The server
 * was reached, and the cure is the field.
 */
export const ENCRYPTION_REQUIRED_REASON = 'the server requires encryption: set EncryptDataInTransit to true';

/** mssql ConnectionError codes (tedious codes copied onto the mssql error). */
export function sqlServerFailureReason(error: unknown, context: FailureContext): string | undefined {
  if (!isRecord(error) || error['name'] !== 'ConnectionError') return undefined;
  if (error['code'] === 'EENCRYPT') return ENCRYPTION_REQUIRED_REASON;
  if (error['code'] === 'ELOGIN') {
    // SQL Server says the same (4060, then 18456 "Login failed") for a missing database and one the login may not open.
    if (loginErrorNumbers(error).includes(4060) || /cannot open database/i.test(messageOf(error))) {
      return context.database === undefined ? 'cannot open database' : `cannot open database "${context.database}"`;
    }
    return AUTHENTICATION_FAILED_REASON;
  }
  return isSqlServerUnreachable(error) ? UNREACHABLE_REASON : undefined;
}
