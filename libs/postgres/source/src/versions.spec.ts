import { InvalidVersionError, parseVersion, xid8Literal } from './versions';

describe('parseVersion', () => {
  it.each(['0', '1', '750', '18446744073709551615'])('accepts %s', (text) => {
    expect(parseVersion(text, 'v').toString()).toBe(text);
  });

  it.each(['', '-1', '01', '1.5', '1e3', " 1", "1'; drop table t; --", '18446744073709551616'])('refuses %j', (text) => {
    expect(() => parseVersion(text, 'fromVersion')).toThrow(InvalidVersionError);
  });

  it('writes an xid8 literal', () => {
    expect(xid8Literal(42n)).toBe("'42'::xid8");
  });
});
