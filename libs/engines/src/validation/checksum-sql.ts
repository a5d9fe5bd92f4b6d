import type { PortableType, TableDefinition } from '@svc/contracts';
import { BUCKET_HEX_DIGITS, ROW_DIGEST_HEX_DIGITS, type KeyRange, type Segments } from './checksums';

/** A column as a checksum statement reads it: its value expression in the engine, and the source's portable type. */
export interface ChecksumColumn {
  sql: string;
  type: PortableType;
  /** The type to cast a key's text to, as the engine declares the column (key lookups). */
  declaredType: string;
}

/**
 * How one engine spells the pieces of a checksum statement. The canonical text of a value is the same text on
 * every engine for values that are equal after the pair's documented type losses (docs/TYPES.md): that is what
 * makes digests comparable across engines. The statements themselves are written once (checksum-sql.ts).
 */
export interface ChecksumDialect {
  /** The value's canonical text; NULL for NULL (the statement writes it as `\N`). Text-like kinds unescaped. */
  canonicalText(column: ChecksumColumn): string;
  /** Whether the canonical text may hold `\` or `|` (text, json, arrays, native values), so it is escaped. */
  mayHoldSeparators(type: PortableType): boolean;
  /** A key column's text, which every engine casts back to the column's type (its interchange text). */
  keyText(column: ChecksumColumn): string;
  /** A bound key text cast back to the column's declared type. */
  keyFromText(parameter: string, column: ChecksumColumn): string;
  /**
   * That a key column holds `value` (keyFromText's), as the source compares keys; `column = value` when absent. For an
   * engine whose `=` joins keys the source tells apart (Redshift: trailing blanks, case-insensitive collations).
   */
  keyEquals?(column: ChecksumColumn, value: string): string;
  /** Concatenation of text expressions. */
  concat(parts: readonly string[]): string;
  /** A one-character text from its code point (avoids each engine's backslash rules in literals). */
  character(code: number): string;
  /** Lower-case hex MD5 of the UTF-8 bytes of a text. */
  md5(text: string): string;
  /** The non-negative BIGINT value of the first `digits` (≤ 15) hex characters of `hex`. */
  hexPrefixValue(hex: string, digits: number): string;
  /** The nth (from 1) bound parameter. */
  parameter(index: number): string;
  /**
   * The exact sum of a group's 60-bit row digests (BIGINT), as the statement returns it: as its driver reads it exactly
   * (a driver reading decimals as JavaScript numbers gets text). Past 8 rows it overflows a BIGINT.
   */
  digestSum(digest: string): string;
  /** The words that make `SELECT DISTINCT … FROM … WHERE …` return at most `limit` rows: before the select list, and after the statement. */
  distinctAtMost(limit: number): { select: string; after: string };
}

/**
 * A source table's columns and key columns as checksum statements read them (`columnSql` spells a column's reference,
 * quoted as the engine quotes), each declaring its source type.
 */
export function sourceChecksumColumns(definition: TableDefinition, columnSql: (name: string) => string): { columns: ChecksumColumn[]; keyColumns: ChecksumColumn[] } {
  const columns = definition.columns.map((column): ChecksumColumn => ({ sql: columnSql(column.name), type: column.portableType, declaredType: column.sourceType }));
  const byName = new Map(definition.columns.map((column, index) => [column.name, columns[index]]));
  const keyColumns = definition.primaryKey.map((name) => {
    const column = byName.get(name);
    if (column === undefined) throw new Error(`key column ${name} is not a column of ${definition.table.schema}.${definition.table.name}`);
    return column;
  });
  return { columns, keyColumns };
}

/** One table as a checksum statement reads it. */
export interface ChecksumTable {
  /** `<qualified table> AS <alias>` */
  from: string;
  /** Rows to compare (a Type2 table's current rows); null for all. */
  where: string | null;
  columns: readonly ChecksumColumn[];
  /** Empty for a table without a key. */
  keyColumns: readonly ChecksumColumn[];
}

const BACKSLASH = 92;
const BAR = 124;

/** `\` → `\\`, `|` → `\|`: a field's text can then never pass for the separator or for `\N`. */
function escaped(dialect: ChecksumDialect, text: string): string {
  const backslash = dialect.character(BACKSLASH);
  const bar = dialect.character(BAR);
  return `REPLACE(REPLACE(${text}, ${backslash}, ${dialect.concat([backslash, backslash])}), ${bar}, ${dialect.concat([backslash, bar])})`;
}

