import { isSqlServerMissingObject } from './missing-object';

const numbered = (number: number) => Object.assign(new Error(`error ${number}`), { number });

describe('isSqlServerMissingObject', () => {
  it.each([
    ['invalid object name', numbered(208), true],
    ['missing schema', numbered(2760), true],
    ['wrapped by mssql', Object.assign(new Error('request failed'), { originalError: numbered(208) }), true],
    ['deadlock', numbered(1205), false],
    ['invalid column name (a definition problem, not a dropped object)', numbered(207), false],
    ['a plain error', new Error('x'), false],
    ['null', null, false],
  ])('%s: %s', (_name, error, missing) => {
    expect(isSqlServerMissingObject(error)).toBe(missing);
  });
});
