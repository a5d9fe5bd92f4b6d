import { CsvFormatError, csvRows, type CsvField } from './csv-rows';

async function parse(...chunks: (string | Buffer)[]): Promise<CsvField[][]> {
  const rows: CsvField[][] = [];
  const source = {
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    },
  };
  for await (const row of csvRows(source)) rows.push(row);
  return rows;
}

describe('csvRows: the pipeline CSV read back', () => {
  it('tells NULL (unquoted empty) from the empty string (quoted)', async () => {
    expect(await parse('1,,""\n')).toEqual([['1', null, '']]);
  });

  it('reads quoted commas, doubled quotes and line breaks inside fields', async () => {
    expect(await parse('"a,b","say ""hi""","two\nlines"\n')).toEqual([['a,b', 'say "hi"', 'two\nlines']]);
  });

  it('reads rows split anywhere across chunks, also inside a quote pair and a 4-byte character', async () => {
    const text = '1,"x""y",😀𝄞\n2,"",\n';
    const bytes = Buffer.from(text, 'utf8');
    for (let cut = 1; cut < bytes.length; cut += 1) {
      expect(await parse(bytes.subarray(0, cut), bytes.subarray(cut))).toEqual([
        ['1', 'x"y', '😀𝄞'],
        ['2', '', null],
      ]);
    }
  });

  it('accepts \\r\\n line ends and a last row without one', async () => {
    expect(await parse('1,a\r\n2,b')).toEqual([
      ['1', 'a'],
      ['2', 'b'],
    ]);
  });

  it('keeps the text \\. (quoted by the writer) and backslashes as they are', async () => {
    expect(await parse('"\\.",\\x0aff\n')).toEqual([['\\.', '\\x0aff']]);
  });

  // "The definition of UTF-8 prohibits encoding character numbers between U+D800 and U+DFFF" (RFC 3629, section 3): bytes
  // ED A0 80 and ED AF BF (the halves D800 and DBFF encoded on their own) are no UTF-8. Before, both read as U+FFFD
  // three times: two keys of a batch became one in the staging table.
  it('refuses bytes that are not UTF-8, with the line, rather than read them as U+FFFD', async () => {
    await expect(parse('1,a\n', Buffer.from('2,a\xed\xa0\x80\n3,a\xed\xaf\xbf\n', 'latin1'))).rejects.toThrow(/^CSV line 2: bytes that are not UTF-8/);
    await expect(parse(Buffer.from('1,\xf0\x9f', 'latin1'))).rejects.toThrow(CsvFormatError);
  });

  it('keeps a leading U+FEFF, which is data', async () => {
    expect(await parse('\uFEFFa,b\n')).toEqual([['\uFEFFa', 'b']]);
  });

  it('refuses a quoted field that never closes, or text after a closing quote, with the line', async () => {
    await expect(parse('1,"open\n')).rejects.toThrow(CsvFormatError);
    await expect(parse('1,ok\n2,"x"y\n')).rejects.toThrow('CSV line 2');
  });
});
