import { CsvRowScanner, splitCsvParts } from './csv-parts';

async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

async function collect(text: string, chunkSize: number, partBytes: number): Promise<{ parts: string[]; rows: number[] }> {
  const parts: string[] = [];
  const rows: number[] = [];
  for await (const part of splitCsvParts(chunked(text, chunkSize), partBytes)) {
    const pieces: Buffer[] = [];
    for await (const chunk of part.chunks) pieces.push(chunk);
    parts.push(Buffer.concat(pieces).toString());
    rows.push(part.rowCount());
  }
  return { parts, rows };
}

describe('CsvRowScanner', () => {
  it('counts rows, ignoring newlines and escaped quotes inside quoted fields', () => {
    const scanner = new CsvRowScanner();
    scanner.scan(Buffer.from('1,"a\nb"\n2,"say ""hi""\n"\n3,x\n'));
    expect(scanner.rows).toBe(3);
  });
});

describe('splitCsvParts', () => {
  const rows = Array.from({ length: 50 }, (_, i) => `${i},"text with\nnewline ${i}","q""${i}"\n`).join('');

  it.each([
    [1, 40],
    [7, 100],
    [1000, 300],
    [64, 1_000_000],
  ])('cuts at row boundaries only (chunks of %i bytes, parts of %i bytes)', async (chunkSize, partBytes) => {
    const { parts, rows: counts } = await collect(rows, chunkSize, partBytes);
    expect(parts.join('')).toBe(rows);
    for (const part of parts) {
      const scanner = new CsvRowScanner();
      scanner.scan(Buffer.from(part));
      expect(part.endsWith('\n')).toBe(true);
      expect(scanner.rows).toBeGreaterThan(0);
    }
    expect(counts.reduce((a, b) => a + b, 0)).toBe(50);
    if (partBytes >= rows.length) expect(parts).toHaveLength(1);
    else expect(parts.length).toBeGreaterThan(1);
  });

  it('keeps a single huge row whole', async () => {
    const big = `1,"${'x'.repeat(100000)}"\n2,y\n`;
    const { parts } = await collect(big, 4096, 1024);
    expect(parts[0]).toBe(`1,"${'x'.repeat(100000)}"\n`);
    expect(parts.join('')).toBe(big);
  });

  it('yields one empty part for empty input', async () => {
    expect(await collect('', 10, 10)).toEqual({ parts: [''], rows: [0] });
  });
});
