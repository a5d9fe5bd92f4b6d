import { Portable, type PortableType } from './portable-type';
import { interchangeTextProblem } from './row-format';

describe('the row interchange format (docs/ROW-FORMAT.md)', () => {
  it.each<[string, PortableType, string]>([
    ['an integer', Portable.integer(), '-2147483648'],
    ['a bigint at its limit', Portable.bigint(), '9223372036854775807'],
    ['a decimal', Portable.decimal(38, 10), '-1234567890123456789012345678.0123456789'],
    ['a decimal NaN (PostgreSQL)', Portable.decimal(), 'NaN'],
    ['a decimal infinity (PostgreSQL 14)', Portable.decimal(), '-Infinity'],
    ['a float with an exponent', Portable.float(), '1.7976931348623157e+308'],
    ['a float in JavaScript\'s shortest form', Portable.float(), '1.5e-7'],
    ['a float NaN', Portable.float(4), 'NaN'],
    ['PostgreSQL\'s boolean', Portable.boolean(), 't'],
    ['SQL Server\'s boolean text', Portable.boolean(), 'false'],
    ['a date', Portable.date(), '2024-02-29'],
    ['a date BC', Portable.date(), '0044-03-15 BC'],
    ['a date past 9999', Portable.date(), '294276-12-31'],
    ['a date infinity', Portable.date(), 'infinity'],
    ['a time with 7 digits (SQL Server time(7))', Portable.time(7), '23:59:59.9999999'],
    ['a time with zone', Portable.time(6, true), '12:00:00+05:30'],
    ['a timestamp', Portable.timestamp(3), '2024-02-29 23:59:59.123'],
    ['a timestamp with zone (PostgreSQL)', Portable.timestamp(6, true), '2024-02-29 23:59:59.123456+00'],
    ['a timestamp with zone (SQL Server style 121)', Portable.timestamp(7, true), '2024-02-29 23:59:59.1234567 +05:30'],
    ['a timestamp -infinity', Portable.timestamp(), '-infinity'],
    ['an interval', Portable.interval(), 'P1Y2M3DT4H5M6.789S'],
    ['a negative interval', Portable.interval(), 'P-1D'],
    ['a zero interval', Portable.interval(), 'PT0S'],
    ['a uuid', Portable.uuid(), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
    ['binary', Portable.binary(), '\\x00ff10'],
    ['empty binary', Portable.binary(), '\\x'],
    ['any text', Portable.varchar(3), 'a,"\n'],
    ['an array', Portable.array(Portable.integer()), '{{1,2},{3,4}}'],
    ['a native value', Portable.native('postgres', 'inet'), '10.0.0.1/8'],
  ])('accepts %s', (_name, type, text) => {
    expect(interchangeTextProblem(type, text)).toBeNull();
  });

  it.each<[string, PortableType, string, RegExp]>([
    ['an integer with a point', Portable.integer(), '1.0', /decimal digits/],
    ['an integer past its width', Portable.smallint(), '32768', /does not fit 2 bytes/],
    ['a decimal with an exponent', Portable.decimal(10, 2), '1e3', /no exponent/],
    ['a locale\'s decimal comma', Portable.decimal(10, 2), '1,5', /no exponent/],
    ['a boolean as a number', Portable.boolean(), '1', /t, f, true or false/],
    ['a boolean in capitals', Portable.boolean(), 'TRUE', /t, f, true or false/],
    ['a date in another order', Portable.date(), '29/02/2024', /YYYY-MM-DD/],
    ['a timestamp with a T', Portable.timestamp(), '2024-02-29T23:59:59', /YYYY-MM-DD hh:mm:ss/],
    ['a zoned timestamp without its offset', Portable.timestamp(6, true), '2024-02-29 23:59:59', /±hh/],
    ['more digits than the precision', Portable.timestamp(3), '2024-02-29 23:59:59.1234', /4 fractional digits, more than the type's 3/],
    ['PostgreSQL\'s postgres-style interval', Portable.interval(), '1 day 02:00:00', /ISO 8601/],
    ['a uuid in capitals (SQL Server\'s default text)', Portable.uuid(), 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', /lowercase/],
    ['binary as 0x', Portable.binary(), '0x00ff', /\\x and two hex digits/],
    ['binary with an odd digit', Portable.binary(), '\\x0', /\\x and two hex digits/],
    ['an array without braces', Portable.array(Portable.text()), 'a,b', /\{element/],
  ])('refuses %s', (_name, type, text, problem) => {
    expect(interchangeTextProblem(type, text)).toMatch(problem);
  });
});
