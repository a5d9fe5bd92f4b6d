import { connectionFailureReason, timedOutReason } from './failure-reason';

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

describe('connectionFailureReason', () => {
  const context = { database: 'sales', timeoutMs: 10000 };

  it.each([
    ['pg 28P01', pgServerError('28P01', 'password authentication failed for user "app"'), 'authentication failed'],
    ['pg 28000', pgServerError('28000', 'no pg_hba.conf entry for host'), 'authentication failed'],
    ['pg 3D000', pgServerError('3D000', 'database "sales" does not exist'), 'database "sales" does not exist'],
    ['pg 53300', pgServerError('53300', 'sorry, too many clients already'), 'too many connections'],
    ['pg other', pgServerError('XX000', 'internal'), 'server refused the connection (SQLSTATE XX000)'],
    ['refused', socketError('ECONNREFUSED'), 'connection refused'],
    ['unknown host', socketError('ENOTFOUND'), 'host not found'],
    ['dns retry', socketError('EAI_AGAIN'), 'host not found'],
    ['reset', socketError('ECONNRESET'), 'connection reset by server'],
    ['tcp timeout', socketError('ETIMEDOUT'), 'timed out after 10 s'],
    ['self-signed', socketError('DEPTH_ZERO_SELF_SIGNED_CERT'), 'server certificate not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)'],
    ['pg without TLS', new Error('The server does not support SSL connections'), 'server does not support encrypted connections'],
    ['pg connect timeout', new Error('timeout expired'), 'timed out after 10 s'],
    ['pg dropped', new Error('Connection terminated unexpectedly'), 'connection closed by server'],
    ['mssql login', mssqlError('ELOGIN', "Login failed for user 'app'."), 'authentication failed'],
    [
      'mssql database',
      mssqlError('ELOGIN', 'Cannot open database "sales" requested by the login. The login failed.'),
      'cannot open database "sales"',
    ],
    ['mssql timeout', mssqlError('ETIMEOUT', 'Failed to connect to h:1433 in 10000ms'), 'timed out after 10 s'],
    ['mssql instance', mssqlError('EINSTLOOKUP', 'Port for PROD not found'), 'SQL Server instance not found'],
    [
      'mssql refused (dual-stack AggregateError)',
      mssqlError('ESOCKET', 'Could not connect (sequence)', new AggregateError([socketError('ECONNREFUSED')], 'Could not connect (sequence)')),
      'connection refused',
    ],
    ['mssql unknown host', mssqlError('ESOCKET', 'getaddrinfo ENOTFOUND', socketError('ENOTFOUND')), 'host not found'],
    ['anything else', new Error('Password=hunter2 rejected'), 'connection failed'],
    ['not an error', 'boom', 'connection failed'],
  ])('%s', (_label, error, reason) => {
    expect(connectionFailureReason(error, context)).toBe(reason);
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
