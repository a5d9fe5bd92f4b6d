import type { EngineErrorKind } from '@svc/engines';
import { isPostgresMissingObject, postgresErrorKind } from './postgres-errors';

const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code, severity: 'ERROR' });

describe('postgresErrorKind', () => {
  // pg 8's fixed texts (lib/connection.js, lib/client.js) of an attempt that reached no PostgreSQL server.
  it.each(['timeout expired', 'Connection terminated unexpectedly', 'The server does not support SSL connections'])('"%s" is unreachable', (message) => {
    expect(postgresErrorKind(new Error(message))).toBe('unreachable');
  });

  // pg-pool's own words when no client came free within connectionTimeoutMillis (index.js connect): a busy pool, retried.
  it('a pool that gave no client in time is transient (busy), not an internal error', () => {
    expect(postgresErrorKind(new Error('timeout exceeded when trying to connect'))).toBe('transient');
  });

  it.each<[string, string, EngineErrorKind]>([
    ['connection failure', '08006', 'transient'],
    ['connection does not exist', '08003', 'transient'],
    ['serialization failure', '40001', 'transient'],
    ['deadlock', '40P01', 'transient'],
    ['too many connections', '53300', 'transient'],
    ['disk full', '53100', 'transient'],
    ['admin shutdown', '57P01', 'transient'],
    ['crash shutdown', '57P02', 'transient'],
    ['cannot connect now', '57P03', 'transient'],
    ['statement timeout / cancel', '57014', 'transient'],
    ['lock not available', '55P03', 'transient'],
    ['I/O error', '58030', 'transient'],
    ['database does not exist', '3D000', 'database-missing'],
    ['invalid password', '28P01', 'authentication-failed'],
    ['invalid authorization', '28000', 'authentication-failed'],
    ['permission denied', '42501', 'permission-denied'],
    ['undefined table', '42P01', 'object-missing'],
    ['undefined column', '42703', 'object-missing'],
    ['invalid schema name', '3F000', 'object-missing'],
    ['syntax error', '42601', 'statement-failed'],
    ['value out of range', '22003', 'invalid-data'],
    ['invalid text representation', '22P02', 'invalid-data'],
    ['not-null violation', '23502', 'invalid-data'],
    ['unique violation', '23505', 'invalid-data'],
  ])('%s (%s) is %s', (_name, code, kind) => {
    expect(postgresErrorKind(pgError(code))).toBe(kind);
  });

  it.each<[string, unknown]>([
    ['an internal error no kind names', pgError('XX000')],
    ['a Node socket error', Object.assign(new Error('reset'), { code: 'ECONNRESET' })],
    ['an mssql error', Object.assign(new Error('deadlock'), { number: 1205 })],
    ['a code that is no SQLSTATE', Object.assign(new Error('x'), { code: 'abcde' })],
    ['a string', '42P01'],
    ['null', null],
  ])('leaves %s to others', (_name, error) => {
    expect(postgresErrorKind(error)).toBeUndefined();
  });

  it('tells a missing relation or schema apart', () => {
    expect(isPostgresMissingObject(pgError('42P01'))).toBe(true);
    expect(isPostgresMissingObject(pgError('3F000'))).toBe(true);
    expect(isPostgresMissingObject(pgError('42703'))).toBe(false);
  });
});
