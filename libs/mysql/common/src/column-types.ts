import { Portable, type PortableType } from '@svc/contracts';

/** A column as information_schema.COLUMNS describes it (the catalog query's row). */
export interface MysqlColumnRow {
  name: string;
  /** DATA_TYPE, lower case: `bigint`, `varchar`, `enum`. */
  dataType: string;
  /** COLUMN_TYPE: `bigint(20) unsigned`, `enum('a','b')`, `decimal(65,30)`. */
  columnType: string;
  /** CHARACTER_MAXIMUM_LENGTH (characters for text, bytes for binary); null for other types. */
  characterLength: number | null;
  numericPrecision: number | null;
  numericScale: number | null;
  datetimePrecision: number | null;
  /** CHARACTER_SET_NAME; null for types without one. */
  characterSet: string | null;
  /** A MariaDB JSON column: LONGTEXT with its json_valid check. */
  json: boolean;
}

/** How the key of a change is read from the binary log's row image: which of these a column's key value decodes as. */
export type KeyForm = 'integer' | 'unsigned' | 'decimal' | 'text' | 'binary' | 'date' | 'datetime' | 'timestamp' | 'time' | 'year' | 'enum';

/**
 * One column as a source reads it: the portable type it travels as, the SQL that renders its value as text, how that
 * text becomes the row format's (row-format.ts), what a value loses on the way, and how its key value is read off the
 * binary log (null: it cannot be a followed table's key).
 */
export interface MysqlColumnPlan {
  portableType: PortableType;
  /** The select-list expression for the quoted column: a text the server renders, never a value the driver converts. */
  select(quoted: string): string;
  /** The row format's text of the server's text (null: NULL). */
  text(raw: string): string | null;
  changes: string | null;
  key: KeyForm | null;
  /** For `binary`: a fixed length the value is padded to with zero bytes (BINARY(n)). For `text`: the character set. */
  fixedBytes?: number;
  characterSet?: string;
  /** ENUM labels, in their order (index 1 is the first). */
  labels?: string[];
}

const same = (raw: string): string => raw;
const plain = (quoted: string): string => quoted;
const hexSelect = (quoted: string): string => `HEX(${quoted})`;
const hexText = (raw: string): string => `\\x${raw.toLowerCase()}`;
const ZERO_DATE_LOSS = 'zero dates (0000-00-00, or a zero month or day) have no calendar date: they arrive as NULL';

/** Leading zeros dropped, sign kept: `-0012` is `-12`, `0000` is `0`. */
function integerText(raw: string): string {
  const negative = raw.startsWith('-');
  const digits = raw.replace(/^[-+]/, '').replace(/^0+(?=\d)/, '');
  return negative && digits !== '0' ? `-${digits}` : digits;
}

/** A date with a zero year, month or day (MySQL's zero dates) is NULL: no calendar has it. */
function hasZeroDatePart(raw: string): boolean {
  return /^0000-|^\d{4}-00-|^\d{4}-\d{2}-00/.test(raw);
}

export function dateText(raw: string): string | null {
  return hasZeroDatePart(raw) ? null : raw;
}

/**
 * MySQL TIME is a signed duration up to 838:59:59, so it travels as an interval: `-01:02:03.5` is `PT-1H-2M-3.5S`,
 * each part with the sign (ROW-FORMAT.md).
 */
export function timeAsInterval(raw: string): string {
  const match = /^(-?)(\d+):(\d{2}):(\d{2})(?:\.(\d+))?$/.exec(raw);
  if (match === null) throw new Error(`a TIME value the server wrote as ${JSON.stringify(raw)} is not hh:mm:ss[.fraction]`);
  const [, sign = '', hours = '0', minutes = '0', seconds = '0', fraction = ''] = match;
  const trimmedFraction = fraction.replace(/0+$/, '');
  const secondsText = `${Number(seconds)}${trimmedFraction === '' ? '' : `.${trimmedFraction}`}`;
  return `PT${sign}${Number(hours)}H${sign}${Number(minutes)}M${sign}${secondsText}S`;
}

/** The shortest decimal text that reads back as the same single-precision value (the server prints FLOAT with 6 digits). */
export function float32Text(raw: string): string {
  const value = Number(raw);
  if (!Number.isFinite(value)) return raw;
  const single = Math.fround(value);
  for (let digits = 1; digits <= 9; digits += 1) {
    const candidate = Number(single.toPrecision(digits));
    if (Math.fround(candidate) === single) return String(candidate);
  }
  return String(single);
}

