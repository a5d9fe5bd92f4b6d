import { KEY_CHARACTER_SETS, type KeyForm, type MysqlColumnPlan } from '@svc/mysql/common';
import { BinlogFormatError, ByteReader } from './byte-reader';

/** Column type codes of the row format (MySQL's enum_field_types, MariaDB's additions). */
const T = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  VARCHAR: 15,
  BIT: 16,
  TIMESTAMP2: 17,
  DATETIME2: 18,
  TIME2: 19,
  VARCHAR_COMPRESSED: 140,
  BLOB_COMPRESSED: 141,
  VECTOR: 242,
  JSON: 245,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;

/** One column of a TABLE_MAP event: its type code and the metadata that sizes its values. */
export interface MappedColumn {
  type: number;
  /** The metadata's numbers (a length, a precision, a pack length, fractional digits), by type. */
  meta: number;
  meta2: number;
}

const ONE_BYTE_META = new Set<number>([T.FLOAT, T.DOUBLE, T.BLOB, T.TINY_BLOB, T.MEDIUM_BLOB, T.LONG_BLOB, T.BLOB_COMPRESSED, T.GEOMETRY, T.JSON, T.VECTOR, T.TIMESTAMP2, T.DATETIME2, T.TIME2]);
const TWO_BYTE_META = new Set<number>([T.VARCHAR, T.VAR_STRING, T.VARCHAR_COMPRESSED, T.NEWDECIMAL, T.BIT, T.STRING, T.ENUM, T.SET]);

/** The columns of a TABLE_MAP event, their metadata read in column order. */
export function mappedColumns(columnTypes: Buffer, metadata: Buffer): MappedColumn[] {
  const reader = new ByteReader(metadata);
  return [...columnTypes].map((type) => {
    if (ONE_BYTE_META.has(type)) return { type, meta: reader.uint8(), meta2: 0 };
    if (!TWO_BYTE_META.has(type)) return { type, meta: 0, meta2: 0 };
    if (type === T.VARCHAR || type === T.VAR_STRING || type === T.VARCHAR_COMPRESSED) return { type, meta: reader.uint16(), meta2: 0 };
    const first = reader.uint8();
    const second = reader.uint8();
    if (type !== T.STRING) return { type, meta: first, meta2: second };
    // A CHAR/ENUM/SET column: the real type and the length share the two bytes (libbinlogevents, Table_map_event).
    if ((first & 0x30) !== 0x30) return { type: first | 0x30, meta: second | (((first & 0x30) ^ 0x30) << 4), meta2: 0 };
    return { type: first, meta: second, meta2: 0 };
  });
}

const DIGITS_TO_BYTES = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4] as const;
const decimalBytes = (digits: number) => Math.floor(digits / 9) * 4 + (DIGITS_TO_BYTES[digits % 9] ?? 0);
const fractionBytes = (digits: number) => Math.floor((digits + 1) / 2);

/** How many bytes a non-NULL value of the column takes in a row image. */
export function valueLength(column: MappedColumn, row: ByteReader): number {
  const at = row.offset;
  const prefixed = (bytes: number) => bytes + row.buffer.readUIntLE(at, bytes);
  switch (column.type) {
    case T.TINY:
    case T.YEAR:
      return 1;
    case T.SHORT:
      return 2;
    case T.INT24:
    case T.DATE:
    case T.NEWDATE:
    case T.TIME:
      return 3;
    case T.LONG:
    case T.FLOAT:
    case T.TIMESTAMP:
      return 4;
    case T.LONGLONG:
    case T.DOUBLE:
    case T.DATETIME:
      return 8;
    case T.NULL:
      return 0;
    case T.TIMESTAMP2:
      return 4 + fractionBytes(column.meta);
    case T.DATETIME2:
      return 5 + fractionBytes(column.meta);
    case T.TIME2:
      return 3 + fractionBytes(column.meta);
    case T.NEWDECIMAL:
      return decimalBytes(column.meta - column.meta2) + decimalBytes(column.meta2);
    case T.BIT:
      return column.meta2 + (column.meta > 0 ? 1 : 0);
    case T.ENUM:
    case T.SET:
      return column.meta;
    case T.VARCHAR:
    case T.VAR_STRING:
    case T.VARCHAR_COMPRESSED:
      return prefixed(column.meta > 255 ? 2 : 1);
    case T.STRING:
      return prefixed(column.meta > 255 ? 2 : 1);
    case T.BLOB:
    case T.TINY_BLOB:
    case T.MEDIUM_BLOB:
    case T.LONG_BLOB:
    case T.BLOB_COMPRESSED:
    case T.GEOMETRY:
    case T.JSON:
    case T.VECTOR:
      return prefixed(column.meta);
    default:
      throw new BinlogFormatError(`a column of type code ${column.type} in a row image, which this reader does not know how to size`);
  }
}

/** How a key column's value becomes the text the source's reads render it as (column-types.ts). */
export interface KeyDecoding {
  form: KeyForm;
  characterSet?: string;
  fixedBytes?: number;
  labels?: readonly string[];
}

