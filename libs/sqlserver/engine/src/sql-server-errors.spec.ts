import type { EngineErrorKind } from '@svc/engines';
import { sqlServerErrorKind } from './sql-server-errors';

const withCode = (code: string) => Object.assign(new Error(code), { code });
const numbered = (number: number) => Object.assign(new Error(`error ${number}`), { number, code: 'EREQUEST' });

describe('sqlServerErrorKind', () => {
  it.each<[string, unknown, EngineErrorKind]>([
    ['login failed', withCode('ELOGIN'), 'authentication-failed'],
    ['connection timeout', withCode('ETIMEOUT'), 'transient'],
    ['socket error', withCode('ESOCKET'), 'transient'],
    ['connection closed', withCode('ECONNCLOSED'), 'transient'],
    ['deadlock victim 1205', numbered(1205), 'transient'],
    ['Azure SQL busy 40501', numbered(40501), 'transient'],
    ['Azure SQL database unavailable 40613', numbered(40613), 'transient'],
    ['cannot open database 4060', numbered(4060), 'transient'],
    ['invalid object name 208', numbered(208), 'statement-failed'],
    ['string or binary data truncated 8152', numbered(8152), 'statement-failed'],
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
