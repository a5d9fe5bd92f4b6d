import { isMysqlMissingObject } from './mysql-staging';

/** A server error as mysql2 hands it over: errno, sqlState, code. */
const serverError = (errno: number, code: string) => Object.assign(new Error(code), { errno, code, sqlState: '42S02' });

describe('isMysqlMissingObject', () => {
  it.each([
    [1146, 'ER_NO_SUCH_TABLE'],
    [1049, 'ER_BAD_DB_ERROR'],
    [1051, 'ER_BAD_TABLE_ERROR'],
  ])('takes error %i (%s) for an object of its own that is gone', (errno, code) => {
    expect(isMysqlMissingObject(serverError(errno, code))).toBe(true);
  });

  it.each([
    [1054, 'ER_BAD_FIELD_ERROR'],
    [1213, 'ER_LOCK_DEADLOCK'],
    [1062, 'ER_DUP_ENTRY'],
  ])('does not take error %i (%s)', (errno, code) => {
    expect(isMysqlMissingObject(serverError(errno, code))).toBe(false);
  });

  it('does not take a connection error or anything else', () => {
    expect(isMysqlMissingObject(Object.assign(new Error('lost'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true }))).toBe(false);
    expect(isMysqlMissingObject(new Error('no such table'))).toBe(false);
    expect(isMysqlMissingObject(undefined)).toBe(false);
  });
});
