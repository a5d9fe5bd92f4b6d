import { TextDecoder } from 'node:util';
import type { CsvChunks } from '@svc/engines';

/** A CSV field: text, or null for an unquoted empty field (the pipeline's NULL; `""` is the empty string). */
export type CsvField = string | null;

export class CsvFormatError extends Error {
  constructor(line: number, detail: string) {
    super(`CSV line ${line}: ${detail}`);
    this.name = 'CsvFormatError';
  }
}

/**
 * The rows of the pipeline's CSV (PostgreSQL's `COPY … (FORMAT csv)`), parsed as the chunks arrive: chunk
 * boundaries may fall anywhere, inside a quoted field or a multi-byte character. Only one row is held at a
 * time, so memory stays bounded by the largest row.
 */
export async function* csvRows(chunks: CsvChunks): AsyncGenerator<CsvField[]> {
  // fatal: bytes that are not UTF-8 (say, a surrogate half encoded on its own) stop the batch instead of becoming
  // U+FFFD, which would make two values one; ignoreBOM keeps a leading U+FEFF, which is data.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parser = new CsvParser();
  for await (const chunk of chunks) yield* parser.feed(decoded(decoder, parser, chunk));
  yield* parser.feed(decoded(decoder, parser));
  yield* parser.end();
}

function decoded(decoder: TextDecoder, parser: CsvParser, chunk?: Buffer): string {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    throw new CsvFormatError(parser.lineNumber, 'bytes that are not UTF-8, on this line or a later one of the same chunk');
  }
}

class CsvParser {
  private row: CsvField[] = [];
  private field = '';
  /** Whether the field being read started with a quote (then an empty field is '' and not NULL). */
  private quoted = false;
  private inQuotes = false;
  /** A quote inside quotes: either the first of a doubled quote or the closing one; the next character decides. */
  private quoteSeen = false;
  private fieldStarted = false;
  private line = 1;

  /** The line being read. */
  get lineNumber(): number {
    return this.line;
  }

  *feed(text: string): Generator<CsvField[]> {
    for (const character of text) {
      if (this.inQuotes) {
        if (this.quoteSeen) {
          this.quoteSeen = false;
          if (character === '"') {
            this.field += '"';
            continue;
          }
          this.inQuotes = false;
          // The closing quote: the character after it is read as outside quotes, below.
        } else if (character === '"') {
          this.quoteSeen = true;
          continue;
        } else {
          if (character === '\n') this.line += 1;
          this.field += character;
          continue;
        }
      }
      if (character === ',') {
        this.endField();
      } else if (character === '\n') {
        this.endField();
        const row = this.row;
        this.row = [];
        this.line += 1;
        yield row;
      } else if (character === '\r') {
        // A \r\n line end: the \n ends the row.
      } else if (character === '"' && !this.fieldStarted) {
        this.inQuotes = true;
        this.quoted = true;
        this.fieldStarted = true;
      } else if (this.quoted) {
        throw new CsvFormatError(this.line, `unexpected ${JSON.stringify(character)} after a closing quote`);
      } else {
        this.field += character;
        this.fieldStarted = true;
      }
    }
  }

  *end(): Generator<CsvField[]> {
    if (this.inQuotes && !this.quoteSeen) throw new CsvFormatError(this.line, 'a quoted field is not closed');
    this.inQuotes = false;
    this.quoteSeen = false;
    if (this.fieldStarted || this.row.length > 0) {
      this.endField();
      const row = this.row;
      this.row = [];
      yield row;
    }
  }

  private endField(): void {
    this.row.push(this.quoted || this.field !== '' ? this.field : null);
    this.field = '';
    this.quoted = false;
    this.fieldStarted = false;
  }
}
