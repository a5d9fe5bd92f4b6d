import type { ClientBase } from 'pg';
import { CsvRecordReader, type CsvField } from './csv-records';
import { REDSHIFT_NULL_MARKER } from './null-marker';
import { quoteIdent } from './redshift-identifiers';

/*
 * The test hook's COPY (stdinCopyLoader, dialect 'postgres'): the batch's files read as Redshift's
 * `COPY … FORMAT AS CSV NULL AS '\N' TIMEFORMAT 'auto' DATEFORMAT 'auto'` is documented to read them, then handed to
 * PostgreSQL's COPY FROM STDIN, which reads more than Redshift documents and keeps what Redshift would not:
 *
 * - "Empty fields for other data types, such as INT, are always loaded with NULL" (AWS, COPY, Data conversion
 *   parameters, BLANKSASNULL and EMPTYASNULL: https://docs.aws.amazon.com/redshift/latest/dg/copy-parameters-data-conversion.html):
 *   an empty field, quoted or not, is NULL unless its column is CHAR or VARCHAR. The double holds VARBYTE as
 *   PostgreSQL's text (redshift-sql.ts, columnType), so its empty hex is NULL here as on a cluster.
 * - `NULL AS '\N'`: "Loads fields that match null_string as NULL" (same page), quoted or not.
 * - Dates and times are loaded only in forms the documentation lists. "The default date format is YYYY-MM-DD. The
 *   default timestamp without time zone (TIMESTAMP) format is YYYY-MM-DD HH:MI:SS. The default timestamp with time zone
 *   (TIMESTAMPTZ) format is YYYY-MM-DD HH:MI:SSOF, where OF is the offset from UTC (for example, -8:00" and "The
 *   seconds (SS) field also supports fractional seconds up to a microsecond level of detail" (AWS, DATEFORMAT and
 *   TIMEFORMAT strings: https://docs.aws.amazon.com/redshift/latest/dg/r_DATEFORMAT_and_TIMEFORMAT_strings.html);
 *   'auto' adds "ISO 8601 | 2019-02-11T05:09:12.195Z" and "YYYY-MM-DD HH:MI:SS+/-TZ | 1997-12-17 07:37:16-08" (AWS,
 *   Using automatic recognition with DATEFORMAT and TIMEFORMAT: https://docs.aws.amazon.com/redshift/latest/dg/automatic-recognition.html).
 *   TIME and TIMETZ take "04:05:06.789" (AWS, Date, time, and timestamp literals: r_Date_and_time_literals.html) and
 *   an offset written after the time ("00:00:00+1459", AWS, Datetime types: r_Datetime_types.html). No page lists a
 *   seventh fractional digit or a blank before the offset: those, and any other form, fail the COPY.
 *
 * What it does not model: the other forms 'auto' lists (Julian days, month names, YYYYMMDD…), which the files never
 * carry, and years past 9999, which it takes (a live cluster's answer is in docs/REDSHIFT.md's list).
 */

/** How COPY reads a column's fields, from the type the double declared for it. */
export type CopyColumnKind = 'character' | 'binary' | 'date' | 'time' | 'timetz' | 'timestamp' | 'timestamptz' | 'other';

export interface CopyColumn {
  name: string;
  kind: CopyColumnKind;
}

/** PostgreSQL's type OIDs (pg_type) of the types the double declares for Redshift's. */
const KIND_OF_TYPE_OID: ReadonlyMap<number, CopyColumnKind> = new Map([
  [1042, 'character'], // bpchar: CHAR(n)
  [1043, 'character'], // varchar: VARCHAR(n)
  [25, 'binary'], // text: the double's VARBYTE
  [1082, 'date'],
  [1083, 'time'],
  [1266, 'timetz'],
  [1114, 'timestamp'],
  [1184, 'timestamptz'],
]);

const DATE = '\\d{4,}-\\d{2}-\\d{2}';
const TIME = '\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?';
const OFFSET = '(?:Z|[+-]\\d{1,2}(?::?\\d{2})?)';
const DOCUMENTED_FORMS: Readonly<Record<'date' | 'time' | 'timetz' | 'timestamp' | 'timestamptz', RegExp>> = {
  date: new RegExp(`^${DATE}$`),
  time: new RegExp(`^${TIME}$`),
  timetz: new RegExp(`^${TIME}${OFFSET}$`),
  timestamp: new RegExp(`^${DATE}[ T]${TIME}$`),
  timestamptz: new RegExp(`^${DATE}[ T]${TIME}${OFFSET}$`),
};

const NULL_MARKER = Buffer.from(REDSHIFT_NULL_MARKER);
const QUOTE = Buffer.from('"');
const COMMA = Buffer.from(',');
const NEWLINE = Buffer.from('\n');
const EMPTY = Buffer.alloc(0);

/** The kinds of the COPY's columns, in its order, from the types the target table declares. */
export async function copyColumnsOf(client: ClientBase, table: string, columns: readonly string[]): Promise<CopyColumn[]> {
  const probe = await client.query(`SELECT ${columns.map(quoteIdent).join(', ')} FROM ${table} LIMIT 0`);
  return columns.map((name, index) => ({ name, kind: KIND_OF_TYPE_OID.get(probe.fields[index]?.dataTypeID ?? 0) ?? 'other' }));
}

/**
 * The files' rows as Redshift's COPY reads them, rewritten for PostgreSQL's `COPY … (FORMAT csv, NULL '\N')`: NULL as
 * the unquoted marker, every other value quoted. A field COPY would refuse fails the load as Redshift's does
 * (SQLSTATE XX000, "Load into table … failed"), naming line, column and rule, never the value.
 */
export class RedshiftCopyInput {
  private readonly reader = new CsvRecordReader();
  private line = 0;

  constructor(
    private readonly table: string,
    private readonly columns: readonly CopyColumn[],
  ) {}

  push(chunk: Buffer): Buffer[] {
    const output: Buffer[] = [];
    this.reader.push(chunk, (fields) => output.push(this.record(fields)));
    return output;
  }

  end(): Buffer[] {
    if (!this.reader.endsCleanly()) throw this.refusal(`line ${this.line + 1}: the file ends inside a record`);
    return [];
  }

  private record(fields: readonly CsvField[]): Buffer {
    this.line += 1;
    if (fields.length !== this.columns.length) throw this.refusal(`line ${this.line}: ${fields.length} fields for ${this.columns.length} columns`);
    const parts = fields.flatMap((field, index) => [index === 0 ? EMPTY : COMMA, this.field(field, this.columns[index] ?? { name: '?', kind: 'other' })]);
    return Buffer.concat([...parts, NEWLINE]);
  }

  private field({ bytes }: CsvField, column: CopyColumn): Buffer {
    if (bytes.equals(NULL_MARKER) || (bytes.length === 0 && column.kind !== 'character')) return NULL_MARKER;
    const { kind } = column;
    if (kind !== 'character' && kind !== 'binary' && kind !== 'other' && !DOCUMENTED_FORMS[kind].test(bytes.toString('latin1'))) {
      throw this.refusal(`line ${this.line}, column ${column.name} (${kind}): Invalid ${kind} format, in no form COPY's DATEFORMAT/TIMEFORMAT 'auto' documents`);
    }
    return Buffer.concat([QUOTE, Buffer.from(bytes.toString('latin1').replace(/"/g, '""'), 'latin1'), QUOTE]);
  }

  private refusal(detail: string): Error {
    return Object.assign(new Error(`Load into table '${this.table}' failed (the Redshift double's COPY): ${detail}`), { code: 'XX000' });
  }
}
