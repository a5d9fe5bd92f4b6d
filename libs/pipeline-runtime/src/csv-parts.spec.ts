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

  /** The definition, byte by byte: a newline outside quotes ends a row; every quote toggles. */
  function boundaries(bytes: Buffer): number[] {
    const ends: number[] = [];
    let quoted = false;
    bytes.forEach((byte, index) => {
      if (byte === 0x22) quoted = !quoted;
      else if (byte === 0x0a && !quoted) ends.push(index + 1);
    });
    return ends;
  }

  it('finds exactly the row ends the byte-by-byte definition finds, however the bytes are chunked and wherever a cut is asked', () => {
    const alphabet = ['a', ',', '"', '\n', '""', ' '];
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: 1 + random(200) }, () => alphabet[random(alphabet.length)]).join('');
      const bytes = Buffer.from(text);
      const expected = boundaries(bytes);
      // Every row end, found by cutting at each next offset in chunks of a random size.
      const scanner = new CsvRowScanner();
      const found: number[] = [];
      const size = 1 + random(40);
      for (let offset = 0; offset < bytes.length; offset += size) {
        let chunk = bytes.subarray(offset, offset + size);
        let base = offset;
        for (;;) {
          const cut = scanner.scanUntilBoundary(chunk, 0);
          if (cut === -1) break;
          found.push(base + cut);
          base += cut;
          chunk = chunk.subarray(cut);
        }
      }
      expect(found).toEqual(expected);
      expect(scanner.rows).toBe(expected.length);
      const counter = new CsvRowScanner();
      counter.scan(bytes);
      expect(counter.rows).toBe(expected.length);
    }
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

  /** The rows as a generator source that counts how often it was closed. */
  function closeCountingSource(): { source: AsyncGenerator<Buffer>; timesClosed: () => number } {
    let closed = 0;
    async function* source(): AsyncGenerator<Buffer> {
      try {
        yield* chunked(rows, 16);
      } finally {
        closed += 1;
      }
    }
    return { source: source(), timesClosed: () => closed };
  }

  it('closes the source when the consumer stops between parts (a cancelled seed)', async () => {
    const { source, timesClosed } = closeCountingSource();
    for await (const part of splitCsvParts(source, 100)) {
      for await (const _ of part.chunks) void _;
      if (part.index === 1) break;
    }
    expect(timesClosed()).toBe(1);
  });

  it('closes a source that is a generator when the consumer stops before reading anything of the first part', async () => {
    const { source, timesClosed } = closeCountingSource();
    for await (const part of splitCsvParts(source, 100)) {
      expect(part.index).toBe(0);
      break;
    }
    expect(timesClosed()).toBe(1);
  });

  it('closes the source when the consumer throws', async () => {
    const returned: boolean[] = [];
    const source: AsyncIterable<Buffer> = {
      [Symbol.asyncIterator]: () => {
        const inner = chunked(rows, 16);
        return {
          next: () => inner.next(),
          return: async () => {
            returned.push(true);
            return inner.return(undefined);
          },
        };
      },
    };
    await expect(
      (async () => {
        for await (const part of splitCsvParts(source, 100)) {
          for await (const _ of part.chunks) void _;
          throw new Error('publishing failed');
        }
      })(),
    ).rejects.toThrow('publishing failed');
    expect(returned).toEqual([true]);
  });

  it('yields one empty part for empty input', async () => {
    expect(await collect('', 10, 10)).toEqual({ parts: [''], rows: [0] });
  });
});
