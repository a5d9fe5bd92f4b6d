import { CsvFormatError, csvRecords, type CsvField } from './csv-records';

async function parsed(chunks: readonly Buffer[]): Promise<CsvField[][]> {
  const records: CsvField[][] = [];
  for await (const record of csvRecords((async function* () {
    yield* chunks;
  })())) records.push(record);
  return records;
}

/** The text cut at every byte: each cut falls somewhere else (inside quotes, inside a UTF-8 character). */
function everyCut(text: string): Buffer[][] {
  const bytes = Buffer.from(text, 'utf8');
  return Array.from({ length: bytes.length + 1 }, (_, at) => [bytes.subarray(0, at), bytes.subarray(at)]);
}

describe('csvRecords (the row interchange format, docs/ROW-FORMAT.md)', () => {
  it('keeps NULL (an unquoted empty field) and the empty string ("") apart', async () => {
    expect(await parsed([Buffer.from('1,,"",x\n,\n""\n')])).toEqual([
      ['1', null, '', 'x'],
      [null, null],
      [''],
    ]);
  });

  it('reads doubled quotes, commas, newlines and carriage returns inside quotes, and trailing blanks', async () => {
    expect(await parsed([Buffer.from('"a ""b""","c,d","e\nf","g\r\nh","i "\n')])).toEqual([['a "b"', 'c,d', 'e\nf', 'g\r\nh', 'i ']]);
  });

  it('takes a last record without its newline, and \\r\\n record ends', async () => {
    expect(await parsed([Buffer.from('1,a\r\n2,"b"\r\n3,')])).toEqual([
      ['1', 'a'],
      ['2', 'b'],
      ['3', null],
    ]);
  });

  it('reads the same records wherever the chunks are cut, inside quotes and inside multi-byte characters', async () => {
    const text = '"I","1","é😀 ""q""",\n"D",2,,"x"\r\n"U","3","",ü\n';
    const whole = await parsed([Buffer.from(text, 'utf8')]);
    expect(whole).toEqual([
      ['I', '1', 'é😀 "q"', null],
      ['D', '2', null, 'x'],
      ['U', '3', '', 'ü'],
    ]);
    for (const chunks of everyCut(text)) expect(await parsed(chunks)).toEqual(whole);
    expect(await parsed([...Buffer.from(text, 'utf8')].map((byte) => Buffer.from([byte])))).toEqual(whole);
  });

  it('refuses an unterminated quoted field, text after a closing quote, a quote inside an unquoted field, and bytes that are not UTF-8', async () => {
    await expect(parsed([Buffer.from('"I","2","an unterminated quoted field\n')])).rejects.toThrow(new CsvFormatError(1, 'a quoted field is not closed'));
    await expect(parsed([Buffer.from('1\n"a"b\n')])).rejects.toThrow(/CSV record 2: "b" after a closing quote/);
    await expect(parsed([Buffer.from('a"b\n')])).rejects.toThrow(/a quote inside an unquoted field/);
    await expect(parsed([Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22, 0x0a])])).rejects.toThrow(/not UTF-8/);
    await expect(parsed([Buffer.from([0x22, 0xe2, 0x82])])).rejects.toThrow(/not UTF-8/);
  });

  it('keeps a leading byte order mark: it is data', async () => {
    expect(await parsed([Buffer.from('\uFEFFa\n', 'utf8')])).toEqual([['\uFEFFa']]);
  });
});