/** A field of the row text: the canonical text, escaped where it may hold separators, `\N` for NULL. */
function field(dialect: ChecksumDialect, column: ChecksumColumn): string {
  const text = dialect.canonicalText(column);
  const safe = dialect.mayHoldSeparators(column.type) ? escaped(dialect, text) : text;
  return `COALESCE(${safe}, ${dialect.concat([dialect.character(BACKSLASH), "'N'"])})`;
}

/** The canonical text of the given columns, `|` between fields. */
export function canonicalRowText(dialect: ChecksumDialect, columns: readonly ChecksumColumn[]): string {
  const fields = columns.map((column) => field(dialect, column));
  const separated = fields.flatMap((part, index) => (index === 0 ? [part] : [dialect.character(BAR), part]));
  return separated.length === 0 ? "''" : dialect.concat(separated);
}

/**
 * The most bytes a row's text may take: Redshift's VARCHAR, which its row text is, holds 65535 (r_Character_types.html),
 * and the separators and a little slack come on top.
 */
export const ROW_TEXT_BUDGET_BYTES = 60_000;
/** A field carried as its MD5 (32 hex characters). */
const DIGESTED_FIELD_BYTES = 32;
/** Stands for an unbounded field: large, and finite so that sums stay numbers. */
const UNBOUNDED_BYTES = 1e12;

/** The most bytes a field's canonical text can take: 4 UTF-8 bytes a character, escaping doubling `\` and `|`, hex doubling bytes. */
export function fieldTextBytesAtMost(type: PortableType): number {
  switch (type.kind) {
    case 'text':
      return type.length === null ? UNBOUNDED_BYTES : 2 * (type.unit === 'bytes' ? type.length : 4 * type.length);
    case 'binary':
      return type.length === null ? UNBOUNDED_BYTES : 2 * type.length;
    case 'json':
    case 'array':
    case 'native':
      return UNBOUNDED_BYTES;
    case 'integer':
    case 'decimal':
    case 'float':
    case 'boolean':
    case 'date':
    case 'time':
    case 'timestamp':
    case 'interval':
    case 'uuid':
      return 80;
  }
}

/**
 * The fields a row text carries as their MD5 rather than their text: the largest first (ties by position), until the
 * row's worst case fits ROW_TEXT_BUDGET_BYTES. Decided from the column types alone, so every engine decides alike.
 */
export function digestedFields(columns: readonly ChecksumColumn[]): ReadonlySet<number> {
  const sizes = columns.map((column, index) => ({ index, bytes: fieldTextBytesAtMost(column.type) }));
  let total = sizes.reduce((sum, field) => sum + field.bytes + 1, 0);
  const digested = new Set<number>();
  for (const field of [...sizes].sort((a, b) => b.bytes - a.bytes || a.index - b.index)) {
    if (total <= ROW_TEXT_BUDGET_BYTES || field.bytes <= DIGESTED_FIELD_BYTES) break;
    digested.add(field.index);
    total -= field.bytes - DIGESTED_FIELD_BYTES;
  }
  return digested;
}

/** The text a row's digest is the MD5 of: its canonical text, with the fields digestedFields picks as their MD5. */
export function rowDigestText(dialect: ChecksumDialect, columns: readonly ChecksumColumn[]): string {
  const digested = digestedFields(columns);
  const fields = columns.map((column, index) => (digested.has(index) ? dialect.md5(field(dialect, column)) : field(dialect, column)));
  const separated = fields.flatMap((part, index) => (index === 0 ? [part] : [dialect.character(BAR), part]));
  return separated.length === 0 ? "''" : dialect.concat(separated);
}

/**
 * The inner select every statement reads from: key hash and key texts (`withKeys`), the key itself for a table keyed by
 * one integer column (its bucket), row digest. A pass that only sums buckets of such a table computes no key hash.
 */
