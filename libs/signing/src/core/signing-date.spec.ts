import { formatSigningDate, parseSigningDate } from './signing-date';

describe('formatSigningDate', () => {
  it('writes the ISO 8601 basic form in UTC, dropping milliseconds', () => {
    expect(formatSigningDate(new Date(Date.UTC(2015, 7, 30, 12, 36, 0, 987)))).toBe('20150830T123600Z');
    expect(formatSigningDate(new Date(Date.UTC(2024, 0, 2, 3, 4, 5)))).toBe('20240102T030405Z');
  });
});

describe('parseSigningDate', () => {
  it('reads yyyymmddThhmmssZ as UTC', () => {
    expect(parseSigningDate('20150830T123600Z')?.toISOString()).toBe('2015-08-30T12:36:00.000Z');
    expect(parseSigningDate('20240229T235959Z')?.toISOString()).toBe('2024-02-29T23:59:59.000Z');
  });

  it.each([
    ['extended ISO form', '2015-08-30T12:36:00Z'],
    ['missing Z', '20150830T123600'],
    ['lower-case t', '20150830t123600Z'],
    ['milliseconds', '20150830T123600.000Z'],
    ['month 13', '20151330T123600Z'],
    ['30 February', '20230230T000000Z'],
    ['29 February of a common year', '20230229T000000Z'],
    ['hour 24', '20150830T240000Z'],
    ['second 60', '20150830T123660Z'],
    ['empty', ''],
    ['trailing text', '20150830T123600Zx'],
  ])('rejects %s', (_case, text) => {
    expect(parseSigningDate(text)).toBeNull();
  });

  it('round-trips with formatSigningDate', () => {
    const date = new Date(Date.UTC(1999, 11, 31, 23, 59, 59));
    expect(parseSigningDate(formatSigningDate(date))).toEqual(date);
  });
});
