import type { PortableType } from '@svc/contracts';
import type { ChecksumColumn, ChecksumDialect } from '@svc/engines';

/**
 * Session settings under which PostgreSQL's text of a value is its interchange text (docs/ROW-FORMAT.md), set by
 * every validation transaction: intervals in ISO 8601, bytea in hex, instants in UTC.
 */
export const CHECKSUM_SESSION_SQL = [
  "set local timezone to 'UTC'",
  "set local datestyle to 'ISO, YMD'",
  "set local intervalstyle to 'iso_8601'",
  "set local bytea_output to 'hex'",
  'set local extra_float_digits to 3',
].join(';\n');

/** Microseconds, the finest both PostgreSQL and Redshift keep (a source's 7th digit is rounded on the way). */
const TIMESTAMP_FORMAT = "'YYYY-MM-DD HH24:MI:SS.US'";

/**
 * A float's canonical text: 12 significant digits, `<mantissa>e<exponent>` (`0` for zero): engines print floats
 * differently, and their last digits are not worth a false difference. NaN and ±Infinity as PostgreSQL names them.
 */
export function floatCanonicalText(value: string, special: string): string {
  const double = `CAST(${value} AS DOUBLE PRECISION)`;
  const exponent = `FLOOR(LOG(ABS(${double})))`;
  const mantissa = `CAST(CAST(ROUND(${double} / POWER(CAST(10 AS DOUBLE PRECISION), ${exponent} - 11)) AS BIGINT) AS VARCHAR)`;
  return `CASE WHEN ${double} = 0 THEN '0' WHEN ${special} THEN CAST(${value} AS VARCHAR) ELSE ${mantissa} || 'e' || CAST(CAST(${exponent} AS INTEGER) AS VARCHAR) END`;
}

/** Canonical texts of the kinds PostgreSQL and Redshift spell alike (Redshift's own dialect reuses them). */
export function sharedCanonicalText(value: string, type: PortableType): string | null {
  switch (type.kind) {
    case 'boolean':
      return `CASE WHEN ${value} THEN '1' ELSE '0' END`;
    case 'date':
      return `TO_CHAR(${value}, 'YYYY-MM-DD')`;
    case 'time':
      return type.zone ? null : `TO_CHAR(CAST('2000-01-01' AS DATE) + ${value}, 'HH24:MI:SS.US')`;
    case 'timestamp':
      return type.zone ? `TO_CHAR(${value} AT TIME ZONE 'UTC', ${TIMESTAMP_FORMAT})` : `TO_CHAR(${value}, ${TIMESTAMP_FORMAT})`;
    case 'integer':
    case 'decimal':
    case 'float':
    case 'text':
    case 'binary':
    case 'interval':
    case 'uuid':
    case 'json':
    case 'array':
    case 'native':
      return null;
  }
}

const SEPARATOR_KINDS: ReadonlySet<PortableType['kind']> = new Set(['text', 'json', 'array', 'native']);

/** Text, JSON, arrays and other engines' values may hold `\` and `|`. */
export function holdsSeparators(type: PortableType): boolean {
  return SEPARATOR_KINDS.has(type.kind);
}

/**
 * PostgreSQL's spelling of validation's checksums, for a source and for a warehouse alike (both declare a
 * column's own type, docs/TYPES.md). Runs under CHECKSUM_SESSION_SQL.
 */
export const POSTGRES_CHECKSUM_DIALECT: ChecksumDialect = {
  canonicalText({ sql, type }: ChecksumColumn): string {
    const shared = sharedCanonicalText(sql, type);
    if (shared !== null) return shared;
    switch (type.kind) {
      case 'float':
        return floatCanonicalText(sql, `${sql}::text IN ('NaN', 'Infinity', '-Infinity')`);
      case 'text':
        // char(n)'s padding is no data: PostgreSQL drops it in ::text, Redshift's VARCHAR keeps what COPY wrote.
        return type.fixed ? `rtrim(${sql}::text, ' ')` : `${sql}::text`;
      case 'binary':
        // Redshift loads an empty binary value as NULL (docs/TYPES.md): empty and NULL compare alike everywhere.
        return `nullif(encode(${sql}, 'hex'), '')`;
      case 'time':
        return `TO_CHAR(CAST('2000-01-01' AS DATE) + (${sql} AT TIME ZONE 'UTC')::time, 'HH24:MI:SS.US')`;
      case 'integer':
      case 'decimal':
      case 'interval':
      case 'uuid':
      case 'json':
      case 'array':
      case 'native':
      case 'boolean':
      case 'date':
      case 'timestamp':
        return `${sql}::text`;
    }
  },
  mayHoldSeparators: holdsSeparators,
  keyText({ sql }: ChecksumColumn): string {
    return `${sql}::text`;
  },
  keyFromText(parameter: string, column: ChecksumColumn): string {
    return `CAST(${parameter} AS ${column.declaredType})`;
  },
  concat(parts: readonly string[]): string {
    return parts.length === 1 ? (parts[0] ?? "''") : `(${parts.join(' || ')})`;
  },
  character(code: number): string {
    return `chr(${code})`;
  },
  md5(text: string): string {
    return `md5(${text})`;
  },
  hexPrefixValue(hex: string, digits: number): string {
    return `('x' || substr(${hex}, 1, ${digits}))::bit(${digits * 4})::bigint`;
  },
  parameter(index: number): string {
    return `$${index}`;
  },
};
