import { BinlogFormatError, ByteReader } from './byte-reader';
import { decodeKeyValue, mappedColumns, valueLength, type KeyDecoding, type MappedColumn } from './row-image';

/*
 * Row images are checked against byte strings built here from the documented storage formats, written independently
 * of the reader, and against bytes a MariaDB 10.11 server wrote to its binary log (read from its binlog file; marked
 * "MariaDB wrote"): the two must agree with each other and with the server's own text of the value.
 */

/** Column type codes (MySQL's enum_field_types, include/field_types.h). */
const TYPE = {
  NEWDECIMAL: 246,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  VARCHAR: 15,
  BIT: 16,
  TIMESTAMP2: 17,
  DATETIME2: 18,
  TIME2: 19,
  JSON: 245,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;

const column = (type: number, meta = 0, meta2 = 0): MappedColumn => ({ type, meta, meta2 });
const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** Decodes one value that fills `bytes` exactly: the reader must end at its end, where valueLength says it does. */
function decoded(mapped: MappedColumn, decoding: KeyDecoding | KeyDecoding['form'], bytes: Buffer): string {
  const reader = new ByteReader(bytes);
  expect(valueLength(mapped, new ByteReader(bytes))).toBe(bytes.length);
  const text = decodeKeyValue(mapped, typeof decoding === 'string' ? { form: decoding } : decoding, reader);
  expect(reader.offset).toBe(bytes.length);
  return text;
}

// ---- Encoders from the documentation -------------------------------------------------------------------------------

/** A little-endian integer of `bytes` bytes, two's complement for negatives (the row format's integers). */
function integerBytes(value: bigint, bytes: number): Buffer {
  let unsigned = BigInt.asUintN(bytes * 8, value);
  const buffer = Buffer.alloc(bytes);
  for (let index = 0; index < bytes; index += 1) {
    buffer[index] = Number(unsigned & 0xffn);
    unsigned >>= 8n;
  }
  return buffer;
}

function bigEndian(value: bigint, bytes: number): Buffer {
  return Buffer.from(integerBytes(value, bytes).reverse());
}

/** Bytes of the fractional part for `fsp` digits: (fsp + 1) / 2 ("Date and Time Data Type Representation"). */
const fractionBytes = (fsp: number) => Math.floor((fsp + 1) / 2);

/**
 * The fractional part of DATETIME2/TIMESTAMP2: big-endian, in hundredths of a second for fsp 1-2 (one byte), in units
 * of 100 µs for fsp 3-4 (two bytes), in microseconds for fsp 5-6 (three bytes).
 */
function fractionOf(micros: number, fsp: number): Buffer {
  const bytes = fractionBytes(fsp);
  if (bytes === 0) return Buffer.alloc(0);
  const value = bytes === 1 ? micros / 10_000 : bytes === 2 ? micros / 100 : micros;
  return bigEndian(BigInt(Math.trunc(value)), bytes);
}

/**
 * DATETIME2 (MySQL 5.6.4+): 5 bytes big-endian: 1 sign bit (1 = non-negative), 17 bits year × 13 + month, 5 bits day,
 * 5 bits hour, 6 bits minute, 6 bits second; then the fraction ("Date and Time Data Type Representation",
 * libbinlogevents' my_datetime_packed_to_binary).
 */
function datetime2(year: number, month: number, day: number, hour: number, minute: number, second: number, micros: number, fsp: number): Buffer {
  const ymd = (BigInt(year * 13 + month) << 5n) | BigInt(day);
  const hms = (BigInt(hour) << 12n) | (BigInt(minute) << 6n) | BigInt(second);
  return Buffer.concat([bigEndian((1n << 39n) | (ymd << 17n) | hms, 5), fractionOf(micros, fsp)]);
}

/** TIMESTAMP2: 4 bytes big-endian seconds since the epoch (UTC), then the fraction. */
function timestamp2(seconds: number, micros: number, fsp: number): Buffer {
  return Buffer.concat([bigEndian(BigInt(seconds), 4), fractionOf(micros, fsp)]);
}

/**
 * TIME2: a signed packed value, ((hours << 12 | minutes << 6 | seconds) << 24) + microseconds, negated for a negative
 * time, stored big-endian with an offset that makes it unsigned: 3 bytes of its integer part (offset 0x800000) and
 * 1 byte (hundredths) or 2 bytes (units of 100 µs) of its fractional part, signed; or for fsp 5-6 the whole value in
 * 6 bytes (offset 0x800000000000). As C computes it: the integer part is `packed >> 24` (rounding down), the fraction
 * `packed % 2^24` (keeping the sign) (libbinlogevents' my_time_packed_to_binary).
 */
function time2(negative: boolean, hours: number, minutes: number, seconds: number, micros: number, fsp: number): Buffer {
  const magnitude = (((BigInt(hours) << 12n) | (BigInt(minutes) << 6n) | BigInt(seconds)) << 24n) + BigInt(micros);
  const packed = negative ? -magnitude : magnitude;
  if (fsp >= 5) return bigEndian(packed + 0x800000000000n, 6);
  const intPart = packed >> 24n;
  const fracPart = packed - (packed / (1n << 24n)) * (1n << 24n);
  const head = bigEndian(intPart + 0x800000n, 3);
  if (fsp === 0) return head;
  return Buffer.concat([head, fsp <= 2 ? integerBytes(fracPart / 10_000n, 1) : bigEndian(BigInt.asUintN(16, fracPart / 100n), 2)]);
}

/**
 * DECIMAL(precision, scale) ("Precision Math: DECIMAL Data Type Characteristics", strings/decimal.cc decimal2bin): the
 * integer and fractional digits each in groups of nine, four bytes big-endian a group; the leftover digits (the
 * leading ones of the integer part, the trailing ones of the fraction) in [0,1,1,2,2,3,3,4,4,4][digits] bytes. The
 * first bit is flipped (set for a non-negative number); a negative number has every byte inverted.
 */
function decimal(text: string, precision: number, scale: number): Buffer {
  const negative = text.startsWith('-');
  const [whole = '', fraction = ''] = text.replace(/^-/, '').split('.');
  const integral = precision - scale;
  const leftoverBytes = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
  const wholeDigits = whole.padStart(integral, '0');
  const fractionDigits = fraction.padEnd(scale, '0');
  const parts: Buffer[] = [];
  const lead = integral % 9;
  if (lead > 0) parts.push(bigEndian(BigInt(wholeDigits.slice(0, lead)), leftoverBytes[lead] ?? 0));
  for (let at = lead; at < integral; at += 9) parts.push(bigEndian(BigInt(wholeDigits.slice(at, at + 9)), 4));
  const fullGroups = Math.floor(scale / 9);
  for (let group = 0; group < fullGroups; group += 1) parts.push(bigEndian(BigInt(fractionDigits.slice(group * 9, group * 9 + 9)), 4));
  const trail = scale % 9;
  if (trail > 0) parts.push(bigEndian(BigInt(fractionDigits.slice(fullGroups * 9)), leftoverBytes[trail] ?? 0));
  const bytes = Buffer.concat(parts);
  bytes[0] = (bytes[0] ?? 0) ^ 0x80;
  if (negative) for (let index = 0; index < bytes.length; index += 1) bytes[index] = ~(bytes[index] ?? 0) & 0xff;
  return bytes;
}

/** DATE: 3 bytes little-endian, day in the low 5 bits, month in the next 4, the year above them (year × 512 + month × 32 + day). */
const date = (year: number, month: number, day: number) => integerBytes(BigInt(year * 512 + month * 32 + day), 3);

/** A string value of a row image: its length in 1 byte (a column of at most 255 bytes) or 2 (little-endian), then its bytes. */
const prefixed = (bytes: Buffer, prefix: 1 | 2) => Buffer.concat([integerBytes(BigInt(bytes.length), prefix), bytes]);

// ---- The encoders agree with what the server writes ---------------------------------------------------------------

describe('the encoders of this spec agree with bytes MariaDB wrote to its binary log', () => {
  it.each<[string, Buffer, string]>([
    ['DECIMAL(12,3) 123456789.123', decimal('123456789.123', 12, 3), '875bcd15007b'],
    ['DECIMAL(12,3) -123456789.123', decimal('-123456789.123', 12, 3), '78a432eaff84'],
    ['DECIMAL(12,3) 0', decimal('0.000', 12, 3), '800000000000'],
    ['DECIMAL(20,2) -0.01', decimal('-0.01', 20, 2), '7ffffffffffffffffe'],
    ['DECIMAL(65,30) 12345678901234567890123456789012345.123456789012345678901234567890', decimal('12345678901234567890123456789012345.123456789012345678901234567890', 65, 30), '80bc614e35b7bf87350e34c02f075f79075bcd1500bc614e35b7bf87037a'],
    ['DATE 2024-02-29', date(2024, 2, 29), '5dd00f'],
    ['DATETIME(0) 2024-02-29 23:59:59', datetime2(2024, 2, 29, 23, 59, 59, 0, 0), '99b2bb7efb'],
    ['DATETIME(3) 2024-02-29 23:59:59.123', datetime2(2024, 2, 29, 23, 59, 59, 123_000, 3), '99b2bb7efb04ce'],
    ['DATETIME(6) 9999-12-31 23:59:59.999999', datetime2(9999, 12, 31, 23, 59, 59, 999_999, 6), 'fef3ff7efb0f423f'],
    ['TIMESTAMP(3) 2024-02-29 23:59:59.123 UTC', timestamp2(1_709_251_199, 123_000, 3), '65e11a7f04ce'],
    ['TIME(0) -838:59:59', time2(true, 838, 59, 59, 0, 0), '4b9105'],
    ['TIME(2) -838:59:59.99', time2(true, 838, 59, 59, 990_000, 2), '4b91049d'],
    ['TIME(3) -00:00:01.500', time2(true, 0, 0, 1, 500_000, 3), '7ffffeec78'],
    ['TIME(4) -01:00:00.5000', time2(true, 1, 0, 0, 500_000, 4), '7fefffec78'],
    ['TIME(6) -12:34:56.123456', time2(true, 12, 34, 56, 123_456, 6), '7f3747fe1dc0'],
    ['TIME(5) 12:34:56.12345', time2(false, 12, 34, 56, 123_450, 5), '80c8b801e23a'],
  ])('%s', (_value, encoded, written) => {
    expect(encoded.toString('hex')).toBe(written);
  });
});

// ---- TABLE_MAP metadata ---------------------------------------------------------------------------------------------

describe('mappedColumns: the TABLE_MAP metadata of each column', () => {
  it('reads the metadata bytes in column order, by type: none, one byte, or two', () => {
    const types = Buffer.from([TYPE.LONG, TYPE.FLOAT, TYPE.VARCHAR, TYPE.NEWDECIMAL, TYPE.DATETIME2, TYPE.BLOB, TYPE.BIT, TYPE.DATE, TYPE.TIME2]);
    const metadata = Buffer.concat([hex('04'), hex('2c01'), hex('0c03'), hex('06'), hex('02'), hex('0201'), hex('04')]);
    expect(mappedColumns(types, metadata)).toEqual([
      column(TYPE.LONG),
      column(TYPE.FLOAT, 4),
      // VARCHAR's maximum length in bytes: a 2-byte little-endian number (300).
      column(TYPE.VARCHAR, 300),
      // NEWDECIMAL: precision, then scale.
      column(TYPE.NEWDECIMAL, 12, 3),
      // DATETIME2, TIME2: fractional digits; BLOB: bytes of its length prefix.
      column(TYPE.DATETIME2, 6),
      column(TYPE.BLOB, 2),
      // BIT(10): bits of the last partial byte (10 % 8), then whole bytes.
      column(TYPE.BIT, 2, 1),
      column(TYPE.DATE),
      column(TYPE.TIME2, 4),
    ]);
  });

  // libbinlogevents, Table_map_event: a STRING column's two bytes are the real type and the length; a length above 255
  // keeps its two high bits in bits 4 and 5 of the first byte, inverted: real type = byte0 | 0x30,
  // length = byte1 | (((byte0 & 0x30) ^ 0x30) << 4).
  it.each<[string, string, MappedColumn]>([
    ['CHAR(10) of a single-byte character set: type STRING, 10 bytes', 'fe0a', column(TYPE.STRING, 10)],
    ['BINARY(255): 255 bytes', 'feff', column(TYPE.STRING, 255)],
    ['CHAR(100) utf8mb4 (400 bytes = 0x190): the first byte 0xEE', 'ee90', column(TYPE.STRING, 400)],
    ['CHAR(255) utf8mb4 (1020 bytes = 0x3FC): the first byte 0xCE', 'cefc', column(TYPE.STRING, 1020)],
    ['CHAR(128) utf8mb4 (512 bytes = 0x200): the first byte 0xDE', 'de00', column(TYPE.STRING, 512)],
    ['ENUM with up to 255 labels: type ENUM, 1 byte a value', 'f701', column(TYPE.ENUM, 1)],
    ['ENUM with more labels: 2 bytes a value', 'f702', column(TYPE.ENUM, 2)],
    ['SET of 9 members: type SET, 2 bytes a value', 'f802', column(TYPE.SET, 2)],
  ])('%s', (_column, metadata, expected) => {
    expect(mappedColumns(Buffer.from([TYPE.STRING]), hex(metadata))).toEqual([expected]);
  });

  it('reads the TABLE_MAP of a table of every key type as MariaDB wrote it', () => {
    // CREATE TABLE t (id INT PRIMARY KEY, TINYINT, TINYINT UNSIGNED, SMALLINT, SMALLINT UNSIGNED, MEDIUMINT, MEDIUMINT
    // UNSIGNED, INT, INT UNSIGNED, BIGINT, BIGINT UNSIGNED, DECIMAL(12,3), (65,30), (5,0), (10,10), (18,9), (20,2), DATE,
    // DATETIME, DATETIME(3), DATETIME(6), TIMESTAMP, TIMESTAMP(3), TIMESTAMP(6), TIME, TIME(1) … TIME(6), YEAR,
    // ENUM('small','large','it''s'), CHAR(10) utf8mb4, CHAR(10) latin1, CHAR(100) utf8mb4, VARCHAR(10) utf8mb4,
    // VARCHAR(100) utf8mb4, VARCHAR(300) latin1, VARCHAR(10) latin1, BINARY(4), VARBINARY(10), BINARY(255))
    const types = hex('0301010202090903030808f6f6f6f6f6f60a121212111111131313131313130dfefefefe0f0f0f0ffe0ffe');
    const metadata = hex('0c03411e05000a0a1209140200030600030600010203040506f701fe28fe0aee90280090012c010a00fe040a00feff');
    const mapped = mappedColumns(types, metadata);
    expect(mapped.map((entry) => [entry.type, entry.meta, entry.meta2])).toEqual([
      ...[3, 1, 1, 2, 2, 9, 9, 3, 3, 8, 8].map((type) => [type, 0, 0]),
      [246, 12, 3],
      [246, 65, 30],
      [246, 5, 0],
      [246, 10, 10],
      [246, 18, 9],
      [246, 20, 2],
      [10, 0, 0],
      ...[0, 3, 6].map((fsp) => [18, fsp, 0]),
      ...[0, 3, 6].map((fsp) => [17, fsp, 0]),
      ...[0, 1, 2, 3, 4, 5, 6].map((fsp) => [19, fsp, 0]),
      [13, 0, 0],
      [247, 1, 0],
      [254, 40, 0],
      [254, 10, 0],
      [254, 400, 0],
      [15, 40, 0],
      [15, 400, 0],
      [15, 300, 0],
      [15, 10, 0],
      [254, 4, 0],
      [15, 10, 0],
      [254, 255, 0],
    ]);
  });
});

// ---- Sizes of values ------------------------------------------------------------------------------------------------

describe('valueLength: how many bytes a value takes, for the columns a scan passes over', () => {
  it.each<[string, MappedColumn, Buffer, number]>([
    ['TINYINT', column(TYPE.TINY), hex('ff'), 1],
    ['YEAR', column(TYPE.YEAR), hex('ff'), 1],
    ['SMALLINT', column(TYPE.SHORT), hex('ffff'), 2],
    ['MEDIUMINT', column(TYPE.INT24), hex('ffffff'), 3],
    ['DATE', column(TYPE.DATE), date(2024, 1, 1), 3],
    ['old TIME', column(TYPE.TIME), hex('000000'), 3],
    ['INT', column(TYPE.LONG), hex('00000000'), 4],
    ['FLOAT', column(TYPE.FLOAT, 4), hex('00000000'), 4],
    ['old TIMESTAMP', column(TYPE.TIMESTAMP), hex('00000000'), 4],
    ['BIGINT', column(TYPE.LONGLONG), Buffer.alloc(8), 8],
    ['DOUBLE', column(TYPE.DOUBLE, 8), Buffer.alloc(8), 8],
    ['old DATETIME', column(TYPE.DATETIME), Buffer.alloc(8), 8],
    ['TIMESTAMP(0)', column(TYPE.TIMESTAMP2, 0), Buffer.alloc(4), 4],
    ['TIMESTAMP(3)', column(TYPE.TIMESTAMP2, 3), Buffer.alloc(6), 6],
    ['DATETIME(0)', column(TYPE.DATETIME2, 0), Buffer.alloc(5), 5],
    ['DATETIME(1)', column(TYPE.DATETIME2, 1), Buffer.alloc(6), 6],
    ['DATETIME(6)', column(TYPE.DATETIME2, 6), Buffer.alloc(8), 8],
    ['TIME(0)', column(TYPE.TIME2, 0), Buffer.alloc(3), 3],
    ['TIME(4)', column(TYPE.TIME2, 4), Buffer.alloc(5), 5],
    ['TIME(5)', column(TYPE.TIME2, 5), Buffer.alloc(6), 6],
    ['DECIMAL(12,3): 9 integer digits in 4 bytes + 0, 3 fraction digits in 2', column(TYPE.NEWDECIMAL, 12, 3), Buffer.alloc(6), 6],
    ['DECIMAL(65,30): 35 integer digits in 3 × 4 + 4, 30 fraction digits in 3 × 4 + 2', column(TYPE.NEWDECIMAL, 65, 30), Buffer.alloc(30), 30],
    ['DECIMAL(10,10)', column(TYPE.NEWDECIMAL, 10, 10), Buffer.alloc(5), 5],
    ['BIT(1)', column(TYPE.BIT, 1, 0), hex('01'), 1],
    ['BIT(8)', column(TYPE.BIT, 0, 1), hex('01'), 1],
    ['BIT(10)', column(TYPE.BIT, 2, 1), hex('0301'), 2],
    ['BIT(64)', column(TYPE.BIT, 0, 8), Buffer.alloc(8), 8],
    ['ENUM of 1 byte', column(TYPE.ENUM, 1), hex('01'), 1],
    ['SET of 2 bytes', column(TYPE.SET, 2), hex('0101'), 2],
    ['VARCHAR(10): a 1-byte length', column(TYPE.VARCHAR, 40), prefixed(Buffer.from('abc'), 1), 4],
    ['VARCHAR(300 bytes): a 2-byte length', column(TYPE.VARCHAR, 300), prefixed(Buffer.alloc(300, 0x78), 2), 302],
    ['VAR_STRING', column(TYPE.VAR_STRING, 20), prefixed(Buffer.from('ab'), 1), 3],
    ['CHAR(10)', column(TYPE.STRING, 10), prefixed(Buffer.from('ab'), 1), 3],
    ['CHAR(100) utf8mb4 (400 bytes): a 2-byte length', column(TYPE.STRING, 400), prefixed(Buffer.from('é'), 2), 4],
    ['TINYBLOB: a 1-byte length', column(TYPE.TINY_BLOB, 1), prefixed(Buffer.from('xyz'), 1), 4],
    ['BLOB: a 2-byte length', column(TYPE.BLOB, 2), hex('0300 010203'), 5],
    ['LONGBLOB: a 4-byte length', column(TYPE.BLOB, 4), hex('02000000 0102'), 6],
    ['JSON: a 4-byte length', column(TYPE.JSON, 4), hex('01000000 00'), 5],
    ['GEOMETRY: a 4-byte length', column(TYPE.GEOMETRY, 4), hex('00000000'), 4],
  ])('%s', (_column, mapped, bytes, expected) => {
    expect(valueLength(mapped, new ByteReader(bytes))).toBe(expected);
    expect(expected).toBe(bytes.length);
  });

  it('sizes a value at the reader\'s position without moving it', () => {
    const reader = new ByteReader(hex('ff 0200 6162'), 1);
    expect(valueLength(column(TYPE.VARCHAR, 300), reader)).toBe(4);
    expect(reader.offset).toBe(1);
  });

  it('walks a row image of several columns to the key column after them', () => {
    const columns = [column(TYPE.BLOB, 2), column(TYPE.NEWDECIMAL, 12, 3), column(TYPE.VARCHAR, 10), column(TYPE.DATETIME2, 6), column(TYPE.LONG)];
    const row = Buffer.concat([hex('0300 010203'), decimal('1.5', 12, 3), prefixed(Buffer.from('hi'), 1), datetime2(2024, 1, 2, 3, 4, 5, 6, 6), integerBytes(42n, 4)]);
    const reader = new ByteReader(row);
    for (const skipped of columns.slice(0, -1)) reader.skip(valueLength(skipped, reader));
    expect(decodeKeyValue(column(TYPE.LONG), { form: 'integer' }, reader)).toBe('42');
    expect(reader.remaining).toBe(0);
  });

  it('refuses a type it cannot size', () => {
    expect(() => valueLength(column(200), new ByteReader(Buffer.alloc(4)))).toThrow(BinlogFormatError);
  });
});

// ---- Key values ----------------------------------------------------------------------------------------------------

describe('decodeKeyValue: integers (little-endian, two\'s complement when signed)', () => {
  it.each<[string, number, 'integer' | 'unsigned', bigint, number, string]>([
    ['TINYINT -1', TYPE.TINY, 'integer', -1n, 1, '-1'],
    ['TINYINT min', TYPE.TINY, 'integer', -128n, 1, '-128'],
    ['TINYINT max', TYPE.TINY, 'integer', 127n, 1, '127'],
    ['TINYINT UNSIGNED max', TYPE.TINY, 'unsigned', 255n, 1, '255'],
    ['SMALLINT -1', TYPE.SHORT, 'integer', -1n, 2, '-1'],
    ['SMALLINT min', TYPE.SHORT, 'integer', -32_768n, 2, '-32768'],
    ['SMALLINT max', TYPE.SHORT, 'integer', 32_767n, 2, '32767'],
    ['SMALLINT UNSIGNED max', TYPE.SHORT, 'unsigned', 65_535n, 2, '65535'],
    ['MEDIUMINT -1', TYPE.INT24, 'integer', -1n, 3, '-1'],
    ['MEDIUMINT min', TYPE.INT24, 'integer', -8_388_608n, 3, '-8388608'],
    ['MEDIUMINT max', TYPE.INT24, 'integer', 8_388_607n, 3, '8388607'],
    ['MEDIUMINT UNSIGNED max', TYPE.INT24, 'unsigned', 16_777_215n, 3, '16777215'],
    ['INT -1', TYPE.LONG, 'integer', -1n, 4, '-1'],
    ['INT min', TYPE.LONG, 'integer', -2_147_483_648n, 4, '-2147483648'],
    ['INT max', TYPE.LONG, 'integer', 2_147_483_647n, 4, '2147483647'],
    ['INT UNSIGNED 2^31', TYPE.LONG, 'unsigned', 2_147_483_648n, 4, '2147483648'],
    ['INT UNSIGNED max', TYPE.LONG, 'unsigned', 4_294_967_295n, 4, '4294967295'],
    ['BIGINT -1', TYPE.LONGLONG, 'integer', -1n, 8, '-1'],
    ['BIGINT min', TYPE.LONGLONG, 'integer', -(2n ** 63n), 8, '-9223372036854775808'],
    ['BIGINT max', TYPE.LONGLONG, 'integer', 2n ** 63n - 1n, 8, '9223372036854775807'],
    ['BIGINT UNSIGNED 2^63', TYPE.LONGLONG, 'unsigned', 2n ** 63n, 8, '9223372036854775808'],
    ['BIGINT UNSIGNED 2^64 - 1', TYPE.LONGLONG, 'unsigned', 2n ** 64n - 1n, 8, '18446744073709551615'],
    ['BIGINT 0', TYPE.LONGLONG, 'integer', 0n, 8, '0'],
  ])('%s', (_value, type, form, value, bytes, text) => {
    expect(decoded(column(type), form, integerBytes(value, bytes))).toBe(text);
  });

  it('reads all-ones bytes as -1 signed and as the maximum unsigned (MariaDB wrote ffffffffffffffff for both)', () => {
    expect(decoded(column(TYPE.LONGLONG), 'integer', hex('ffffffffffffffff'))).toBe('-1');
    expect(decoded(column(TYPE.LONGLONG), 'unsigned', hex('ffffffffffffffff'))).toBe('18446744073709551615');
    expect(decoded(column(TYPE.INT24), 'integer', hex('000080'))).toBe('-8388608');
  });
});

describe('decodeKeyValue: DECIMAL (groups of nine digits in four bytes, sign bit flipped, negatives inverted)', () => {
  it.each<[string, number, number, string]>([
    ['123456789.123', 12, 3, '123456789.123'],
    ['-123456789.123', 12, 3, '-123456789.123'],
    ['0.000', 12, 3, '0.000'],
    ['1.500', 12, 3, '1.500'],
    ['-0.001', 12, 3, '-0.001'],
    ['999999999.999', 12, 3, '999999999.999'],
    ['12345', 5, 0, '12345'],
    ['-12345', 5, 0, '-12345'],
    ['0', 5, 0, '0'],
    ['0.0000000001', 10, 10, '0.0000000001'],
    ['-0.0000000001', 10, 10, '-0.0000000001'],
    ['123456789.123456789', 18, 9, '123456789.123456789'],
    ['-0.01', 20, 2, '-0.01'],
    ['12345678901234567890123456789012345.123456789012345678901234567890', 65, 30, '12345678901234567890123456789012345.123456789012345678901234567890'],
    ['-12345678901234567890123456789012345.123456789012345678901234567890', 65, 30, '-12345678901234567890123456789012345.123456789012345678901234567890'],
    ['0', 65, 30, '0.000000000000000000000000000000'],
    ['-1', 65, 30, '-1.000000000000000000000000000000'],
    ['99999999999999999999999999999999999.999999999999999999999999999999', 65, 30, '99999999999999999999999999999999999.999999999999999999999999999999'],
  ])('DECIMAL(%#) %s → as the server renders it', (value, precision, scale, text) => {
    expect(decoded(column(TYPE.NEWDECIMAL, precision, scale), 'decimal', decimal(value, precision, scale))).toBe(text);
  });

  it('reads the bytes MariaDB wrote for DECIMAL(12,3)', () => {
    expect(decoded(column(TYPE.NEWDECIMAL, 12, 3), 'decimal', hex('875bcd15007b'))).toBe('123456789.123');
    expect(decoded(column(TYPE.NEWDECIMAL, 12, 3), 'decimal', hex('78a432eaff84'))).toBe('-123456789.123');
  });
});

describe('decodeKeyValue: dates and times', () => {
  it.each<[string, Buffer, string]>([
    ['2024-02-29', date(2024, 2, 29), '2024-02-29'],
    ['1000-01-01', date(1000, 1, 1), '1000-01-01'],
    ['9999-12-31', date(9999, 12, 31), '9999-12-31'],
    ['the zero date', date(0, 0, 0), '0000-00-00'],
  ])('DATE %s', (_value, bytes, text) => {
    expect(decoded(column(TYPE.DATE), 'date', bytes)).toBe(text);
  });

  it.each<[string, Buffer, number, string]>([
    ['fsp 0', datetime2(2024, 2, 29, 23, 59, 59, 0, 0), 0, '2024-02-29 23:59:59'],
    ['fsp 1', datetime2(2024, 1, 2, 3, 4, 5, 100_000, 1), 1, '2024-01-02 03:04:05.1'],
    ['fsp 3', datetime2(2024, 2, 29, 23, 59, 59, 123_000, 3), 3, '2024-02-29 23:59:59.123'],
    ['fsp 3, a fraction with a leading zero', datetime2(2024, 1, 2, 3, 4, 5, 7_000, 3), 3, '2024-01-02 03:04:05.007'],
    ['fsp 6', datetime2(2024, 2, 29, 23, 59, 59, 123_456, 6), 6, '2024-02-29 23:59:59.123456'],
    ['fsp 6, one microsecond', datetime2(2024, 1, 2, 3, 4, 5, 1, 6), 6, '2024-01-02 03:04:05.000001'],
    ['fsp 6, the largest', datetime2(9999, 12, 31, 23, 59, 59, 999_999, 6), 6, '9999-12-31 23:59:59.999999'],
    ['fsp 0, the smallest', datetime2(1000, 1, 1, 0, 0, 0, 0, 0), 0, '1000-01-01 00:00:00'],
    ['fsp 0, the zero datetime', datetime2(0, 0, 0, 0, 0, 0, 0, 0), 0, '0000-00-00 00:00:00'],
  ])('DATETIME2 %s', (_case, bytes, fsp, text) => {
    expect(decoded(column(TYPE.DATETIME2, fsp), 'datetime', bytes)).toBe(text);
  });

  it('reads the old DATETIME (8 bytes little-endian, the decimal digits YYYYMMDDhhmmss)', () => {
    expect(decoded(column(TYPE.DATETIME), 'datetime', integerBytes(20_240_229_235_959n, 8))).toBe('2024-02-29 23:59:59');
  });

  it.each<[string, Buffer, number, string]>([
    ['fsp 3', timestamp2(1_709_251_199, 123_000, 3), 3, '2024-02-29 23:59:59.123'],
    ['fsp 3, half a second', timestamp2(1, 500_000, 3), 3, '1970-01-01 00:00:01.500'],
    ['fsp 0, the largest', timestamp2(2_147_483_647, 0, 0), 0, '2038-01-19 03:14:07'],
    ['fsp 6', timestamp2(2_147_483_647, 999_999, 6), 6, '2038-01-19 03:14:07.999999'],
    ['fsp 0, the zero timestamp', timestamp2(0, 0, 0), 0, '0000-00-00 00:00:00'],
    ['fsp 3, the zero timestamp', timestamp2(0, 0, 3), 3, '0000-00-00 00:00:00.000'],
  ])('TIMESTAMP2 %s, in UTC', (_case, bytes, fsp, text) => {
    expect(decoded(column(TYPE.TIMESTAMP2, fsp), 'timestamp', bytes)).toBe(text);
  });

  it('reads the old TIMESTAMP (4 bytes little-endian seconds)', () => {
    expect(decoded(column(TYPE.TIMESTAMP), 'timestamp', integerBytes(1_709_251_199n, 4))).toBe('2024-02-29 23:59:59');
  });

  it.each<[string, boolean, number, number, number, number, number, string]>([
    ['the largest, fsp 0', false, 838, 59, 59, 0, 0, '838:59:59'],
    ['the smallest, fsp 0', true, 838, 59, 59, 0, 0, '-838:59:59'],
    ['zero, fsp 0', false, 0, 0, 0, 0, 0, '00:00:00'],
    ['-01:02:03, fsp 0', true, 1, 2, 3, 0, 0, '-01:02:03'],
    ['the smallest, fsp 2', true, 838, 59, 59, 990_000, 2, '-838:59:59.99'],
    ['the largest, fsp 2', false, 838, 59, 59, 990_000, 2, '838:59:59.99'],
    ['-00:00:01.5, fsp 2', true, 0, 0, 1, 500_000, 2, '-00:00:01.50'],
    ['-00:00:00.01, fsp 2', true, 0, 0, 0, 10_000, 2, '-00:00:00.01'],
    ['00:00:01.5, fsp 2', false, 0, 0, 1, 500_000, 2, '00:00:01.50'],
    ['-00:00:01.5, fsp 4', true, 0, 0, 1, 500_000, 4, '-00:00:01.5000'],
    ['-00:00:00.0001, fsp 4', true, 0, 0, 0, 100, 4, '-00:00:00.0001'],
    ['-01:00:00.5, fsp 4', true, 1, 0, 0, 500_000, 4, '-01:00:00.5000'],
    ['12:34:56.1234, fsp 4', false, 12, 34, 56, 123_400, 4, '12:34:56.1234'],
    ['-12:34:56.123456, fsp 6', true, 12, 34, 56, 123_456, 6, '-12:34:56.123456'],
    ['12:34:56.123456, fsp 6', false, 12, 34, 56, 123_456, 6, '12:34:56.123456'],
    ['-00:00:00.000001, fsp 6', true, 0, 0, 0, 1, 6, '-00:00:00.000001'],
    ['the smallest, fsp 6', true, 838, 59, 59, 0, 6, '-838:59:59.000000'],
  ])('TIME2 %s', (_case, negative, hours, minutes, seconds, micros, fsp, text) => {
    expect(decoded(column(TYPE.TIME2, fsp), 'time', time2(negative, hours, minutes, seconds, micros, fsp))).toBe(text);
  });

  it('reads the TIME2 bytes MariaDB wrote', () => {
    expect(decoded(column(TYPE.TIME2, 2), 'time', hex('4b91049d'))).toBe('-838:59:59.99');
    expect(decoded(column(TYPE.TIME2, 3), 'time', hex('7ffffeec78'))).toBe('-00:00:01.500');
    expect(decoded(column(TYPE.TIME2, 6), 'time', hex('7fffffffffff'))).toBe('-00:00:00.000001');
  });

  it('reads the old TIME (3 bytes little-endian, signed, the decimal digits hhmmss)', () => {
    expect(decoded(column(TYPE.TIME), 'time', integerBytes(8_385_959n, 3))).toBe('838:59:59');
    expect(decoded(column(TYPE.TIME), 'time', integerBytes(-10_203n, 3))).toBe('-01:02:03');
  });

  it.each<[number, string]>([
    [0, '0'],
    [1, '1901'],
    [124, '2024'],
    [255, '2155'],
  ])('YEAR stored as %i (years after 1900; 0 is the zero year)', (stored, text) => {
    expect(decoded(column(TYPE.YEAR), 'year', Buffer.from([stored]))).toBe(text);
  });
});

describe('decodeKeyValue: ENUM, text and binary strings', () => {
  const labels = ['small', 'large', "it's"];

  it.each<[string, MappedColumn, Buffer, string]>([
    ['index 1 is the first label', column(TYPE.ENUM, 1), hex('01'), 'small'],
    ['index 3', column(TYPE.ENUM, 1), hex('03'), "it's"],
    ['index 0 is the empty error value', column(TYPE.ENUM, 1), hex('00'), ''],
    ['an index past the labels is the number', column(TYPE.ENUM, 1), hex('09'), '9'],
    ['2-byte indexes (little-endian)', column(TYPE.ENUM, 2), hex('0200'), 'large'],
  ])('ENUM: %s', (_case, mapped, bytes, text) => {
    expect(decoded(mapped, { form: 'enum', labels }, bytes)).toBe(text);
  });

  it.each<[string, MappedColumn, KeyDecoding, Buffer, string]>([
    ['CHAR: trailing spaces stripped, as the server reads CHAR back', column(TYPE.STRING, 40), { form: 'text', characterSet: 'utf8mb4' }, prefixed(Buffer.from('a b  '), 1), 'a b'],
    ['CHAR of spaces only', column(TYPE.STRING, 40), { form: 'text', characterSet: 'utf8mb4' }, prefixed(Buffer.from('   '), 1), ''],
    ['CHAR(100) utf8mb4: a 2-byte length', column(TYPE.STRING, 400), { form: 'text', characterSet: 'utf8mb4' }, prefixed(Buffer.from('x'), 2), 'x'],
    ['VARCHAR: trailing spaces kept', column(TYPE.VARCHAR, 40), { form: 'text', characterSet: 'utf8mb4' }, prefixed(Buffer.from('x  '), 1), 'x  '],
    ['VARCHAR(10) utf8mb4: a 1-byte length', column(TYPE.VARCHAR, 40), { form: 'text', characterSet: 'utf8mb4' }, prefixed(Buffer.from('ab'), 1), 'ab'],
    ['VARCHAR(100) utf8mb4: a 2-byte length', column(TYPE.VARCHAR, 400), { form: 'text', characterSet: 'utf8mb4' }, prefixed(Buffer.from('é😀'), 2), 'é😀'],
    ['VARCHAR(300) latin1: a 2-byte length', column(TYPE.VARCHAR, 300), { form: 'text', characterSet: 'latin1' }, hex('0400 636166e9'), 'café'],
    ['latin1 café (0x63 0x61 0x66 0xE9)', column(TYPE.VARCHAR, 10), { form: 'text', characterSet: 'latin1' }, hex('04 636166e9'), 'café'],
    ["latin1's 0x80 is the euro sign (MySQL's latin1 is cp1252)", column(TYPE.STRING, 10), { form: 'text', characterSet: 'latin1' }, hex('01 80'), '€'],
    ['utf8mb3', column(TYPE.VARCHAR, 30), { form: 'text', characterSet: 'utf8mb3' }, prefixed(Buffer.from('ü'), 1), 'ü'],
    ['utf8mb4 when no character set is given', column(TYPE.VARCHAR, 40), { form: 'text' }, prefixed(Buffer.from('é'), 1), 'é'],
    ['the empty string', column(TYPE.VARCHAR, 40), { form: 'text', characterSet: 'utf8mb4' }, hex('00'), ''],
  ])('%s', (_case, mapped, decoding, bytes, text) => {
    expect(decoded(mapped, decoding, bytes)).toBe(text);
  });

  it('decodes latin1 0x80 to 0x9F as the server converts them (Windows-1252, not ISO-8859-1)', () => {
    // MariaDB 10.11: HEX(CONVERT(CONVERT(X'80' USING latin1) USING utf16)) for each byte 0x80 … 0x9F.
    const server = [
      0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f, 0x0090, 0x2018, 0x2019, 0x201c, 0x201d,
      0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
    ];
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, index) => 0x80 + index));
    const text = decoded(column(TYPE.VARCHAR, 100), { form: 'text', characterSet: 'latin1' }, prefixed(bytes, 1));
    expect([...text].map((character) => character.codePointAt(0))).toEqual(server);
    expect(decoded(column(TYPE.VARCHAR, 100), { form: 'text', characterSet: 'latin1' }, hex('07 91 69 74 92 73 20 80'))).toBe('‘it’s €');
  });

  it.each<[string, MappedColumn, KeyDecoding, Buffer, string]>([
    ['BINARY(4) padded back to 4 bytes (the row image drops trailing zero bytes)', column(TYPE.STRING, 4), { form: 'binary', fixedBytes: 4 }, hex('02 0102'), '01020000'],
    ['BINARY(4) of all its bytes', column(TYPE.STRING, 4), { form: 'binary', fixedBytes: 4 }, hex('04 01020304'), '01020304'],
    ['BINARY(4) of zero bytes only', column(TYPE.STRING, 4), { form: 'binary', fixedBytes: 4 }, hex('00'), '00000000'],
    ['upper-case hex, as HEX() renders it', column(TYPE.STRING, 4), { form: 'binary', fixedBytes: 4 }, hex('01 ff'), 'FF000000'],
    ['VARBINARY as it is', column(TYPE.VARCHAR, 10), { form: 'binary' }, hex('03 00abff'), '00ABFF'],
    ['VARBINARY empty', column(TYPE.VARCHAR, 10), { form: 'binary' }, hex('00'), ''],
  ])('%s', (_case, mapped, decoding, bytes, text) => {
    expect(decoded(mapped, decoding, bytes)).toBe(text);
  });
});

