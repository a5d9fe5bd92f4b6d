import { Portable } from '@svc/contracts';
import { StagingValueError, columnConverter, fieldConverter, utcReading } from './staging-values';

describe('MySQL staging values (docs/ROW-FORMAT.md, "Fields, by portable kind")', () => {
  it('turns booleans into 1 and 0', () => {
    const convert = fieldConverter(Portable.boolean());
    expect(['t', 'true', 'f', 'false'].map(convert)).toEqual([1, 1, 0, 0]);
    expect(() => convert('yes')).toThrow(/t, true, f or false/);
  });

  it('turns \\x hex into bytes, \\x alone into none', () => {
    const convert = fieldConverter(Portable.binary());
    expect(convert('\\x00ff10')).toEqual(Buffer.from([0, 255, 16]));
    expect(convert('\\x')).toEqual(Buffer.alloc(0));
    expect(() => convert('\\x0')).toThrow(/two hex digits a byte/);
    expect(() => convert('00ff')).toThrow(/two hex digits a byte/);
  });

  it.each([
    ['2024-02-29 23:59:59.123456+00', '2024-02-29 23:59:59.123456'],
    ['2024-02-29 23:30:00.5+05:30', '2024-02-29 18:00:00.5'],
    ['2024-02-29 23:59:59.1234567 +05:30', '2024-02-29 18:29:59.1234567'],
    ['2024-12-31 22:00:00-03', '2025-01-01 01:00:00'],
    ['0001-01-01 00:30:00+01', '0000-12-31 23:30:00'],
    ['1969-07-20 20:17:40+0000', '1969-07-20 20:17:40'],
    ['1900-01-01 00:00:00+00:19:32', '1899-12-31 23:40:28'],
  ])('keeps an instant %s as its reading in UTC, %s', (text, utc) => {
    expect(utcReading(text)).toBe(utc);
    expect(fieldConverter(Portable.timestamp(6, true))(text)).toBe(utc);
  });

  it('leaves a wall-clock timestamp, a date, text and numbers as written', () => {
    expect(fieldConverter(Portable.timestamp(6))('2024-02-29 23:59:59.5')).toBe('2024-02-29 23:59:59.5');
    expect(fieldConverter(Portable.date())('2024-02-29')).toBe('2024-02-29');
    expect(fieldConverter(Portable.text())('a ')).toBe('a ');
    expect(fieldConverter(Portable.decimal(10, 2))('-0.50')).toBe('-0.50');
  });

  it('refuses a date before year 1 and infinity, naming table, column and record (the value only in the detail)', () => {
    const convert = columnConverter({ schema: 'shop', name: 'orders' }, 'placed', Portable.timestamp(6, true));
    expect(() => convert('0044-03-15 12:00:00+00 BC', 7)).toThrow(new StagingValueError({ schema: 'shop', name: 'orders' }, 'placed', 7, 'MySQL dates have no years before 1 and no infinity', ''));
    expect(() => fieldConverter(Portable.date())('infinity')).toThrow(/no infinity/);
    expect(() => fieldConverter(Portable.timestamp(6))('-infinity')).toThrow(/no infinity/);
    try {
      convert('someday', 3);
    } catch (error) {
      expect(error).toBeInstanceOf(StagingValueError);
      expect((error as StagingValueError).message).toBe('[shop].[orders]: column placed, batch record 3: a timestamp with a time zone is YYYY-MM-DD hh:mm:ss[.fraction] and its UTC offset');
      expect((error as StagingValueError).valueDetail).toBe('the value: "someday"');
    }
    expect.assertions(6);
  });
});