/** The escapes COLUMN_TYPE writes a label's characters with (the server's append_unescaped); any other escaped character is itself. */
const LABEL_ESCAPES: Readonly<Record<string, string>> = { '0': '\0', n: '\n', r: '\r', Z: '\x1a' };

/**
 * ENUM and SET labels as COLUMN_TYPE lists them: quoted, a quote doubled, and a backslash, NUL, newline or carriage
 * return written `\\`, `\0`, `\n`, `\r` (the server's append_unescaped): `enum('a','it''s','C:\\dir')`.
 */
export function labelsOf(columnType: string): string[] {
  const body = /^(?:enum|set)\((.*)\)$/is.exec(columnType)?.[1] ?? '';
  return [...body.matchAll(/'((?:[^'\\]|''|\\[\s\S])*)'/g)].map((match) =>
    (match[1] ?? '').replace(/''|\\([\s\S])/g, (_whole, escaped: string | undefined) => (escaped === undefined ? "'" : (LABEL_ESCAPES[escaped] ?? escaped))),
  );
}

const isUnsigned = (row: MysqlColumnRow) => /\bunsigned\b/i.test(row.columnType);
const precisionOf = (row: MysqlColumnRow) => Math.min(Math.max(row.datetimePrecision ?? 0, 0), 6);

/** Character sets whose bytes a key read off the binary log decodes to the same text the server renders. */
export const KEY_CHARACTER_SETS: Readonly<Record<string, string>> = { utf8mb4: 'utf-8', utf8mb3: 'utf-8', utf8: 'utf-8', latin1: 'windows-1252', ascii: 'windows-1252' };

/**
 * TINYTEXT and TEXT hold 255 and 65,535 bytes in their character set: as many UTF-8 bytes for a UTF-8 set, as many
 * characters (each maybe two UTF-8 bytes) for a single-byte set such as latin1.
 */
function boundedText(bytes: number, characterSet: string | null): PortableType {
  const utf8 = characterSet === null || characterSet.startsWith('utf8');
  return { kind: 'text', length: bytes, unit: utf8 ? 'bytes' : 'characters', fixed: false };
}

