const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * Tracks CSV row boundaries across chunks: a row ends at a newline outside double quotes. Toggling on
 * every quote is exact for RFC 4180 CSV, because an escaped quote ("") toggles twice.
 */
export class CsvRowScanner {
  private quoted = false;
  rows = 0;

  /** Scans all of `chunk`, counting rows. */
  scan(chunk: Buffer): void {
    this.scanUntilBoundary(chunk, chunk.length);
  }

  /**
   * Scans `chunk` and stops just past the first row boundary at or after offset `from`; returns that offset,
   * or -1 when the chunk has no such boundary (then all of it was scanned).
   */
  scanUntilBoundary(chunk: Buffer, from: number): number {
    // Buffer.indexOf (memchr) jumps from quote to newline instead of looking at every byte in JavaScript:
    // a 256 MB seed is scanned in a fraction of the time.
    const end = chunk.length;
    let index = 0;
    let nextQuote = indexOrEnd(chunk, QUOTE, 0);
    while (index < end) {
      if (this.quoted) {
        if (nextQuote === end) return -1;
        this.quoted = false;
        index = nextQuote + 1;
        nextQuote = indexOrEnd(chunk, QUOTE, index);
        continue;
      }
      const newline = indexOrEnd(chunk, NEWLINE, index);
      if (nextQuote < newline) {
        this.quoted = true;
        index = nextQuote + 1;
        nextQuote = indexOrEnd(chunk, QUOTE, index);
        continue;
      }
      if (newline === end) return -1;
      this.rows += 1;
      if (newline >= from) return newline + 1;
      index = newline + 1;
    }
    return -1;
  }
}

function indexOrEnd(chunk: Buffer, byte: number, from: number): number {
  const found = chunk.indexOf(byte, from);
  return found === -1 ? chunk.length : found;
}

export interface CsvPart {
  index: number;
  chunks: AsyncGenerator<Buffer>;
  /** Rows in the part; valid once `chunks` is exhausted. */
  rowCount(): number;
}

/**
 * Splits a CSV byte stream into parts of about `partBytes`, each ending at a row boundary, so every part
 * can be loaded on its own. Parts must be consumed in order, each to its end, before asking for the next.
 * Yields at least one part (empty for empty input). A consumer that stops early (leaves its loop, or
 * throws) closes the source, so that a database stream behind it is released.
 */
export async function* splitCsvParts(source: AsyncIterable<Buffer>, partBytes: number): AsyncGenerator<CsvPart> {
  const iterator = source[Symbol.asyncIterator]();
  let carry: Buffer | null = null;
  let exhausted = false;
  let index = 0;
  try {
    for (;;) {
      if (!carry) {
        // Look ahead so the stream never ends with an empty part (the first may be empty: empty input), and
        // so that the source has started before a part is handed out: only a started one can be closed.
        const next = await iterator.next();
        if (next.done) {
          exhausted = true;
          if (index > 0) return;
        } else {
          carry = next.value;
        }
      }
      const scanner = new CsvRowScanner();
      let partDone = false;
      async function* partChunks(): AsyncGenerator<Buffer> {
        let written = 0;
        while (!partDone) {
          let chunk: Buffer;
          if (carry) {
            chunk = carry;
            carry = null;
          } else {
            const next = await iterator.next();
            if (next.done) {
              exhausted = true;
              partDone = true;
              return;
            }
            chunk = next.value;
          }
          if (written + chunk.length < partBytes) {
            scanner.scan(chunk);
            written += chunk.length;
            yield chunk;
            continue;
          }
          // Past the size: end the part at the first row boundary from here on.
          const boundary = scanner.scanUntilBoundary(chunk, Math.max(0, partBytes - written));
          if (boundary === -1) {
            written += chunk.length;
            yield chunk;
            continue;
          }
          if (boundary < chunk.length) carry = chunk.subarray(boundary);
          partDone = true;
          yield chunk.subarray(0, boundary);
        }
      }
      const chunks = partChunks();
      yield { index, chunks, rowCount: () => scanner.rows };
      // Drain whatever the consumer left, so the next part starts at the right byte.
      for await (const _ of chunks) void _;
      index += 1;
      if (exhausted) return;
    }
  } finally {
    if (!exhausted) await iterator.return?.();
  }
}