/** How a column's key values are read off row images, from its plan; null for a column that cannot be a followed key. */
export function keyDecodingOf(plan: MysqlColumnPlan): KeyDecoding | null {
  if (plan.key === null) return null;
  return {
    form: plan.key,
    ...(plan.characterSet !== undefined && { characterSet: plan.characterSet }),
    ...(plan.fixedBytes !== undefined && { fixedBytes: plan.fixedBytes }),
    ...(plan.labels && { labels: plan.labels }),
  };
}

const pad = (value: number | bigint, width: number) => String(value).padStart(width, '0');

/** Fractional seconds of a *2 temporal type: its big-endian bytes as microseconds, written with `digits` digits. */
function fraction(reader: ByteReader, digits: number): { micros: number; text: string } {
  const bytes = fractionBytes(digits);
  if (bytes === 0) return { micros: 0, text: '' };
  const raw = reader.bytes(bytes).readUIntBE(0, bytes);
  const micros = raw * (bytes === 1 ? 10_000 : bytes === 2 ? 100 : 1);
  return { micros, text: `.${pad(micros, 6).slice(0, digits)}` };
}

function decimalText(bytes: Buffer, precision: number, scale: number): string {
  const data = Buffer.from(bytes);
  const positive = ((data[0] ?? 0) & 0x80) !== 0;
  data[0] = (data[0] ?? 0) ^ 0x80;
  if (!positive) for (let index = 0; index < data.length; index += 1) data[index] = ~(data[index] ?? 0) & 0xff;
  const reader = new ByteReader(data);
  const integral = precision - scale;
  const groupDigits = (length: number, digits: number) => (length === 0 ? '' : pad(reader.bytes(length).readUIntBE(0, length), digits));
  let whole = groupDigits(DIGITS_TO_BYTES[integral % 9] ?? 0, integral % 9);
  for (let group = 0; group < Math.floor(integral / 9); group += 1) whole += groupDigits(4, 9);
  let part = '';
  for (let group = 0; group < Math.floor(scale / 9); group += 1) part += groupDigits(4, 9);
  part += groupDigits(DIGITS_TO_BYTES[scale % 9] ?? 0, scale % 9);
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  const text = scale > 0 ? `${whole}.${part}` : whole;
  return positive || /^[0.]+$/.test(text) ? text : `-${text}`;
}

function timeText(negative: boolean, hours: number, minutes: number, seconds: number, fractionText: string): string {
  return `${negative ? '-' : ''}${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${fractionText}`;
}

/** TIME2 (MySQL 5.6's format): a packed signed value of hours, minutes, seconds and microseconds (my_time_packed_from_binary). */
function time2Text(reader: ByteReader, digits: number): string {
  const bytes = 3 + fractionBytes(digits);
  const raw = reader.bytes(bytes);
  let packed: bigint;
  if (bytes === 6) packed = BigInt(raw.readUIntBE(0, 6)) - 0x800000000000n;
  else {
    let intPart = BigInt(raw.readUIntBE(0, 3)) - 0x800000n;
    let frac = bytes === 3 ? 0n : BigInt(raw.readUIntBE(3, bytes - 3));
    const range = bytes === 4 ? 0x100n : 0x10000n;
    if (intPart < 0n && frac !== 0n) {
      intPart += 1n;
      frac -= range;
    }
    packed = (intPart << 24n) + frac * (bytes === 3 ? 0n : bytes === 4 ? 10_000n : 100n);
  }
  const negative = packed < 0n;
  const magnitude = negative ? -packed : packed;
  const hms = Number(magnitude >> 24n);
  const micros = Number(magnitude % (1n << 24n));
  const fractionText = digits === 0 ? '' : `.${pad(micros, 6).slice(0, digits)}`;
  return timeText(negative, (hms >> 12) % 1024, (hms >> 6) % 64, hms % 64, fractionText);
}

function utcText(seconds: number, fractionText: string): string {
  if (seconds === 0 && /^\.?0*$/.test(fractionText)) return `0000-00-00 00:00:00${fractionText}`;
  const date = new Date(seconds * 1000);
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
  return `${day} ${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}${fractionText}`;
}

/**
 * A key column's value as the server's text of it (what the source's select renders before its plan's `text`), read
 * off a row image at the reader's position, which it moves past the value. Only the key forms column-types.ts allows.
 */