describe('decodeKeyValue: refusals', () => {
  it.each<[string, MappedColumn, KeyDecoding]>([
    ['an integer key that is now text', column(TYPE.VARCHAR, 10), { form: 'integer' }],
    ['an unsigned key that is now a DOUBLE', column(TYPE.DOUBLE, 8), { form: 'unsigned' }],
    ['a decimal key that is now an INT', column(TYPE.LONG), { form: 'decimal' }],
    ['a text key that is now an INT', column(TYPE.LONG), { form: 'text' }],
    ['a binary key that is now a BLOB', column(TYPE.BLOB, 2), { form: 'binary' }],
    ['a date key that is now a DATETIME2', column(TYPE.DATETIME2, 0), { form: 'date' }],
    ['a datetime key that is now a DATE', column(TYPE.DATE), { form: 'datetime' }],
    ['a timestamp key that is now a DATETIME2', column(TYPE.DATETIME2, 0), { form: 'timestamp' }],
    ['a time key that is now a DATETIME2', column(TYPE.DATETIME2, 0), { form: 'time' }],
    ['a year key that is now a TINYINT', column(TYPE.TINY), { form: 'year' }],
    ['an enum key that is now a SET', column(TYPE.SET, 1), { form: 'enum' }],
  ])('%s: the table changed since its definition was read', (_case, mapped, decoding) => {
    expect(() => decodeKeyValue(mapped, decoding, new ByteReader(Buffer.alloc(16)))).toThrow(BinlogFormatError);
    expect(() => decodeKeyValue(mapped, decoding, new ByteReader(Buffer.alloc(16)))).toThrow(/the table changed since the definition was read/);
  });

  it('refuses a text key of a character set it cannot decode', () => {
    expect(() => decodeKeyValue(column(TYPE.VARCHAR, 10), { form: 'text', characterSet: 'sjis' }, new ByteReader(hex('01 41')))).toThrow(BinlogFormatError);
  });

  it('refuses a value the event ends inside', () => {
    expect(() => decodeKeyValue(column(TYPE.LONGLONG), { form: 'integer' }, new ByteReader(hex('01020304')))).toThrow(BinlogFormatError);
    expect(() => decodeKeyValue(column(TYPE.VARCHAR, 10), { form: 'text' }, new ByteReader(hex('05 4142')))).toThrow(BinlogFormatError);
  });
});
