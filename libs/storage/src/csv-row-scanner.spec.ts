import { CsvRowScanner } from './csv-row-scanner';

/** Row ends (offsets just past each row's '\n') found by feeding `bytes` in the given chunk sizes. */
function rowEndsFound(bytes: Buffer, chunkSizes: () => number): number[] {
  const scanner = new CsvRowScanner();
  const ends: number[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const chunkEnd = Math.min(bytes.length, offset + chunkSizes());
    let chunk = bytes.subarray(offset, chunkEnd);
    let chunkStart = offset;
    for (;;) {
      const end = scanner.passToRowEnd(chunk);
      if (end === -1) break;
      ends.push(chunkStart + end);
      expect(scanner.atRowBoundary).toBe(true);
      chunk = chunk.subarray(end);
      chunkStart += end;
    }
    offset = chunkEnd;
  }
  return ends;
}

/** A deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const FIELD_PIECES = ['a', 'é', '😀', ',', '"', '""', '\n', '\r\n', ' ', '{x,"y"}', ''];

function randomCsv(rows: number, next: () => number): { bytes: Buffer; rowEnds: number[] } {
  const parts: Buffer[] = [];
  const rowEnds: number[] = [];
  let length = 0;
  for (let row = 0; row < rows; row++) {
    const fields: string[] = [];
    const fieldCount = 1 + Math.floor(next() * 4);
    for (let field = 0; field < fieldCount; field++) {
      if (next() < 0.2) {
        fields.push(''); // NULL
        continue;
      }
      let text = '';
      const pieces = Math.floor(next() * 6);
      for (let piece = 0; piece < pieces; piece++) text += FIELD_PIECES[Math.floor(next() * FIELD_PIECES.length)] ?? '';
      fields.push(/[",\n\r]/.test(text) || text === '' ? `"${text.replace(/"/g, '""')}"` : text);
    }
    const line = Buffer.from(`${fields.join(',')}\n`, 'utf8');
    parts.push(line);
    length += line.length;
    rowEnds.push(length);
  }
  return { bytes: Buffer.concat(parts), rowEnds };
}

describe('CsvRowScanner', () => {
  it('finds the row ends, ignoring newlines inside quotes, whatever the chunking', () => {
    const csv = Buffer.from('1,"a\nb"\n2,"say ""hi""\n"\n3,\n,""\n', 'utf8');
    const expected = [8, 24, 27, 31];
    for (const size of [1, 2, 3, 5, 8, 1000]) expect(rowEndsFound(csv, () => size)).toEqual(expected);
  });

  it.each([1, 2, 3, 4, 5])('agrees with the rows that were written (random CSV, seed %i)', (seed) => {
    const next = random(seed);
    const { bytes, rowEnds } = randomCsv(300, next);
    expect(rowEndsFound(bytes, () => 1 + Math.floor(next() * 40))).toEqual(rowEnds);
  });

  it('knows whether the bytes passed so far end with a whole row', () => {
    const scanner = new CsvRowScanner();
    expect(scanner.atRowBoundary).toBe(true);
    scanner.pass(Buffer.from('1,"x\n'));
    expect(scanner.atRowBoundary).toBe(false);
    scanner.pass(Buffer.from('y"'));
    expect(scanner.atRowBoundary).toBe(false);
    scanner.pass(Buffer.from('\n'));
    expect(scanner.atRowBoundary).toBe(true);
    scanner.pass(Buffer.from(''));
    expect(scanner.atRowBoundary).toBe(true);
    scanner.pass(Buffer.from('2,""""\n3'));
    expect(scanner.atRowBoundary).toBe(false);
    expect(scanner.passToRowEnd(Buffer.from(',"\n"\n'))).toBe(5);
  });

  it('carries the quote state from pass() into passToRowEnd()', () => {
    const scanner = new CsvRowScanner();
    scanner.pass(Buffer.from('1,"open'));
    expect(scanner.passToRowEnd(Buffer.from('\nstill inside"\n'))).toBe(15);
  });
});
