import { tableKey, type PortableType, type TableRef } from '@svc/contracts';
import { EngineError } from '@svc/engines';

/** A value as a statement's parameter: text, a number (booleans) or bytes (binary). */
export type StatementValue = string | number | Buffer | null;

/** A field of the row format MySQL cannot store in its staging column: the batch is refused, naming table and column. */
export class StagingValueError extends EngineError {
  readonly kind = 'invalid-data';
  override readonly serviceWorded = true;
  override readonly valueDetail: string;

  constructor(table: TableRef, column: string, record: number, why: string, value: string) {
    super(`${tableKey(table)}: column ${column}, batch record ${record}: ${why}`);
    this.name = 'StagingValueError';
    this.valueDetail = `the value: ${JSON.stringify(value)}`;
  }
}

/** Why a field cannot be stored, for StagingValueError; the caller adds where. */
class UnstorableValue extends Error {}

/** Turns one field's text (never NULL) into the parameter its staging column takes. */
export type FieldConverter = (text: string) => StatementValue;

const same: FieldConverter = (text) => text;

/** `t`, `true`, `f`, `false` (docs/ROW-FORMAT.md) as BOOLEAN's 1 and 0. */
function booleanValue(text: string): number {
  switch (text) {
    case 't':
    case 'true':
      return 1;
    case 'f':
    case 'false':
      return 0;
    default:
      throw new UnstorableValue('a boolean is t, true, f or false');
  }
}

/** `\x` and two hex digits a byte. */
function binaryValue(text: string): Buffer {
  if (!/^\\x(?:[0-9a-fA-F]{2})*$/.test(text)) throw new UnstorableValue('binary values are \\x and two hex digits a byte');
  return Buffer.from(text.slice(2), 'hex');
}

/** Years before 1 and infinities have no DATE or DATETIME ("The DATE, DATETIME, and TIMESTAMP Types"). */
function calendarText(text: string): string {
  if (text.endsWith(' BC') || /^-?infinity$/.test(text)) throw new UnstorableValue('MySQL dates have no years before 1 and no infinity');
  return text;
}

const ZONED_TIMESTAMP = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)? ?([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/;

const pad = (value: number, digits = 2): string => String(value).padStart(digits, '0');

/**
 * A timestamp with its offset as its reading in UTC, the DATETIME staging stores for an instant: `2024-02-29
 * 23:30:00.5+05:30` is `2024-02-29 18:00:00.5`. Done here rather than by CONVERT_TZ, which leaves a value outside
 * TIMESTAMP's range (1970–2038) unconverted ("Date and Time Functions", CONVERT_TZ).
 */
export function utcReading(text: string): string {
  calendarText(text);
  const match = ZONED_TIMESTAMP.exec(text);
  if (match === null) throw new UnstorableValue('a timestamp with a time zone is YYYY-MM-DD hh:mm:ss[.fraction] and its UTC offset');
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours, offsetMinutes = '0', offsetSeconds = '0'] = match;
  const instant = new Date(0);
  instant.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  instant.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  const offsetMs = (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * 1000;
  const utc = new Date(instant.getTime() - (sign === '-' ? -offsetMs : offsetMs));
  return (
    `${pad(utc.getUTCFullYear(), 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())} ` +
    `${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}${fraction}`
  );
}

/** How a column's fields become parameters, by its portable type (docs/ROW-FORMAT.md, "Fields, by portable kind"). */
export function fieldConverter(type: PortableType): FieldConverter {
  switch (type.kind) {
    case 'boolean':
      return booleanValue;
    case 'binary':
      return binaryValue;
    case 'date':
      return calendarText;
    case 'timestamp':
      return type.zone ? utcReading : calendarText;
    case 'integer':
    case 'decimal':
    case 'float':
    case 'text':
    case 'time':
    case 'interval':
    case 'uuid':
    case 'json':
    case 'array':
    case 'native':
      // Their text is what the column takes: strict mode makes the server refuse a number or time it cannot parse; texts are kept as written.
      return same;
  }
}

/** The converter of a column, with a failure worded with the table, the column and the record. */
export function columnConverter(table: TableRef, column: string, type: PortableType): (text: string, record: number) => StatementValue {
  const convert = fieldConverter(type);
  return (text, record) => {
    try {
      return convert(text);
    } catch (error) {
      if (error instanceof UnstorableValue) throw new StagingValueError(table, column, record, error.message, text);
      throw error;
    }
  };
}
