import { RedshiftCopyInput, type CopyColumn } from './redshift-copy-on-postgres';

const columns: CopyColumn[] = [
  { name: 'label', kind: 'character' },
  { name: 'blob', kind: 'binary' },
  { name: 'amount', kind: 'other' },
  { name: 'at', kind: 'timestamp' },
  { name: 'at_utc', kind: 'timestamptz' },
  { name: 'day', kind: 'date' },
  { name: 'clock', kind: 'time' },
  { name: 'clock_tz', kind: 'timetz' },
];

/** What the double hands PostgreSQL's COPY for `file`, fed in chunks cut at `cut`. */
function copied(file: string, cut = 0): string {
  const input = new RedshiftCopyInput('t', columns);
  const bytes = Buffer.from(file, 'utf8');
  return Buffer.concat([...input.push(bytes.subarray(0, cut)), ...input.push(bytes.subarray(cut)), ...input.end()]).toString('utf8');
}

const row = (fields: Partial<Record<string, string>>) => `${columns.map((column) => fields[column.name] ?? '\\N').join(',')}\n`;

describe("the Redshift double's COPY: the files read as AWS documents COPY's CSV, NULL AS and 'auto' date and time forms", () => {
  // AWS, COPY, Data conversion parameters (BLANKSASNULL, EMPTYASNULL): "Empty fields for other data types, such as INT,
  // are always loaded with NULL"; only CHAR and VARCHAR keep the empty string.
  it('loads an empty field as NULL in every column but CHAR and VARCHAR, quoted or not', () => {
    expect(copied(row({ label: '""', blob: '""', amount: '""', at: '""' }))).toBe('"",\\N,\\N,\\N,\\N,\\N,\\N,\\N\n');
    expect(copied(row({ label: '', blob: '' }))).toBe('"",\\N,\\N,\\N,\\N,\\N,\\N,\\N\n');
  });

  it('reads the NULL AS marker quoted or not, and keeps every other value whole wherever the chunks are cut', () => {
    const file = row({ label: '"say ""hi"", 😀\n"', blob: '"\\N"', amount: '"1.50"' });
    for (let cut = 0; cut <= Buffer.byteLength(file); cut += 1) expect(copied(file, cut)).toBe('"say ""hi"", 😀\n",\\N,"1.50",\\N,\\N,\\N,\\N,\\N\n');
  });

  // AWS, DATEFORMAT and TIMEFORMAT strings: "YYYY-MM-DD", "YYYY-MM-DD HH:MI:SS", "YYYY-MM-DD HH:MI:SSOF" and "fractional
  // seconds up to a microsecond level of detail"; Using automatic recognition with DATEFORMAT and TIMEFORMAT:
  // "2019-02-11T05:09:12.195Z", "1997-12-17 07:37:16-08"; Date, time, and timestamp literals: "04:05:06.789".
  it.each([
    ['at', '"2026-01-02 03:04:05"'],
    ['at', '"2026-01-02 03:04:05.123456"'],
    ['at_utc', '"2026-01-01 21:19:05.123457+00"'],
    ['at_utc', '"1997-12-17 07:37:16-08"'],
    ['at_utc', '"1997-12-17 07:37:16-8:00"'],
    ['at_utc', '"2019-02-11T05:09:12.195Z"'],
    ['day', '"2026-01-02"'],
    ['clock', '"04:05:06.789"'],
    ['clock', '"24:00:00"'],
    ['clock_tz', '"04:05:06.789+05:30"'],
  ])('takes %s %s', (column, value) => {
    expect(copied(row({ [column]: value }))).toContain(value);
  });

  // No page lists a seventh fractional digit or a blank before the offset: SQL Server's style 121 as it is.
  it.each([
    ['at', 'timestamp', '"2026-01-02 03:04:05.1234567"'],
    ['at_utc', 'timestamptz', '"2026-01-02 03:04:05.1234567 +05:45"'],
    ['at_utc', 'timestamptz', '"2026-01-02 03:04:05.123456 +05:45"'],
    ['clock', 'time', '"03:04:05.1234567"'],
    ['clock_tz', 'timetz', '"03:04:05 +05:30"'],
    ['day', 'date', '"2026-01-02 BC"'],
  ])('refuses %s (%s) %s as a Redshift load error, naming line and column but not the value', (column, kind, value) => {
    let refused: unknown;
    try {
      copied(`${row({})}${row({ [column]: value })}`);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(Error);
    expect((refused as { code?: unknown }).code).toBe('XX000');
    expect((refused as Error).message).toContain(`Load into table 't' failed (the Redshift double's COPY): line 2, column ${column} (${kind}): Invalid ${kind} format`);
    expect((refused as Error).message).not.toContain(value.slice(1, -1));
  });

  it('refuses a record with the wrong number of fields and a file that ends inside one', () => {
    expect(() => copied('"a"\n')).toThrow('line 1: 1 fields for 8 columns');
    expect(() => copied('"a,')).toThrow('line 1: the file ends inside a record');
  });
});
