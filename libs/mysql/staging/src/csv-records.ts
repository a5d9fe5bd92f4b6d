import { TextDecoder } from 'node:util';
import { EngineError, type CsvChunks } from '@svc/engines';

/** A field of the row interchange format (docs/ROW-FORMAT.md): text, or null for an unquoted empty field. */
export type CsvField = string | null;

/** Batch rows that are not the row interchange format: the batch is refused, naming the record. */
export class CsvFormatError extends EngineError {
  readonly kind = 'invalid-data';
  override readonly serviceWorded = true;

  constructor(record: number, detail: string) {
    super(`batch rows, CSV record ${record}: ${detail}`);
    this.name = 'CsvFormatError';
  }
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Where the parser stands: at a field's start, inside an unquoted or a quoted field, or just after a quote inside quotes. */
type ParserState = 'field-start' | 'unquoted' | 'quoted' | 'quote-in-quoted';

/**
 * The records of the row interchange format (RFC 4180, `\n` between records, NULL an unquoted empty field, `""` the
 * empty string), parsed as the chunks arrive: a chunk may end anywhere, inside a quoted field or inside a UTF-8
 * character. Only the record being read is held, so memory is bounded by the largest record.
 */
export async function* csvRecords(chunks: CsvChunks): AsyncGenerator<CsvField[]> {
  // fatal: bytes that are not UTF-8 stop the batch instead of becoming U+FFFD (two values would become one);
  // ignoreBOM keeps a leading U+FEFF, which is data.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parser = new CsvParser();
  for await (const chunk of chunks) yield* parser.feed(decodedText(decoder, parser, chunk));
  yield* parser.feed(decodedText(decoder, parser));
  yield* parser.end();
}

function decodedText(decoder: TextDecoder, parser: CsvParser, chunk?: Buffer): string {
  try {
    return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
  } catch {
    throw new CsvFormatError(parser.recordNumber, 'bytes that are not UTF-8, in this record or a later one of the same chunk');
  }
}

/** The delimiters are ASCII, so scanning UTF-16 code units finds them and never splits a surrogate pair. */
export class CsvParser {
  private state: ParserState = 'field-start';
  private record: CsvField[] = [];
  private field = '';
  private records = 0;

  /** The record being read, counted from 1. */
  get recordNumber(): number {
    return this.records + 1;
  }

  *feed(text: string): Generator<CsvField[]> {
    let at = 0;
    while (at < text.length) {
      switch (this.state) {
        case 'field-start': {
          const code = text.charCodeAt(at);
          if (code === QUOTE) {
            this.state = 'quoted';
            at += 1;
          } else if (code === COMMA) {
            this.record.push(null);
            at += 1;
          } else if (code === NEWLINE) {
            this.record.push(null);
            yield this.endRecord();
            at += 1;
          } else if (code === CARRIAGE_RETURN) {
            at += 1;
          } else {
            this.state = 'unquoted';
          }
          break;
        }
        case 'unquoted': {
          const end = nextDelimiter(text, at);
          this.field += text.slice(at, end);
          at = end;
          if (at >= text.length) break;
          const code = text.charCodeAt(at);
          at += 1;
          if (code === QUOTE) throw new CsvFormatError(this.recordNumber, 'a quote inside an unquoted field');
          // The \r of a \r\n record end (the writers quote a field that holds one).
          if (code === CARRIAGE_RETURN) break;
          this.pushField(this.field);
          if (code === NEWLINE) yield this.endRecord();
          else this.state = 'field-start';
          break;
        }
        case 'quoted': {
          const quote = text.indexOf('"', at);
          if (quote < 0) {
            this.field += text.slice(at);
            at = text.length;
          } else {
            this.field += text.slice(at, quote);
            at = quote + 1;
            this.state = 'quote-in-quoted';
          }
          break;
        }
        case 'quote-in-quoted': {
          const code = text.charCodeAt(at);
          at += 1;
          if (code === QUOTE) {
            this.field += '"';
            this.state = 'quoted';
          } else if (code === COMMA) {
            this.pushField(this.field);
            this.state = 'field-start';
          } else if (code === NEWLINE) {
            this.pushField(this.field);
            yield this.endRecord();
          } else if (code !== CARRIAGE_RETURN) {
            throw new CsvFormatError(this.recordNumber, `${JSON.stringify(text[at - 1])} after a closing quote`);
          }
          break;
        }
      }
    }
  }

  /** The last record when the text does not end with a newline; a quoted field left open is refused. */
  *end(): Generator<CsvField[]> {
    switch (this.state) {
      case 'quoted':
        throw new CsvFormatError(this.recordNumber, 'a quoted field is not closed');
      case 'unquoted':
      case 'quote-in-quoted':
        this.pushField(this.field);
        yield this.endRecord();
        return;
      case 'field-start':
        if (this.record.length > 0) {
          this.record.push(null);
          yield this.endRecord();
        }
        return;
    }
  }

  /** A field ended: an unquoted empty field is NULL, anything quoted is text (`""` the empty string). */
  private pushField(text: string): void {
    this.record.push(this.state === 'unquoted' && text === '' ? null : text);
    this.field = '';
  }

  private endRecord(): CsvField[] {
    const record = this.record;
    this.record = [];
    this.field = '';
    this.state = 'field-start';
    this.records += 1;
    return record;
  }
}

/** The index of the next comma, newline, carriage return or quote from `from`, or the text's length. */
function nextDelimiter(text: string, from: number): number {
  for (let at = from; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === COMMA || code === NEWLINE || code === CARRIAGE_RETURN || code === QUOTE) return at;
  }
  return text.length;
}
