import { UNREACHABLE_REASON, connectionFailureReason, timedOutReason } from './failure-reason';

/** Shaped like pg's DatabaseError. */
function pgServerError(code: string, message: string): Error {
  return Object.assign(new Error(message), { severity: 'FATAL', code });
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 10.0.0.1:5432`), { code });
}

/** Shaped like mssql's ConnectionError wrapping tedious's, which wraps the socket failure. */
function mssqlError(code: string, message: string, inner?: unknown): Error {
  const tedious = Object.assign(new Error(message), { name: 'ConnectionError', code, ...(inner !== undefined && { cause: inner }) });
  return Object.assign(new Error(message), { name: 'ConnectionError', code, originalError: tedious });
}

/**
 * The shapes follow the drivers' sources: pg 8 lib/connection.js and lib/client.js (the fixed texts), tedious 19
 * lib/connection.js (ConnectionError codes ETIMEOUT, ESOCKET, EINSTLOOKUP, EENCRYPT, ELOGIN) and mssql 12
 * lib/error/connection-error.js (name 'ConnectionError', tedious's error as originalError).
 */
describe('connectionFailureReason', () => {
  const context = { database: 'sales', timeoutMs: 10000 };

  it.each([
    ['pg 28P01', pgServerError('28P01', 'password authentication failed for user "app"'), 'authentication failed'],
    ['pg 28000', pgServerError('28000', 'no pg_hba.conf entry for host'), 'authentication failed'],
    ['pg 3D000', pgServerError('3D000', 'database "sales" does not exist'), 'database "sales" does not exist'],
    ['pg 53300', pgServerError('53300', 'sorry, too many clients already'), 'too many connections'],
    ['pg other', pgServerError('XX000', 'internal'), 'server refused the connection (SQLSTATE XX000)'],
    ['refused', socketError('ECONNREFUSED'), UNREACHABLE_REASON],
    ['unknown host', socketError('ENOTFOUND'), UNREACHABLE_REASON],
    ['dns retry', socketError('EAI_AGAIN'), UNREACHABLE_REASON],
    ['reset', socketError('ECONNRESET'), UNREACHABLE_REASON],
    ['tcp timeout', socketError('ETIMEDOUT'), UNREACHABLE_REASON],
    ['self-signed', socketError('DEPTH_ZERO_SELF_SIGNED_CERT'), UNREACHABLE_REASON],
    ['TLS version', socketError('ERR_SSL_WRONG_VERSION_NUMBER'), UNREACHABLE_REASON],
    ['pg without TLS', new Error('The server does not support SSL connections'), UNREACHABLE_REASON],
    ['pg connect timeout', new Error('timeout expired'), UNREACHABLE_REASON],
    ['pg dropped', new Error('Connection terminated unexpectedly'), UNREACHABLE_REASON],
    ['mssql login', mssqlError('ELOGIN', "Login failed for user 'app'."), 'authentication failed'],
    [
      'mssql database',
      mssqlError('ELOGIN', 'Cannot open database "sales" requested by the login. The login failed.'),
      'cannot open database "sales"',
    ],
    ['mssql timeout', mssqlError('ETIMEOUT', 'Failed to connect to h:1433 in 10000ms'), UNREACHABLE_REASON],
    ['mssql instance', mssqlError('EINSTLOOKUP', 'Port for PROD not found'), UNREACHABLE_REASON],
    ['mssql encryption demanded: the field that cures it', mssqlError('EENCRYPT', "Server requires encryption, set 'encrypt' config option to true."), 'the server requires encryption: set EncryptDataInTransit to true'],
    ['mssql socket error of no known cause', mssqlError('ESOCKET', 'Connection lost - read ECONNRESET'), UNREACHABLE_REASON],
    [
      'mssql refused (dual-stack AggregateError)',
      mssqlError('ESOCKET', 'Could not connect (sequence)', new AggregateError([socketError('ECONNREFUSED')], 'Could not connect (sequence)')),
      UNREACHABLE_REASON,
    ],
    ['mssql unknown host', mssqlError('ESOCKET', 'getaddrinfo ENOTFOUND', socketError('ENOTFOUND')), UNREACHABLE_REASON],
    ['anything else', new Error('Password=hunter2 rejected'), UNREACHABLE_REASON],
    ['not an error', 'boom', UNREACHABLE_REASON],
  ])('%s', (_label, error, reason) => {
    expect(connectionFailureReason(error, context)).toBe(reason);
  });

  it('gives every attempt that reached no server one text, naming no cause', () => {
    expect(UNREACHABLE_REASON).toBe('cannot reach the server (refused, timed out, unknown host or TLS failed)');
  });

  it('says "database does not exist" when the name is unknown', () => {
    expect(connectionFailureReason(pgServerError('3D000', 'x'), { timeoutMs: 1 })).toBe('database does not exist');
  });
});

describe('timedOutReason', () => {
  it.each([
    [10000, 'timed out after 10 s'],
    [1500, 'timed out after 1.5 s'],
    [250, 'timed out after 0.3 s'],
  ])('%d ms → %s', (ms, text) => {
    expect(timedOutReason(ms)).toBe(text);
  });
});
