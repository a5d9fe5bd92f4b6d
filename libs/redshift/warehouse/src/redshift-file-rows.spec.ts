import type { BatchDescriptor, TableDefinition } from '@svc/contracts';
import { RedshiftFileRows, RedshiftValueError, fileRowsLayout, type FileRowsLayout } from './redshift-file-rows';

const notes: TableDefinition = {
  table: { schema: 'dbo', name: 'notes' },
  columns: [
    { name: 'id', sourceType: 'int', portableType: 'integer', nullable: false },
    { name: 'body', sourceType: 'nvarchar(max)', portableType: 'text', nullable: true },
    { name: 'code', sourceType: 'nchar(2)', portableType: 'char(2)', nullable: true },
    { name: 'blob', sourceType: 'varbinary(max)', portableType: 'bytea', nullable: true },
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

describe('RedshiftFileRows: the rows as Redshift COPY reads them', () => {
  const layout = fileRowsLayout(seed);

  it('writes NULL as the unquoted marker and quotes every value, the empty string included', () => {
    expect(rewrite(layout, '1,,"",\n2,text,ab,\\x0aff\n')).toBe('"1",\\N,"",\\N\n"2","text","ab","0aff"\n');
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
    expect(() => rewrite(fileRowsLayout(changes), 'U,7,\\N,,\n')).toThrow(
      new RedshiftValueError('[dbo].[notes], column body, key (id=7): the value \\N cannot be loaded into Redshift, which reads it as NULL'),
    );
  });

  it('refuses a value longer in bytes than its column, counting multi-byte characters, and never cuts it', () => {
    expect(rewrite(layout, '8,,😀,\n')).toBe('"8",\\N,"😀",\\N\n');
    expect(() => rewrite(layout, '8,,😀😀a,\n')).toThrow("[dbo].[notes], column code, key (id=8): a value of 9 bytes does not fit Redshift's 8-byte column");
    const long = 'x'.repeat(65536);
    expect(() => rewrite(layout, `9,${long},,\n`)).toThrow("column body, key (id=9): a value of 65536 bytes does not fit Redshift's 65535-byte column");
    expect(rewrite(layout, `9,${long.slice(1)},,\n`)).toContain(long.slice(1));
  });

  it('refuses binary that is not PostgreSQL hex, and numbers a keyless table\'s rows', () => {
    expect(() => rewrite(layout, '10,,,0aff\n')).toThrow('column blob, key (id=10)');
    const keyless = fileRowsLayout({ ...seed, definition: { ...notes, primaryKey: [] } });
    expect(() => rewrite(keyless, '1,a,,\n2,\\N,,\n')).toThrow('[dbo].[notes], column body, row 2 of the batch');
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
});