export function decodeKeyValue(column: MappedColumn, decoding: KeyDecoding, reader: ByteReader): string {
  const { form } = decoding;
  const integerBytes: Readonly<Record<number, number>> = { [T.TINY]: 1, [T.SHORT]: 2, [T.INT24]: 3, [T.LONG]: 4, [T.LONGLONG]: 8 };
  if (form === 'integer' || form === 'unsigned') {
    const bytes = integerBytes[column.type];
    if (bytes === undefined) throw mismatch(column, form);
    const unsigned = reader.uintBig(bytes);
    const bits = BigInt(bytes * 8);
    const value = form === 'integer' && unsigned >= 1n << (bits - 1n) ? unsigned - (1n << bits) : unsigned;
    return value.toString();
  }
  switch (form) {
    case 'year':
      if (column.type !== T.YEAR) throw mismatch(column, form);
      return String(((value) => (value === 0 ? 0 : 1900 + value))(reader.uint8()));
    case 'decimal':
      if (column.type !== T.NEWDECIMAL) throw mismatch(column, form);
      return decimalText(reader.bytes(valueLength(column, reader)), column.meta, column.meta2);
    case 'text':
    case 'binary': {
      if (column.type !== T.STRING && column.type !== T.VARCHAR && column.type !== T.VAR_STRING) throw mismatch(column, form);
      const prefix = column.meta > 255 ? 2 : 1;
      const length = prefix === 1 ? reader.uint8() : reader.uint16();
      const bytes = reader.bytes(length);
      if (form === 'binary') {
        const padded = decoding.fixedBytes !== undefined && bytes.length < decoding.fixedBytes ? Buffer.concat([bytes, Buffer.alloc(decoding.fixedBytes - bytes.length)]) : bytes;
        return padded.toString('hex').toUpperCase();
      }
      const encoding = KEY_CHARACTER_SETS[decoding.characterSet ?? 'utf8mb4'];
      if (encoding === undefined) throw new BinlogFormatError(`a key of character set ${decoding.characterSet ?? '?'}, which this reader cannot decode`);
      const text = textOf(bytes, encoding);
      return column.type === T.STRING ? text.replace(/ +$/, '') : text;
    }
    case 'enum': {
      if (column.type !== T.ENUM) throw mismatch(column, form);
      const index = column.meta === 1 ? reader.uint8() : reader.uint16();
      return index === 0 ? '' : (decoding.labels?.[index - 1] ?? String(index));
    }
    case 'date': {
      if (column.type !== T.DATE && column.type !== T.NEWDATE) throw mismatch(column, form);
      const value = reader.uint24();
      return `${pad(value >> 9, 4)}-${pad((value >> 5) & 15, 2)}-${pad(value & 31, 2)}`;
    }
    case 'datetime': {
      if (column.type === T.DATETIME) {
        const packed = reader.uintBig(8);
        const text = pad(packed, 14);
        return `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)} ${text.slice(8, 10)}:${text.slice(10, 12)}:${text.slice(12, 14)}`;
      }
      if (column.type !== T.DATETIME2) throw mismatch(column, form);
      const packed = reader.bytes(5).readUIntBE(0, 5) - 0x8000000000;
      const ymd = Math.floor(packed / 2 ** 17);
      const hms = packed % 2 ** 17;
      const yearMonth = Math.floor(ymd / 32);
      const text = `${pad(Math.floor(yearMonth / 13), 4)}-${pad(yearMonth % 13, 2)}-${pad(ymd % 32, 2)} ${pad(Math.floor(hms / 4096), 2)}:${pad((hms >> 6) % 64, 2)}:${pad(hms % 64, 2)}`;
      return `${text}${fraction(reader, column.meta).text}`;
    }
    case 'timestamp': {
      if (column.type === T.TIMESTAMP) return utcText(reader.uint32(), '');
      if (column.type !== T.TIMESTAMP2) throw mismatch(column, form);
      const seconds = reader.bytes(4).readUInt32BE(0);
      return utcText(seconds, fraction(reader, column.meta).text);
    }
    case 'time': {
      if (column.type === T.TIME2) return time2Text(reader, column.meta);
      if (column.type !== T.TIME) throw mismatch(column, form);
      const raw = reader.bytes(3).readIntLE(0, 3);
      const magnitude = Math.abs(raw);
      return timeText(raw < 0, Math.floor(magnitude / 10_000), Math.floor(magnitude / 100) % 100, magnitude % 100, '');
    }
  }
}

/**
 * Windows-1252's characters for the bytes 0x80 to 0x9F (the WHATWG Encoding Standard's index, which MySQL's latin1
 * follows byte for byte: 0x80 is €, 0x92 is ’; 0x81, 0x8D, 0x8F, 0x90 and 0x9D are the C1 controls of their own
 * numbers). Every other byte is the code point of its number.
 */
const WINDOWS_1252_C1 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * A key's bytes as text. Windows-1252 is decoded here: Node's TextDecoder reads it as ISO-8859-1 since 20.18.3 and
 * 22.13.0 (nodejs/node#60888), which turns € and the curly quotes into C1 controls no row of the table has.
 */
function textOf(bytes: Buffer, encoding: string): string {
  if (encoding !== 'windows-1252') return new TextDecoder(encoding).decode(bytes);
  let text = '';
  for (const byte of bytes) text += byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_C1.charAt(byte - 0x80) : String.fromCharCode(byte);
  return text;
}

function mismatch(column: MappedColumn, form: KeyForm): BinlogFormatError {
  return new BinlogFormatError(`a key column of type code ${column.type} in the binary log where the table's definition has a ${form} key: the table changed since the definition was read`);
}
