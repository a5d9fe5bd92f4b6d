import { CHANGE_OPERATION_COLUMN, tableKey, type BatchDescriptor } from '@svc/contracts';
import { EngineError, type StagedRowsRewriter } from '@svc/engines';
import { CsvRecordReader, type CsvField } from './csv-records';
import { REDSHIFT_NULL_MARKER } from './null-marker';
import { copyTimeText, type TimeForm } from './redshift-time-text';
import { redshiftColumnType } from './redshift-types';

/**
 * A value or row Redshift cannot load as it is: the table stops before any file of the batch is named by a
 * manifest (its rows stay staged), with a reason naming table, column or row size, the rule, and the key's column
 * names. The key's values may be sensitive: they are only the failure's detail (Describe's LastErrorDetail, for keys
 * allowed DescribeReplicationErrorDetails), like any server's words about a row.
 */
export class RedshiftValueError extends EngineError {
  readonly kind = 'invalid-data';
  override readonly serviceWorded = true;
  override readonly valueDetail: string | undefined;

  constructor(message: string, valueDetail?: string) {
    super(message);
    this.name = 'RedshiftValueError';
    this.valueDetail = valueDetail;
  }
}

/** A column of the batch's CSV as the files for Redshift need it. */
export interface FileColumn {
  name: string;
  /** Bytes the loaded value may have; null: nothing to check. */
  capacityBytes: number | null;
  /** 'hex': binary text `\x…` (the interchange format's), written as bare hex. */
  form: 'text' | 'hex';
  /** Values the column's Redshift type cannot hold (redshiftColumnType's `finite`). */
  finite?: 'decimal' | 'datetime';
  /** A date or time, rewritten in a form COPY documents (redshiftColumnType's `time`). */
  time?: TimeForm;
}

