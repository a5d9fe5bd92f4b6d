import { AUTHENTICATION_FAILED_REASON, UNREACHABLE_REASON, type EngineErrorKind } from '@svc/engines';
import { MYSQL_ERROR_KINDS, mysqlErrorKind, mysqlFailureReason } from './mysql-errors';

/** A server error as mysql2 hands it over (lib/packets/packet.js asError): code, errno, sqlState and the server's message. */
function serverError(code: string, errno: number, sqlState: string, sqlMessage = 'the server says something about secret_table'): Error {
  return Object.assign(new Error(sqlMessage), { code, errno, sqlState, sqlMessage });
}

/** A client-side error of mysql2: a code, and `fatal` when the connection is gone with it. */
function clientError(code: string, fatal = true): Error {
  return Object.assign(new Error(`${code} at secret-host:3306`), { code, ...(fatal && { fatal: true }) });
}

describe('mysqlErrorKind: server errors by number', () => {
  it.each<[string, number, string, EngineErrorKind]>([
    ['ER_ACCESS_DENIED_ERROR', 1045, '28000', 'authentication-failed'],
    ['ER_ACCESS_DENIED_NO_PASSWORD_ERROR', 1698, '28000', 'authentication-failed'],
    ['ER_MUST_CHANGE_PASSWORD', 1820, 'HY000', 'authentication-failed'],
    ['ER_MUST_CHANGE_PASSWORD_LOGIN', 1862, 'HY000', 'authentication-failed'],
    ['ER_BAD_DB_ERROR', 1049, '42000', 'database-missing'],
    ['ER_NO_SUCH_TABLE', 1146, '42S02', 'object-missing'],
    ['ER_BAD_FIELD_ERROR', 1054, '42S22', 'object-missing'],
    ['ER_UNKNOWN_TABLE', 1109, '42S02', 'object-missing'],
    ['ER_DBACCESS_DENIED_ERROR', 1044, '42000', 'permission-denied'],
    ['ER_TABLEACCESS_DENIED_ERROR', 1142, '42000', 'permission-denied'],
    ['ER_COLUMNACCESS_DENIED_ERROR', 1143, '42000', 'permission-denied'],
    ['ER_SPECIFIC_ACCESS_DENIED_ERROR', 1227, '42000', 'permission-denied'],
    ['ER_PROCACCESS_DENIED_ERROR', 1370, '42000', 'permission-denied'],
    // "Variable '%s' is a %s variable" (a read-only or session-only variable): a statement error, not a privilege.
    ['ER_INCORRECT_GLOBAL_LOCAL_VAR', 1238, 'HY000', 'statement-failed'],
    ['ER_LOCK_WAIT_TIMEOUT', 1205, 'HY000', 'transient'],
    ['ER_LOCK_DEADLOCK', 1213, '40001', 'transient'],
    ['ER_CON_COUNT_ERROR', 1040, '08004', 'transient'],
    ['ER_TOO_MANY_USER_CONNECTIONS', 1203, '42000', 'transient'],
    ['ER_SERVER_SHUTDOWN', 1053, '08S01', 'transient'],
    ['ER_CONNECTION_KILLED (MariaDB)', 1927, '70100', 'transient'],
    ['ER_QUERY_TIMEOUT (MySQL)', 3024, 'HY000', 'transient'],
    ['ER_STATEMENT_TIMEOUT (MariaDB)', 1969, '70100', 'transient'],
    ['ER_QUERY_INTERRUPTED', 1317, '70100', 'transient'],
    ['ER_NET_READ_ERROR', 1158, '08S01', 'transient'],
    ['ER_NET_WRITE_INTERRUPTED', 1161, '08S01', 'transient'],
    ['ER_XA_RBDEADLOCK', 1614, 'XA102', 'transient'],
    // The staging's DDL lock (GET_LOCK) chosen as a deadlock's victim (MySQL; MariaDB says 1213).
    ['ER_USER_LOCK_DEADLOCK (MySQL)', 3058, 'HY000', 'transient'],
    ['ER_MASTER_FATAL_ERROR_READING_BINLOG', 1236, 'HY000', 'changes-purged'],
    ['ER_DUP_ENTRY', 1062, '23000', 'invalid-data'],
    ['ER_BAD_NULL_ERROR', 1048, '23000', 'invalid-data'],
    ['ER_WARN_DATA_OUT_OF_RANGE', 1264, '22003', 'invalid-data'],
    ['ER_DATA_TOO_LONG', 1406, '22001', 'invalid-data'],
    ['ER_TRUNCATED_WRONG_VALUE_FOR_FIELD', 1366, 'HY000', 'invalid-data'],
    ['ER_TRUNCATED_WRONG_VALUE', 1292, '22007', 'invalid-data'],
    ['ER_NO_REFERENCED_ROW_2', 1452, '23000', 'invalid-data'],
    ['ER_ROW_IS_REFERENCED_2', 1451, '23000', 'invalid-data'],
    ['ER_DATA_OUT_OF_RANGE', 1690, '22003', 'invalid-data'],
    ['ER_INVALID_JSON_TEXT (MySQL)', 3140, '22032', 'invalid-data'],
    ['ER_PARSE_ERROR', 1064, '42000', 'statement-failed'],
    ['ER_TABLE_EXISTS_ERROR', 1050, '42S01', 'statement-failed'],
  ])('%s (%i) is %s', (code, errno, sqlState, kind) => {
    expect(mysqlErrorKind(serverError(code.split(' ')[0] ?? code, errno, sqlState))).toBe(kind);
  });

  it('lists each number once', () => {
    const numbers = MYSQL_ERROR_KINDS.flatMap((entry) => entry.numbers);
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('reads a server error by its number even when the code is one mysql2 does not know', () => {
    expect(mysqlErrorKind(serverError('UNKNOWN_CODE_PLEASE_REPORT', 1213, '40001'))).toBe('transient');
  });
});

describe('mysqlErrorKind: client errors of mysql2', () => {
  it.each<[string, boolean, EngineErrorKind]>([
    ['PROTOCOL_CONNECTION_LOST', true, 'transient'],
    ['PROTOCOL_SEQUENCE_TIMEOUT', true, 'transient'],
    ['ECONNRESET', true, 'transient'],
    ['EPIPE', true, 'transient'],
    ['ETIMEDOUT', true, 'transient'],
    ['ECONNREFUSED', true, 'unreachable'],
    ['ENOTFOUND', true, 'unreachable'],
    ['EHOSTUNREACH', true, 'unreachable'],
    ['EAI_AGAIN', true, 'unreachable'],
    ['HANDSHAKE_NO_SSL_SUPPORT', true, 'unreachable'],
    ['HANDSHAKE_SSL_ERROR', false, 'unreachable'],
    ['PROTOCOL_CONNECTION_LOST', false, 'transient'],
    // Any other fatal error: the connection is gone, and another one may work.
    ['ERR_SOMETHING_ELSE', true, 'transient'],
  ])('%s (fatal: %s) is %s', (code, fatal, kind) => {
    expect(mysqlErrorKind(clientError(code, fatal))).toBe(kind);
  });
});

describe("mysqlErrorKind: other drivers' errors are not its to classify", () => {
  it.each<[string, unknown]>([
    ['a pg error (severity, code, no sqlState)', Object.assign(new Error('relation does not exist'), { severity: 'ERROR', code: '42P01' })],
    ['a pg-shaped error that also has a sqlState', Object.assign(new Error('x'), { severity: 'ERROR', code: '42P01', sqlState: '42P01', errno: 1146 })],
    ['a plain Error', new Error('boom')],
    ['a Node socket error without fatal', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a tedious error', Object.assign(new Error('Login failed'), { code: 'ELOGIN', number: 18456 })],
    ['a string', 'ER_ACCESS_DENIED_ERROR'],
    ['null', null],
    ['undefined', undefined],
  ])('%s', (_case, error) => {
    expect(mysqlErrorKind(error)).toBeUndefined();
    expect(mysqlFailureReason(error, { timeoutMs: 1000 })).toBeUndefined();
  });
});

describe('mysqlFailureReason: how a failed connection attempt is worded', () => {
  it.each<[string, Error, string]>([
    ['access denied', serverError('ER_ACCESS_DENIED_ERROR', 1045, '28000', "Access denied for user 'app'@'10.0.0.1' (using password: YES)"), AUTHENTICATION_FAILED_REASON],
    ['no password given', serverError('ER_ACCESS_DENIED_NO_PASSWORD_ERROR', 1698, '28000'), AUTHENTICATION_FAILED_REASON],
    ['an expired password', serverError('ER_MUST_CHANGE_PASSWORD_LOGIN', 1862, 'HY000'), AUTHENTICATION_FAILED_REASON],
    ['a password to change', serverError('ER_MUST_CHANGE_PASSWORD', 1820, 'HY000'), AUTHENTICATION_FAILED_REASON],
    ['a database denied', serverError('ER_DBACCESS_DENIED_ERROR', 1044, '42000', "Access denied for user 'app'@'%' to database 'secret_db'"), 'permission denied'],
    ['too many connections', serverError('ER_CON_COUNT_ERROR', 1040, '08004'), 'too many connections'],
    ['another server error, by number only', serverError('ER_NOT_SUPPORTED_AUTH_MODE', 1251, '08004', 'Client does not support authentication protocol secret'), 'server refused the connection (error 1251)'],
    ['a refused connection', clientError('ECONNREFUSED'), UNREACHABLE_REASON],
    ['a lost connection', clientError('PROTOCOL_CONNECTION_LOST'), UNREACHABLE_REASON],
    ['a handshake without TLS', clientError('HANDSHAKE_NO_SSL_SUPPORT', false), UNREACHABLE_REASON],
  ])('%s', (_case, error, reason) => {
    const worded = mysqlFailureReason(error, { timeoutMs: 1000 });
    expect(worded).toBe(reason);
    expect(worded).not.toMatch(/secret|10\.0\.0\.1|app/);
  });

  it('names the database the attempt named when the server says it does not exist', () => {
    const error = serverError('ER_BAD_DB_ERROR', 1049, '42000', "Unknown database 'salez'");
    expect(mysqlFailureReason(error, { database: 'sales', timeoutMs: 1000 })).toBe('database "sales" does not exist');
    expect(mysqlFailureReason(error, { timeoutMs: 1000 })).toBe('database does not exist');
  });
});