function hashedRows(dialect: ChecksumDialect, table: ChecksumTable, extraCondition: string | null, withKeys: boolean): string {
  const integerKey = integerKeyColumn(table);
  const keyHash = table.keyColumns.length === 0 ? "''" : dialect.md5(canonicalRowText(dialect, table.keyColumns));
  const rowDigest = dialect.hexPrefixValue(dialect.md5(rowDigestText(dialect, table.columns)), ROW_DIGEST_HEX_DIGITS);
  const keyTexts = withKeys ? table.keyColumns.map((column, index) => `${dialect.keyText(column)} AS key_${index}`) : [];
  const columns = [
    ...(withKeys || integerKey === null ? [`${keyHash} AS key_hash`] : []),
    ...keyTexts,
    // A warehouse that does not enforce its key (Redshift) may hold a NULL one: bucket 0.
    ...(integerKey === null ? [] : [`COALESCE(${integerKey.sql}, 0) AS key_number`]),
    `${rowDigest} AS digest`,
  ];
  const conditions = [table.where, extraCondition].filter((condition): condition is string => condition !== null);
  return `SELECT ${columns.join(', ')}
  FROM ${table.from}${conditions.length > 0 ? `\n  WHERE ${conditions.join(' AND ')}` : ''}`;
}

/** `value` modulo `divisor`, never negative: `%` takes the dividend's sign on every engine. */
function nonNegativeModulo(value: string, divisor: number): string {
  return `(((${value}) % ${divisor} + ${divisor}) % ${divisor})`;
}

function bucketOf(dialect: ChecksumDialect, table: ChecksumTable, buckets: number): string {
  if (table.keyColumns.length === 0 || buckets === 1) return '0';
  if (integerKeyColumn(table) !== null) return nonNegativeModulo('h.key_number', buckets);
  return `(${dialect.hexPrefixValue('h.key_hash', BUCKET_HEX_DIGITS)} % ${buckets})`;
}

/** bucket × subBuckets + sub, the sub-bucket from the key hash's next 32 bits, or from the integer key (checksums.ts segmentOf). */
function segmentOf(dialect: ChecksumDialect, table: ChecksumTable, segments: Segments): string {
  const bucket = bucketOf(dialect, table, segments.buckets);
  if (segments.subBuckets === 1) return bucket;
  const sub =
    integerKeyColumn(table) === null
      ? `(${dialect.hexPrefixValue(`SUBSTRING(h.key_hash, ${BUCKET_HEX_DIGITS + 1}, ${BUCKET_HEX_DIGITS})`, BUCKET_HEX_DIGITS)} % ${segments.subBuckets})`
      : nonNegativeModulo(`h.key_number / ${segments.buckets}`, segments.subBuckets);
  return `(${bucket} * ${segments.subBuckets} + ${sub})`;
}

function integerList(values: readonly number[], what: string): string {
  if (values.length === 0 || !values.every((value) => Number.isSafeInteger(value) && value >= 0)) throw new RangeError(`${what} must be non-negative integers, at least one`);
  return values.join(', ');
}

/** The single integer key column a comparison may read range by range (KeyRange); null for any other key. */
export function integerKeyColumn(table: ChecksumTable): ChecksumColumn | null {
  const [only, ...more] = table.keyColumns;
  return only !== undefined && more.length === 0 && only.type.kind === 'integer' ? only : null;
}

/** The rows whose integer key is in the range, as a condition: integers are literals, ordered alike on every engine. */
function keyRangeCondition(table: ChecksumTable, range: KeyRange): string | null {
  const key = integerKeyColumn(table);
  if (key === null) throw new Error('a key range needs a table whose key is one integer column');
  const bounds = [range.from === undefined ? null : `${key.sql} >= ${range.from.toString()}`, range.to === undefined ? null : `${key.sql} < ${range.to.toString()}`];
  const conditions = bounds.filter((condition): condition is string => condition !== null);
  return conditions.length === 0 ? null : conditions.join(' AND ');
}

/** No range, or one open at both ends: every row. */
function rangeCondition(table: ChecksumTable, range: KeyRange | undefined): string | null {
  return range === undefined || (range.from === undefined && range.to === undefined) ? null : keyRangeCondition(table, range);
}

/** min_key, max_key (texts) of a table whose key is one integer column: where its key ranges are cut. */
export function integerKeyBoundsSql(dialect: ChecksumDialect, table: ChecksumTable): string {
  const key = integerKeyColumn(table);
  if (key === null) throw new Error('key bounds need a table whose key is one integer column');
  return `SELECT ${dialect.keyText({ ...key, sql: `MIN(${key.sql})` })} AS min_key, ${dialect.keyText({ ...key, sql: `MAX(${key.sql})` })} AS max_key
FROM ${table.from}${table.where === null ? '' : `\nWHERE ${table.where}`}`;
}