export interface FileRowsLayout {
  table: string;
  columns: readonly FileColumn[];
  /** Indexes into `columns` of the key columns, for messages; empty for a table without a key (rows are then numbered). */
  keyColumns: readonly number[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OUTPUT_CHUNK_BYTES = 64 * 1024;
const KEY_VALUE_CHARACTERS = 100;
/**
 * COPY's limit of one row: "The maximum size of a single input row from any source is 4 MB" (AWS, COPY, Data
 * sources: https://docs.aws.amazon.com/redshift/latest/dg/copy-parameters-data-source.html). Counted as 4,000,000
 * bytes of the row as written (quotes, commas, hex, newline), the smaller reading of "4 MB": a row the cluster would
 * refuse never reaches a COPY, which would fail the batch on every retry.
 */
export const MAX_COPY_ROW_BYTES = 4_000_000;
/**
 * Redshift's DECIMAL is a scaled 128-bit integer ("128-bit signed integers with up to 38 digits of precision", AWS,
 * Numeric types): PostgreSQL's NaN and ±Infinity have no value in it.
 */
const NOT_A_DECIMAL = /^[+-]?(?:nan|infinity)$/i;
/**
 * Redshift's DATE and TIMESTAMP range from 4713 BC to 294276 AD (AWS, Datetime types), with no infinity. PostgreSQL
 * writes ±infinity as such, a BC date with a trailing ` BC` (`0044-03-15 BC`, `0044-03-15 08:00:00+00 BC`), and
 * dates up to 5874897 AD.
 */
const INFINITY = /^[+-]?infinity$/i;
const BC = /\sBC$/i;
const MAX_REDSHIFT_YEAR = 294276;
const NULL_MARKER = Buffer.from(REDSHIFT_NULL_MARKER);
const QUOTE_BYTE = Buffer.from('"');
const COMMA_BYTE = Buffer.from(',');
const NEWLINE_BYTE = Buffer.from('\n');

/** The layout of a batch's files: change rows lead with the operation column. */
export function fileRowsLayout(batch: BatchDescriptor): FileRowsLayout {
  const { definition } = batch;
  const columns: FileColumn[] = definition.columns.map((column) => {
    const { capacityBytes, form, finite, time } = redshiftColumnType(column.portableType);
    return { name: column.name, capacityBytes, form, ...(finite !== undefined && { finite }), ...(time !== undefined && { time }) };
  });
  const withOperation = batch.body.kind === 'changes';
  const all = withOperation ? [{ name: CHANGE_OPERATION_COLUMN, capacityBytes: null, form: 'text' as const }, ...columns] : columns;
  const offset = withOperation ? 1 : 0;
  const keyColumns = definition.primaryKey.map((key) => definition.columns.findIndex((column) => column.name === key) + offset);
  return { table: tableKey(definition.table), columns: all, keyColumns };
}

/**
 * The batch's rows, in the row interchange format (@svc/contracts row-format.ts: NULL an unquoted empty field, '' as
 * `""`), rewritten for Redshift's COPY (docs/REDSHIFT.md): NULL as the unquoted marker `\N`, every other value
 * quoted, binary as bare lower-case hex, dates and times in forms COPY documents (redshift-time-text.ts). A value
 * Redshift would misread, cut or load as NULL where NULL cannot go is refused (RedshiftValueError): a value that is
 * exactly the marker, one longer in bytes than its column, an empty binary key. One row is held at a time.
 */
export class RedshiftFileRows implements StagedRowsRewriter {
  private readonly reader = new CsvRecordReader();
  private readonly keys: ReadonlySet<number>;
  private fields: (Buffer | null)[] = [];
  private rowNumber = 0;
  private output: Buffer[] = [];
  private outputBytes = 0;
  /** Bytes written of the row being written: COPY refuses a row over MAX_COPY_ROW_BYTES. */
  private rowBytes = 0;

  constructor(private readonly layout: FileRowsLayout) {
    this.keys = new Set(layout.keyColumns);
  }

  push(chunk: Buffer): Buffer[] {
    this.reader.push(chunk, (fields) => this.writeRow(fields));
    return this.flush(false);
  }

  end(): Buffer[] {
    if (!this.reader.endsCleanly()) throw new Error(`${this.layout.table}: the batch's rows end inside row ${this.rowNumber + 1}`);
    return this.flush(true);
  }

  private writeRow(fields: readonly CsvField[]): void {
    this.rowNumber += 1;
    this.fields = fields.map(({ bytes, quoted }) => (quoted || bytes.length > 0 ? bytes : null));
    const { columns } = this.layout;
    if (this.fields.length !== columns.length) {
      throw new Error(`${this.layout.table}: row ${this.rowNumber} of the batch has ${this.fields.length} fields, not ${columns.length}`);
    }
    this.rowBytes = 0;
    this.fields.forEach((value, index) => {
      if (index > 0) this.emit(COMMA_BYTE);
      this.emitField(value, columns[index] ?? { name: '?', capacityBytes: null, form: 'text' }, this.keys.has(index));
    });
    this.emit(NEWLINE_BYTE);
    if (this.rowBytes > MAX_COPY_ROW_BYTES) {
      throw this.refusal(
        `a row of ${this.rowBytes} bytes as written for COPY exceeds Redshift's limit of ${MAX_COPY_ROW_BYTES} bytes an input row ("4 MB"); ` +
          'the table stops before its files are loaded',
      );
    }
    this.fields = [];
  }

  private emitField(value: Buffer | null, column: FileColumn, isKey: boolean): void {
    if (value === null) {
      this.emit(NULL_MARKER);
      return;
    }
    if (value.equals(NULL_MARKER)) this.refuse(column, `the value ${REDSHIFT_NULL_MARKER} cannot be loaded into Redshift, which reads it as NULL`);
    if (column.finite !== undefined) this.checkFinite(value, column);
    let written = column.time === undefined ? value : this.timeText(value, column, column.time);
    let bytes = written.length;
    if (column.form === 'hex') {
      if (value.length < 2 || value[0] !== BACKSLASH || value[1] !== 0x78) this.refuse(column, 'a binary value that is not PostgreSQL hex text (\\x…)');
      written = lowerCaseHex(value.subarray(2));
      bytes = Math.ceil(written.length / 2);
      // "Empty fields for other data types, such as INT, are always loaded with NULL" (AWS, COPY, Data conversion
      // parameters): zero bytes are an empty hex field, NULL in Redshift, and the key columns are NOT NULL.
      if (bytes === 0 && isKey) {
        this.refuse(column, 'an empty binary value (zero bytes) in a key column cannot be loaded into Redshift, whose COPY loads an empty VARBYTE field as NULL, and a key is never NULL');
      }
    }
    if (column.capacityBytes !== null && bytes > column.capacityBytes) {
      this.refuse(column, `a value of ${bytes} bytes does not fit Redshift's ${column.capacityBytes}-byte column`);
    }
    this.emit(QUOTE_BYTE);
    this.emitEscaped(written);
    this.emit(QUOTE_BYTE);
  }

  /** A date or time as COPY reads it (redshift-time-text.ts); the reason names the rule, never the value. */
  private timeText(value: Buffer, column: FileColumn, form: TimeForm): Buffer {
    const rewritten = copyTimeText(form, value.toString('latin1'));
    if ('problem' in rewritten) this.refuse(column, rewritten.problem);
    return rewritten.text === value.toString('latin1') ? value : Buffer.from(rewritten.text, 'latin1');
  }

  /** The value with every quote doubled. */
  private emitEscaped(value: Buffer): void {
    let start = 0;
    for (let quote = value.indexOf(QUOTE); quote !== -1; quote = value.indexOf(QUOTE, quote + 1)) {
      this.emit(value.subarray(start, quote + 1));
      this.emit(QUOTE_BYTE);
      start = quote + 1;
    }
    this.emit(value.subarray(start));
  }

  /**
   * PostgreSQL's NaN, infinities, BC dates and years past 294276 AD: no Redshift DECIMAL, DATE or TIMESTAMP holds
   * them. The reason names what kind of value it is, never the value (a date is a row value).
   */
  private checkFinite(value: Buffer, column: FileColumn): void {
    if (value.length > 40) return;
    const text = value.toString('latin1');
    if (column.finite === 'decimal') {
      const special = NOT_A_DECIMAL.exec(text);
      if (special !== null) this.refuse(column, `${/nan/i.test(text) ? 'NaN' : 'an infinity'} is no value of Redshift's DECIMAL (a scaled 128-bit integer)`);
      return;
    }
    const kind = INFINITY.test(text) ? 'an infinity' : BC.test(text) ? 'a BC date' : Number(/^\d+/.exec(text)?.[0] ?? 0) > MAX_REDSHIFT_YEAR ? `a date after ${MAX_REDSHIFT_YEAR} AD` : null;
    if (kind !== null) {
      this.refuse(column, `${kind} is refused: Redshift's dates and timestamps range from 4713 BC to 294276 AD with no infinity, and how COPY reads PostgreSQL's BC dates is undocumented`);
    }
  }

  private refuse(column: FileColumn, problem: string): never {
    throw this.refusal(`column ${column.name}: ${problem}`);
  }

  /** The error for the row being written: the key's column names in the reason, its values in the detail only. */
  private refusal(problem: string): RedshiftValueError {
    const { keyColumns, columns, table } = this.layout;
    if (keyColumns.length === 0) return new RedshiftValueError(`Warehouse: ${table}, row ${this.rowNumber} of the batch (no key), ${problem}`);
    const names = keyColumns.map((index) => columns[index]?.name ?? '?');
    const values = keyColumns.map((index, position) => {
      const text = this.fields[index]?.toString('utf8') ?? 'NULL';
      const shown = [...text].length > KEY_VALUE_CHARACTERS ? `${[...text].slice(0, KEY_VALUE_CHARACTERS).join('')}…` : text;
      return `${names[position] ?? '?'}=${shown}`;
    });
    return new RedshiftValueError(`Warehouse: ${table}, row of key (${names.join(', ')}), ${problem}`, `${table}: the row of key (${values.join(', ')})`);
  }

  private emit(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.output.push(bytes);
    this.outputBytes += bytes.length;
    this.rowBytes += bytes.length;
  }

  /** Output in chunks of about 64 KiB; the last, smaller one only at the end. */
  private flush(all: boolean): Buffer[] {
    if (this.outputBytes === 0 || (!all && this.outputBytes < OUTPUT_CHUNK_BYTES)) return [];
    const chunk = Buffer.concat(this.output, this.outputBytes);
    this.output = [];
    this.outputBytes = 0;
    return [chunk];
  }
}

const UPPER_A = 0x41;
const UPPER_F = 0x46;
const TO_LOWER = 0x20;

/**
 * Hex digits in lower case (SQL Server writes them upper, PostgreSQL lower): one spelling of a value's bytes whatever
 * the source, the one the Redshift-on-PostgreSQL double, which keeps VARBYTE as this text, compares keys in.
 */
function lowerCaseHex(hex: Buffer): Buffer {
  const lower = Buffer.from(hex);
  for (let index = 0; index < lower.length; index += 1) {
    const byte = lower[index] ?? 0;
    if (byte >= UPPER_A && byte <= UPPER_F) lower[index] = byte + TO_LOWER;
  }
  return lower;
}
