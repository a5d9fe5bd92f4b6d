import type { EngineErrorKind } from '@svc/engines';
import { sqlServerErrorKind } from './sql-server-errors';

const withCode = (code: string) => Object.assign(new Error(code), { code });
/** mssql 12's ConnectionError (lib/error/connection-error.js: name 'ConnectionError', tedious's code copied). */
const connectionError = (code: string) => Object.assign(new Error(code), { name: 'ConnectionError', code });
/** mssql 12's RequestError (lib/error/request-error.js); tedious 19 raises ETIMEOUT on it when requestTimeout passes (lib/connection.js requestTimeout()). */
const requestError = (code: string) => Object.assign(new Error(code), { name: 'RequestError', code });
const numbered = (number: number) => Object.assign(new Error(`error ${number}`), { number, code: 'EREQUEST' });

describe('sqlServerErrorKind', () => {
  it.each<[string, unknown, EngineErrorKind]>([
    ['login failed', withCode('ELOGIN'), 'authentication-failed'],
    ['connection timeout', withCode('ETIMEOUT'), 'transient'],
    ['socket error', withCode('ESOCKET'), 'transient'],
    ['connection closed', withCode('ECONNCLOSED'), 'transient'],
    // mssql (lib/base/connection-pool.js _acquire) prefixes tarn's TimeoutError, a plain Error without code or number.
    ['pool acquire timeout', new Error('Failed to acquire a connection from the pool: operation timed out for an unknown reason'), 'transient'],
    ['connect timeout (ConnectionError ETIMEOUT)', connectionError('ETIMEOUT'), 'unreachable'],
    ['socket error (ConnectionError ESOCKET)', connectionError('ESOCKET'), 'unreachable'],
    ['instance lookup (ConnectionError EINSTLOOKUP)', connectionError('EINSTLOOKUP'), 'unreachable'],
    ['encryption demanded (ConnectionError EENCRYPT)', connectionError('EENCRYPT'), 'unreachable'],
    ['login failed (ConnectionError ELOGIN)', connectionError('ELOGIN'), 'authentication-failed'],
    ['request timeout (RequestError ETIMEOUT): a busy server', requestError('ETIMEOUT'), 'transient'],
    ['deadlock victim 1205', numbered(1205), 'transient'],
    ['Azure SQL busy 40501', numbered(40501), 'transient'],
    ['Azure SQL database unavailable 40613', numbered(40613), 'transient'],
    ['cannot open database 4060', numbered(4060), 'transient'],
    ['invalid object name 208', numbered(208), 'object-missing'],
    ['invalid column name 207', numbered(207), 'object-missing'],
    ['string or binary data truncated 8152', numbered(8152), 'invalid-data'],
    ['duplicate key 2627', numbered(2627), 'invalid-data'],
    ['NULL into NOT NULL 515', numbered(515), 'invalid-data'],
    ['login failed 18456', numbered(18456), 'authentication-failed'],
    ['password expired 18487', numbered(18487), 'authentication-failed'],
    ['snapshot isolation not allowed yet 3952', numbered(3952), 'transient'],
    ['snapshot isolation switched inside a transaction 3951', numbered(3951), 'statement-failed'],
    ['snapshot update conflict 3960', numbered(3960), 'transient'],
    ['lock timeout 1222', numbered(1222), 'transient'],
    ['database does not exist 911', numbered(911), 'database-missing'],
    ['permission denied 229', numbered(229), 'permission-denied'],
    ['change tracking not enabled 22105', numbered(22105), 'not-tracked'],
    ['any other numbered error', numbered(50000), 'statement-failed'],
    // Issue 21 item 12: retryable errors that stopped a table, and the permission list.
    ['snapshot read of an object changed by DDL 3961', numbered(3961), 'transient'],
    ['ALTER DATABASE denied 5011', numbered(5011), 'permission-denied'],
    ['a value longer than its staging column keeps 51020 (staging-sql.ts valueLengthGuardSql)', numbered(51020), 'invalid-data'],
    ['read-secondary login waiting for versioning 4221', numbered(4221), 'transient'],
    ['transport-level error 10053', numbered(10053), 'transient'],
    ['transport-level error 10054', numbered(10054), 'transient'],
    ['connection attempt timed out 10060', numbered(10060), 'transient'],
    ['no process on the other end of the pipe 233', numbered(233), 'transient'],
    ['Azure SQL: database unavailable 40143', numbered(40143), 'transient'],
    ['Azure SQL: service error 40540', numbered(40540), 'transient'],
    ['Azure Synapse SQL pool not available 42108', numbered(42108), 'transient'],
    ['Azure Synapse SQL pool not available 42109', numbered(42109), 'transient'],
  ])('%s is %s', (_name, error, kind) => {
    expect(sqlServerErrorKind(error)).toBe(kind);
  });

  it.each<[string, unknown]>([
    ['a PostgreSQL error', Object.assign(new Error('x'), { code: '42P01' })],
    ['a Node socket error', withCode('ECONNRESET')],
    ['a plain error', new Error('odd')],
    ['undefined', undefined],
  ])('leaves %s to others', (_name, error) => {
    expect(sqlServerErrorKind(error)).toBeUndefined();
  });
});