/** The plan of a column (null: a type this engine does not know, listed and refused when read). */
export function mysqlColumnPlan(row: MysqlColumnRow): MysqlColumnPlan | null {
  const integer = (portableType: PortableType, key: KeyForm): MysqlColumnPlan => ({ portableType, select: plain, text: integerText, changes: null, key });
  switch (row.dataType) {
    case 'tinyint':
      return integer(Portable.smallint(), isUnsigned(row) ? 'unsigned' : 'integer');
    case 'smallint':
      return integer(isUnsigned(row) ? Portable.integer() : Portable.smallint(), isUnsigned(row) ? 'unsigned' : 'integer');
    case 'mediumint':
      return integer(Portable.integer(), isUnsigned(row) ? 'unsigned' : 'integer');
    case 'int':
      return integer(isUnsigned(row) ? Portable.bigint() : Portable.integer(), isUnsigned(row) ? 'unsigned' : 'integer');
    case 'bigint':
      return isUnsigned(row)
        ? { portableType: Portable.decimal(20, 0), select: plain, text: integerText, changes: 'BIGINT UNSIGNED travels as decimal(20,0): no signed 8-byte integer holds 2^63 and above', key: 'unsigned' }
        : integer(Portable.bigint(), 'integer');
    case 'decimal':
    case 'numeric':
      return { portableType: Portable.decimal(row.numericPrecision ?? 10, row.numericScale ?? 0), select: plain, text: same, changes: null, key: 'decimal' };
    case 'float':
      return {
        portableType: Portable.float(4),
        select: (quoted) => `CAST(${quoted} AS DOUBLE)`,
        text: float32Text,
        changes: null,
        key: null,
      };
    case 'double':
    case 'real':
      return { portableType: Portable.float(8), select: plain, text: same, changes: null, key: null };
    case 'bit': {
      const bits = row.numericPrecision ?? 1;
      if (bits === 1) return { portableType: Portable.boolean(), select: (quoted) => `${quoted} + 0`, text: (raw) => (raw === '0' ? 'f' : 't'), changes: 'BIT(1) travels as a boolean', key: null };
      const bytes = Math.ceil(bits / 8);
      return {
        portableType: Portable.binary(bytes, true),
        select: (quoted) => `LPAD(HEX(${quoted}), ${bytes * 2}, '0')`,
        text: hexText,
        changes: `BIT(${bits}) travels as ${bytes} bytes, most significant first`,
        key: null,
      };
    }
    case 'year':
      return { portableType: Portable.smallint(), select: plain, text: integerText, changes: 'YEAR travels as a small integer (0 for the zero year)', key: 'year' };
    case 'date':
      return { portableType: Portable.date(), select: plain, text: dateText, changes: ZERO_DATE_LOSS, key: 'date' };
    case 'datetime':
      return { portableType: Portable.timestamp(precisionOf(row)), select: plain, text: dateText, changes: ZERO_DATE_LOSS, key: 'datetime' };
    case 'timestamp':
      return {
        portableType: Portable.timestamp(precisionOf(row), true),
        select: plain,
        text: (raw) => (hasZeroDatePart(raw) ? null : `${raw}+00`),
        changes: `read in UTC; ${ZERO_DATE_LOSS}`,
        key: 'timestamp',
      };
    case 'time':
      return { portableType: Portable.interval(), select: plain, text: timeAsInterval, changes: 'TIME is a signed duration up to 838:59:59: it travels as an interval', key: 'time' };
    case 'char':
    case 'varchar': {
      const length = row.characterLength ?? 1;
      const characterSet = row.characterSet ?? 'utf8mb4';
      const keyable = characterSet in KEY_CHARACTER_SETS;
      return {
        portableType: row.dataType === 'char' ? Portable.char(length) : Portable.varchar(length),
        select: plain,
        text: same,
        changes: row.dataType === 'char' ? 'CHAR values arrive without trailing spaces (as MySQL reads them back)' : null,
        key: keyable ? 'text' : null,
        characterSet,
      };
    }
    case 'tinytext':
    case 'text':
      return { portableType: boundedText(row.dataType === 'text' ? 65_535 : 255, row.characterSet), select: plain, text: same, changes: null, key: null };
    case 'mediumtext':
    case 'longtext':
      return row.json
        ? { portableType: Portable.json(), select: plain, text: same, changes: 'MariaDB JSON (LONGTEXT checked by json_valid) travels as its text', key: null }
        : { portableType: Portable.text(), select: plain, text: same, changes: null, key: null };
    case 'json':
      return { portableType: Portable.json(), select: (quoted) => `CAST(${quoted} AS CHAR)`, text: same, changes: 'MySQL JSON travels as the server\'s normalised text', key: null };
    case 'enum':
    case 'set':
      return {
        portableType: Portable.varchar(Math.max(row.characterLength ?? 1, 1)),
        select: plain,
        text: same,
        changes: `${row.dataType.toUpperCase()} travels as its label text`,
        key: row.dataType === 'enum' ? 'enum' : null,
        labels: labelsOf(row.columnType),
      };
    case 'binary':
      return { portableType: Portable.binary(row.characterLength ?? 1, true), select: hexSelect, text: hexText, changes: null, key: 'binary', fixedBytes: row.characterLength ?? 1 };
    case 'varbinary':
      return { portableType: Portable.binary(row.characterLength ?? 1), select: hexSelect, text: hexText, changes: null, key: 'binary' };
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return { portableType: Portable.binary(), select: hexSelect, text: hexText, changes: null, key: null };
    case 'geometry':
    case 'point':
    case 'linestring':
    case 'polygon':
    case 'multipoint':
    case 'multilinestring':
    case 'multipolygon':
    case 'geometrycollection':
    case 'geomcollection':
      return {
        portableType: Portable.binary(),
        select: hexSelect,
        text: hexText,
        changes: 'spatial values travel as MySQL\'s internal bytes: a 4-byte SRID (little-endian) and then the WKB',
        key: null,
      };
    case 'uuid':
      return { portableType: Portable.uuid(), select: plain, text: same, changes: null, key: null };
    case 'inet4':
    case 'inet6':
      return { portableType: Portable.native('mysql', row.dataType), select: plain, text: same, changes: null, key: null };
    default:
      return null;
  }
}
