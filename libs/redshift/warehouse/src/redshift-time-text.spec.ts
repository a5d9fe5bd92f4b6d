import { copyTimeText, type TimeForm } from './redshift-time-text';

/*
 * COPY reads "fractional seconds up to a microsecond level of detail" and offsets written right after the seconds
 * ("YYYY-MM-DD HH:MI:SSOF", "1997-12-17 07:37:16-08"): AWS, DATEFORMAT and TIMEFORMAT strings
 * (https://docs.aws.amazon.com/redshift/latest/dg/r_DATEFORMAT_and_TIMEFORMAT_strings.html) and Using automatic
 * recognition with DATEFORMAT and TIMEFORMAT (https://docs.aws.amazon.com/redshift/latest/dg/automatic-recognition.html).
 * SQL Server's style 121 writes seven digits and a blank before the offset; PostgreSQL (in UTC) at most six and `+00`.
 */
describe('copyTimeText: dates and times in the forms COPY documents', () => {
  it.each<[TimeForm, string, string]>([
    // SQL Server's style 121, rounded to the microsecond as PostgreSQL's input rounds (rint of the fraction read as a
    // double times 10^6, ties to even): what docs/TYPES.md declares and validation's checksums reproduce.
    ['timestamp', '2026-01-02 03:04:05.1234567', '2026-01-02 03:04:05.123457'],
    ['timestamp', '2024-01-02 15:04:05.1234565', '2024-01-02 15:04:05.123456'],
    ['timestamp', '2024-01-02 15:04:05.1234575', '2024-01-02 15:04:05.123458'],
    ['timestamp', '2024-01-02 15:04:05.0000015', '2024-01-02 15:04:05.000002'],
    ['timestamp', '2024-01-02 15:04:05.0000005', '2024-01-02 15:04:05.000000'],
    // 0.5000005 is a double just below 0.5000005, so PostgreSQL rounds it down: so does the rewrite.
    ['timestamp', '2024-01-02 15:04:05.5000005', '2024-01-02 15:04:05.500000'],
    ['timestamp', '2024-02-28 23:59:59.9999995', '2024-02-29 00:00:00.000000'],
    ['timestamp', '2023-02-28 23:59:59.9999999', '2023-03-01 00:00:00.000000'],
    ['timestamp', '2026-12-31 23:59:59.9999999', '2027-01-01 00:00:00.000000'],
    ['timestamp', '2026-01-02 03:04:05.100000000', '2026-01-02 03:04:05.100000'],
    // The instant in UTC, written +00 without a blank.
    ['timestamptz', '2026-01-02 03:04:05.1234567 +05:45', '2026-01-01 21:19:05.123457+00'],
    ['timestamptz', '2026-01-01 00:00:00.0000000 +05:45', '2025-12-31 18:15:00.000000+00'],
    ['timestamptz', '2026-01-02 03:04:05 -08:00', '2026-01-02 11:04:05+00'],
    ['timestamptz', '2024-02-29 23:59:59.9999999 -14:00', '2024-03-01 14:00:00.000000+00'],
    ['timestamptz', '9999-12-31 23:59:59.9999999 +14:00', '9999-12-31 10:00:00.000000+00'],
    ['timestamptz', '2026-01-02 03:04:05.123456 +00:00', '2026-01-02 03:04:05.123456+00'],
    ['timestamptz', '2026-01-02 03:04:05+05:30', '2026-01-01 21:34:05+00'],
    ['timestamptz', '1900-01-01 00:00:00+05:53:28', '1899-12-31 18:06:32+00'],
    ['time', '03:04:05.1234567', '03:04:05.123457'],
    ['time', '23:59:59.9999999', '24:00:00.000000'],
    ['timetz', '03:04:05.1234567+05:30', '03:04:05.123457+05:30'],
    ['timetz', '03:04:05 +05', '03:04:05+05'],
  ])('%s %s → %s', (form, text, expected) => {
    expect(copyTimeText(form, text)).toEqual({ text: expected });
  });

  it.each<[TimeForm, string]>([
    ['date', '2026-01-02'],
    ['date', '294276-12-31'],
    ['timestamp', '2026-01-02 03:04:05'],
    ['timestamp', '2026-01-02 03:04:05.123456'],
    ['timestamp', '10000-01-01 00:00:00'],
    ['timestamptz', '2024-02-29 23:59:59.999999+00'],
    ['timestamptz', '0001-01-01 00:00:00+00'],
    ['time', '24:00:00'],
    ['time', '12:00:00.5'],
    ['timetz', '12:00:00+05:30'],
  ])('leaves %s %s as it is: COPY reads it as written', (form, text) => {
    expect(copyTimeText(form, text)).toEqual({ text });
  });

  it.each<[TimeForm, string, RegExp]>([
    ['timestamptz', '0001-01-01 00:00:00.0000000 +05:45', /an instant before 0001-01-01 in UTC is a BC timestamp/],
    ['timestamptz', '2026-02-30 03:04:05 +01:00', /no date and time of the calendar/],
    ['timestamp', '2026-13-01 03:04:05.1234567', /no date and time of the calendar/],
    ['timestamp', '2026-01-02T03:04:05.1234567', /a timestamp not in the row format's form YYYY-MM-DD hh:mm:ss\[\.fraction\] \(/],
    ['timestamptz', '2026-01-02 03:04:05.1234567', /a timestamp not in the row format's form YYYY-MM-DD hh:mm:ss\[\.fraction\]±hh\[:mm\]/],
    ['time', '24:00:00.9999999', /past 24:00:00/],
    ['time', '3:04:05', /a time not in the row format's form hh:mm:ss/],
  ])('refuses %s %s, naming the rule', (form, text, problem) => {
    const rewritten = copyTimeText(form, text);
    expect('problem' in rewritten ? rewritten.problem : rewritten.text).toMatch(problem);
  });
});
