import { isRecord, messageOf, timedOutReason, type FailureContext } from '@svc/engines';

/** mssql ConnectionError codes (tedious codes copied onto the mssql error). */
export function sqlServerFailureReason(error: unknown, context: FailureContext): string | undefined {
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
