/** A field of a CSV record as read: its bytes, quotes removed and doubled quotes undone, and whether it was quoted. */
export interface CsvField {
  bytes: Buffer;
  quoted: boolean;
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const NEWLINE = 0x0a;

/**
 * RFC 4180 records read byte by byte as chunks arrive, a chunk ending anywhere (inside a quoted field, a doubled
 * quote or a character): `\n` outside quotes ends a record, every other byte outside quotes (`\r` included) is data.
 * Both readers of these files use it: the stager's rewrite for Redshift (redshift-file-rows.ts) and the test hook's
 * COPY (redshift-copy-on-postgres.ts), each deciding what an empty or unquoted field means.
 */
export class CsvRecordReader {
  private readonly field = new GrowableBytes();
  private fields: CsvField[] = [];
  private quoted = false;
  private inQuotes = false;
  /** A quote inside quotes: a doubled quote or the closing one; the next byte decides. */
  private quotePending = false;

  /** Reads `chunk`, handing each record it completes to `onRecord`. */
  push(chunk: Buffer, onRecord: (fields: CsvField[]) => void): void {
    for (let index = 0; index < chunk.length; index += 1) {
      const record = this.take(chunk[index] ?? 0);
      if (record !== null) onRecord(record);
    }
  }

  /** Whether the input ended between records (a quote still pending at the end closes its field). */
  endsCleanly(): boolean {
    if (this.quotePending) {
      this.quotePending = false;
      this.inQuotes = false;
    }
    return !this.inQuotes && this.fields.length === 0 && this.field.length === 0 && !this.quoted;
  }

  private take(byte: number): CsvField[] | null {
    if (this.inQuotes) {
      if (this.quotePending) {
        this.quotePending = false;
        if (byte === QUOTE) {
          this.field.push(QUOTE);
          return null;
        }
        this.inQuotes = false;
      } else if (byte === QUOTE) {
        this.quotePending = true;
        return null;
      } else {
        this.field.push(byte);
        return null;
      }
    }
    if (byte === QUOTE && !this.quoted && this.field.length === 0) {
      this.quoted = true;
      this.inQuotes = true;
    } else if (byte === COMMA) {
      this.endField();
    } else if (byte === NEWLINE) {
      this.endField();
      const record = this.fields;
      this.fields = [];
      return record;
    } else {
      this.field.push(byte);
    }
    return null;
  }

  private endField(): void {
    this.fields.push({ bytes: this.field.copy(), quoted: this.quoted });
    this.field.clear();
    this.quoted = false;
  }
}

/** A byte buffer that grows by doubling: the field being read. */
class GrowableBytes {
  private bytes = Buffer.allocUnsafe(256);
  length = 0;

  push(byte: number): void {
    if (this.length === this.bytes.length) {
      const larger = Buffer.allocUnsafe(this.bytes.length * 2);
      this.bytes.copy(larger, 0, 0, this.length);
      this.bytes = larger;
    }
    this.bytes[this.length] = byte;
    this.length += 1;
  }

  copy(): Buffer {
    return Buffer.from(this.bytes.subarray(0, this.length));
  }

  clear(): void {
    this.length = 0;
  }
}
