import { Portable, type BatchDescriptor, type TableDefinition } from '@svc/contracts';
import { MAX_COPY_ROW_BYTES, RedshiftFileRows, RedshiftValueError, fileRowsLayout, type FileRowsLayout } from './redshift-file-rows';

const notes: TableDefinition = {
  table: { schema: 'dbo', name: 'notes' },
  columns: [
    { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
    { name: 'body', sourceType: 'nvarchar(max)', portableType: Portable.text(), nullable: true },
    { name: 'code', sourceType: 'nchar(2)', portableType: Portable.char(2), nullable: true },
    { name: 'blob', sourceType: 'varbinary(max)', portableType: Portable.binary(), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};
const seed: BatchDescriptor = { batchId: 'b', replicationId: 'r', epoch: 1, definition: notes, body: { kind: 'seed', seedId: 's', part: 0, final: true, startVersion: '1' } };
const changes: BatchDescriptor = { ...seed, body: { kind: 'changes', fromVersion: '1', toVersion: '2' } };

/** Feeds `input` split at `cuts` (byte offsets) and returns the whole output. */
function rewrite(layout: FileRowsLayout, input: string | Buffer, cuts: number[] = []): string {
  const bytes = typeof input === 'string' ? Buffer.from(input) : input;
  const rewriter = new RedshiftFileRows(layout);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.push(...rewriter.push(bytes.subarray(from, cut)));
    from = cut;
  }
  out.push(...rewriter.end());
  return Buffer.concat(out).toString();
}

/** The RedshiftValueError `run` throws. */
function refusal(run: () => unknown): RedshiftValueError {
  try {
    run();
  } catch (error) {
    if (error instanceof RedshiftValueError) return error;
    throw error;
  }
  throw new Error('nothing was refused');
}

describe('RedshiftFileRows: the rows as Redshift COPY reads them', () => {
  const layout = fileRowsLayout(seed);

  it('writes NULL as the unquoted marker and quotes every value, the empty string included', () => {
    expect(rewrite(layout, '1,,"",\n2,text,ab,\\x0aff\n')).toBe('"1",\\N,"",\\N\n"2","text","ab","0aff"\n');
  });

  it('writes binary in lower-case hex whatever case the source wrote (SQL Server upper, PostgreSQL lower)', () => {
    expect(rewrite(layout, '3,,,\\x00AbFf09\n')).toBe('"3",\\N,\\N,"00abff09"\n');
  });

  it('keeps quotes, commas, newlines, carriage returns, backslashes and 4-byte characters', () => {
    const input = '3,"say ""hi"", then\r\nleave \\ 😀",,\n';
    expect(rewrite(layout, input)).toBe('"3","say ""hi"", then\r\nleave \\ 😀",\\N,\\N\n');
  });

  it('gives the same output wherever the chunks are cut, even inside a character or a doubled quote', () => {
    const input = Buffer.from('4,"a ""😀"" b",,\\x00ff\n5,,"",\n');
    const whole = rewrite(layout, input);
    for (let cut = 1; cut < input.length; cut += 1) expect(rewrite(layout, input, [cut])).toBe(whole);
  });

  it('leads change rows with the operation, and names the key in what it refuses', () => {
    expect(rewrite(fileRowsLayout(changes), 'D,7,,,\n')).toBe('"D","7",\\N,\\N,\\N\n');
    const refused = refusal(() => rewrite(fileRowsLayout(changes), 'U,7,\\N,,\n'));
    expect(refused.message).toBe('Warehouse: [dbo].[notes], row of key (id), column body: the value \\N cannot be loaded into Redshift, which reads it as NULL');
    expect(refused.valueDetail).toBe('[dbo].[notes]: the row of key (id=7)');
  });

  it('refuses a value longer in bytes than its column, counting multi-byte characters, and never cuts it', () => {
    expect(rewrite(layout, '8,,😀,\n')).toBe('"8",\\N,"😀",\\N\n');
    expect(() => rewrite(layout, '8,,😀😀a,\n')).toThrow("[dbo].[notes], row of key (id), column code: a value of 9 bytes does not fit Redshift's 8-byte column");
    const long = 'x'.repeat(65536);
    expect(() => rewrite(layout, `9,${long},,\n`)).toThrow("column body: a value of 65536 bytes does not fit Redshift's 65535-byte column");
    expect(rewrite(layout, `9,${long.slice(1)},,\n`)).toContain(long.slice(1));
  });

  it('refuses binary that is not PostgreSQL hex, and numbers a keyless table\'s rows', () => {
    expect(refusal(() => rewrite(layout, '10,,,0aff\n')).valueDetail).toBe('[dbo].[notes]: the row of key (id=10)');
    const keyless = fileRowsLayout({ ...seed, definition: { ...notes, primaryKey: [] } });
    expect(() => rewrite(keyless, '1,a,,\n2,\\N,,\n')).toThrow('[dbo].[notes], row 2 of the batch (no key), column body');
  });

  // AWS, COPY data conversion parameters (EMPTYASNULL, BLANKSASNULL): "Empty fields for other data types, such as INT,
  // are always loaded with NULL". A zero-byte binary value has no hex digits, so its field is empty and Redshift loads
  // NULL: no other spelling exists in CSV, so the loss is documented (docs/REDSHIFT.md, Types), not hidden.
  it('writes an empty binary value as the empty quoted field, the one form CSV has for it', () => {
    expect(rewrite(layout, '11,,,\\x\n')).toBe('"11",\\N,\\N,""\n');
  });

  // The target's key columns are NOT NULL, and COPY loads an empty VARBYTE field as NULL (above): a zero-byte key would
  // fail the merge on every retry. It is refused while the batch is staged, naming table, column and rule.
  it('refuses an empty binary value in a key column, in a seed row and in a change row alike', () => {
    const blobs: TableDefinition = { ...notes, columns: [{ name: 'hash', sourceType: 'varbinary(32)', portableType: Portable.binary(32), nullable: false }, ...notes.columns.slice(1)], primaryKey: ['hash'] };
    const message =
      'Warehouse: [dbo].[notes], row of key (hash), column hash: an empty binary value (zero bytes) in a key column cannot be loaded into Redshift, ' +
      'whose COPY loads an empty VARBYTE field as NULL, and a key is never NULL';
    expect(refusal(() => rewrite(fileRowsLayout({ ...seed, definition: blobs }), '\\x,,,\\x\n')).message).toBe(message);
    expect(refusal(() => rewrite(fileRowsLayout({ ...changes, definition: blobs }), 'D,\\x,,,\n')).message).toBe(message);
    expect(rewrite(fileRowsLayout({ ...seed, definition: blobs }), '\\x00,,,\\x\n')).toBe('"00",\\N,\\N,""\n');
  });

  it('refuses rows with the wrong number of fields, and input that ends inside a row', () => {
    expect(() => rewrite(layout, '1,2\n')).toThrow('row 1 of the batch has 2 fields, not 4');
    expect(() => rewrite(layout, '1,"open')).toThrow('end inside row 1');
  });

  it('writes nothing for no rows, and output in chunks of about 64 KiB', () => {
    expect(rewrite(layout, '')).toBe('');
    const rewriter = new RedshiftFileRows(layout);
    const row = Buffer.from(`1,${'y'.repeat(1000)},,\n`);
    const chunks = [...Array.from({ length: 500 }, () => rewriter.push(row)).flat(), ...rewriter.end()];
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.length).toBeLessThan(64 * 1024 + 2000);
  });
  // AWS, COPY, Data sources (https://docs.aws.amazon.com/redshift/latest/dg/copy-parameters-data-source.html): "The
  // maximum size of a single input row from any source is 4 MB." A COPY given a wider row fails the batch, and fails it
  // again on every retry: the row must never reach a file.
  describe('rows wider than COPY reads', () => {
    const blobs: TableDefinition = {
      table: { schema: 'dbo', name: 'scans' },
      columns: [
        { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
        ...['front', 'back', 'side'].map((name) => ({ name, sourceType: 'varbinary(max)', portableType: Portable.binary(), nullable: true })),
      ],
      primaryKey: ['id'],
      estimatedRows: 0,
    };
    const wide = fileRowsLayout({ ...seed, definition: blobs });
    /** A row of id 1 with three binary values of `bytes` bytes each, as the pipeline carries it. */
    const rowOf = (bytes: number) => `1,\\x${'ab'.repeat(bytes)},\\x${'ab'.repeat(bytes)},\\x${'ab'.repeat(bytes)}\n`;
    /** The row as written: "1" then ,"hex" three times, and a newline. */
    const writtenBytes = (bytes: number) => 3 + 3 * (2 * bytes + 3) + 1;

    it('refuses a row over 4 MB as written, naming table, key columns and size, the key values only in the detail', () => {
      const bytes = 700_000;
      expect(writtenBytes(bytes)).toBeGreaterThan(4 * 1024 * 1024);
      const refused = refusal(() => rewrite(wide, rowOf(bytes)));
      expect(refused.message).toBe(
        `Warehouse: [dbo].[scans], row of key (id), a row of ${writtenBytes(bytes)} bytes as written for COPY exceeds Redshift's limit of 4000000 bytes an input row ("4 MB"); ` +
          'the table stops before its files are loaded',
      );
      expect(refused.message).not.toContain('id=1');
      expect(refused.valueDetail).toBe('[dbo].[scans]: the row of key (id=1)');
      expect(refused.serviceWorded).toBe(true);
    });

    it('counts every byte written, and takes a row at the limit', () => {
      const atLimit = Math.floor((MAX_COPY_ROW_BYTES - 4 - 9) / 6);
      expect(writtenBytes(atLimit)).toBeLessThanOrEqual(MAX_COPY_ROW_BYTES);
      expect(writtenBytes(atLimit + 1)).toBeGreaterThan(MAX_COPY_ROW_BYTES);
      expect(rewrite(wide, rowOf(atLimit)).length).toBe(writtenBytes(atLimit));
      expect(() => rewrite(wide, rowOf(atLimit + 1))).toThrow(`a row of ${writtenBytes(atLimit + 1)} bytes`);
    });
  });

  // What Redshift's types hold. AWS, Datetime types (https://docs.aws.amazon.com/redshift/latest/dg/r_Datetime_types.html):
  // DATE, TIMESTAMP and TIMESTAMPTZ range "4713 BC to 294276 AD" (no infinity). AWS, Numeric types: DECIMAL values are
  // "128-bit signed integers with up to 38 digits of precision" (no NaN, no infinity). PostgreSQL writes these values
  // as below (its COPY CSV, DateStyle ISO); each is refused before any file is written, naming table, column and rule.
  describe('PostgreSQL values no Redshift DECIMAL, DATE or TIMESTAMP holds', () => {
    const events: TableDefinition = {
      table: { schema: 'public', name: 'events' },
      columns: [
        { name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false },
        { name: 'day', sourceType: 'date', portableType: Portable.date(), nullable: true },
        { name: 'at', sourceType: 'timestamp with time zone', portableType: Portable.timestamp(6, true), nullable: true },
        { name: 'amount', sourceType: 'numeric(12,2)', portableType: Portable.decimal(12, 2), nullable: true },
        { name: 'ratio', sourceType: 'double precision', portableType: Portable.float(8), nullable: true },
        { name: 'exact', sourceType: 'numeric', portableType: Portable.decimal(), nullable: true },
      ],
      primaryKey: ['id'],
      estimatedRows: 0,
    };
    const layout = fileRowsLayout({ ...seed, definition: events });

    it.each([
      ['day', 'infinity', 'an infinity', '5,infinity,,,,\n'],
      ['day', '-infinity', 'an infinity', '5,-infinity,,,,\n'],
      ['day', '0044-03-15 BC', 'a BC date', '5,0044-03-15 BC,,,,\n'],
      ['day', '5874897-12-31', 'a date after 294276 AD', '5,5874897-12-31,,,,\n'],
      ['at', 'infinity', 'an infinity', '5,,infinity,,,\n'],
      ['at', '0044-03-15 08:00:00+00 BC', 'a BC date', '5,,0044-03-15 08:00:00+00 BC,,,\n'],
      ['amount', 'NaN', 'NaN', '5,,,NaN,,\n'],
      ['amount', 'Infinity', 'an infinity', '5,,,Infinity,,\n'],
      ['amount', '-Infinity', 'an infinity', '5,,,-Infinity,,\n'],
    ])('refuses %s = %s, naming what it is but not the value', (column, value, kind, row) => {
      const refused = refusal(() => rewrite(layout, row));
      expect(refused.message).toContain(`Warehouse: [public].[events], row of key (id), column ${column}: ${kind} is`);
      if (/\d/.test(value)) expect(refused.message).not.toContain(value);
      expect(refused.valueDetail).toBe('[public].[events]: the row of key (id=5)');
    });

    it('loads the values those types hold, and NaN where the column is a float or exact text', () => {
      const row = '6,294276-12-31,2024-02-29 23:59:59.999999+00,-9999999999.99,NaN,NaN\n';
      expect(rewrite(layout, row)).toBe('"6","294276-12-31","2024-02-29 23:59:59.999999+00","-9999999999.99","NaN","NaN"\n');
    });
  });

  // SQL Server's CONVERT style 121 writes datetime2(7) with seven fractional digits and datetimeoffset with a blank before
  // its offset (docs/ROW-FORMAT.md allows both); COPY documents "fractional seconds up to a microsecond level of detail"
  // and offsets right after the seconds (AWS, DATEFORMAT and TIMEFORMAT strings; Using automatic recognition with
  // DATEFORMAT and TIMEFORMAT). The files carry the value rounded as docs/TYPES.md declares, the instant in UTC.
  describe("SQL Server's dates and times", () => {
    const readings: TableDefinition = {
      table: { schema: 'dbo', name: 'readings' },
      columns: [
        { name: 'id', sourceType: 'int', portableType: Portable.integer(), nullable: false },
        { name: 'at', sourceType: 'datetime2(7)', portableType: Portable.timestamp(7), nullable: true },
        { name: 'at_local', sourceType: 'datetimeoffset(7)', portableType: Portable.timestamp(7, true), nullable: true },
        { name: 'time_of_day', sourceType: 'time(7)', portableType: Portable.time(7), nullable: true },
        { name: 'day', sourceType: 'date', portableType: Portable.date(), nullable: true },
      ],
      primaryKey: ['id'],
      estimatedRows: 0,
    };
    const layout = fileRowsLayout({ ...seed, definition: readings });

    it('writes them to the microsecond, the datetimeoffset as its instant in UTC, wherever the chunks are cut', () => {
      const input = Buffer.from('1,2026-01-02 03:04:05.1234567,2026-01-02 03:04:05.1234567 +05:45,03:04:05.1234567,2026-01-02\n2,,,,\n');
      const expected = '"1","2026-01-02 03:04:05.123457","2026-01-01 21:19:05.123457+00","03:04:05.123457","2026-01-02"\n"2",\\N,\\N,\\N,\\N\n';
      for (let cut = 0; cut <= input.length; cut += 1) expect(rewrite(layout, input, [cut])).toBe(expected);
    });

    it('refuses an instant before year 1 in UTC as a BC value, naming the column and rule but not the value', () => {
      const refused = refusal(() => rewrite(layout, '3,,0001-01-01 00:00:00.0000000 +05:45,,\n'));
      expect(refused.message).toBe(
        'Warehouse: [dbo].[readings], row of key (id), column at_local: an instant before 0001-01-01 in UTC is a BC timestamp, refused as every BC value is ' +
          '(how COPY reads BC is undocumented)',
      );
      expect(refused.valueDetail).toBe('[dbo].[readings]: the row of key (id=3)');
    });
  });
});