/** Per bucket: bucket, row_count, digest_sum (exact: ChecksumDialect.digestSum); of the rows whose integer key is in `range` when given. */
export function bucketSumsSql(dialect: ChecksumDialect, table: ChecksumTable, buckets: number, range?: KeyRange): string {
  return `SELECT b.bucket, COUNT(*) AS row_count, ${dialect.digestSum('b.digest')} AS digest_sum
FROM (
  SELECT ${bucketOf(dialect, table, buckets)} AS bucket, h.digest
  FROM (
  ${hashedRows(dialect, table, rangeCondition(table, range), false)}
  ) h
) b
GROUP BY b.bucket`;
}

/** The key texts, and the key itself where it picks the row's bucket (a table keyed by one integer column). */
function keyColumnsOut(table: ChecksumTable): string[] {
  return [...table.keyColumns.map((_, index) => `h.key_${index}`), ...(integerKeyColumn(table) === null ? [] : ['h.key_number'])];
}

/** Per segment of the chosen buckets: segment (as `bucket`), row_count, digest_sum: one read, whatever the number of buckets. */
export function segmentSumsSql(dialect: ChecksumDialect, table: ChecksumTable, segments: Segments, chosenBuckets: readonly number[], range?: KeyRange): string {
  return `SELECT b.segment AS bucket, COUNT(*) AS row_count, ${dialect.digestSum('b.digest')} AS digest_sum
FROM (
  SELECT ${bucketOf(dialect, table, segments.buckets)} AS bucket, ${segmentOf(dialect, table, segments)} AS segment, h.digest
  FROM (
  ${hashedRows(dialect, table, rangeCondition(table, range), false)}
  ) h
) b
WHERE b.bucket IN (${integerList(chosenBuckets, 'chosen buckets')})
GROUP BY b.segment`;
}

/** segment (as `bucket`), key_hash, key_0…, key_number (an integer key), digest of every row whose segment is one of `chosen`. */
export function keyDigestsInSegmentsSql(dialect: ChecksumDialect, table: ChecksumTable, segments: Segments, chosen: readonly number[], range?: KeyRange): string {
  return `SELECT k.* FROM (
  SELECT ${segmentOf(dialect, table, segments)} AS bucket, h.key_hash, ${[...keyColumnsOut(table), 'h.digest'].join(', ')}
  FROM (
  ${hashedRows(dialect, table, rangeCondition(table, range), true)}
  ) h
) k
WHERE k.bucket IN (${integerList(chosen, 'chosen segments')})`;
}

/** bucket, key_hash, key_0…, key_number (an integer key), digest of the rows of `keyCount` keys, bound as parameters key by key, column by column. */
export function digestsOfKeysSql(dialect: ChecksumDialect, table: ChecksumTable, buckets: number, keyCount: number): string {
  if (!Number.isSafeInteger(keyCount) || keyCount < 1) throw new RangeError('a key lookup needs at least one key');
  const width = table.keyColumns.length;
  const matches = Array.from({ length: keyCount }, (_, key) => {
    const columns = table.keyColumns.map((column, index) => {
      const value = dialect.keyFromText(dialect.parameter(key * width + index + 1), column);
      return dialect.keyEquals?.(column, value) ?? `${column.sql} = ${value}`;
    });
    return columns.length === 1 ? (columns[0] ?? '') : `(${columns.join(' AND ')})`;
  });
  return `SELECT ${bucketOf(dialect, table, buckets)} AS bucket, h.key_hash, ${[...keyColumnsOut(table), 'h.digest'].join(', ')}
FROM (
  ${hashedRows(dialect, table, `(${matches.join('\n    OR ')})`, true)}
) h`;
}

/** The key hash and key texts of distinct keys of a change record table (its key columns as the source declares them). */
export function changedKeysSql(dialect: ChecksumDialect, from: string, keyColumns: readonly ChecksumColumn[], condition: string, limit: number): string {
  const keyHash = dialect.md5(canonicalRowText(dialect, keyColumns));
  const keyTexts = keyColumns.map((column, index) => `${dialect.keyText(column)} AS key_${index}`);
  const { select, after } = dialect.distinctAtMost(limit);
  return `${select} ${[`${keyHash} AS key_hash`, ...keyTexts].join(', ')}
FROM ${from}
WHERE ${condition}${after}`;
}
