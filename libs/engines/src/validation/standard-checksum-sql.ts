import type { PortableType } from '@svc/contracts';
import type { ChecksumColumn, ChecksumDialect } from './checksum-sql';

/** Microseconds, the finest PostgreSQL and Redshift keep (a source's 7th fractional digit is rounded on the way). */
export const TIMESTAMP_TEXT_FORMAT = "'YYYY-MM-DD HH24:MI:SS.US'";

/**
 * A float's canonical text: 12 significant digits, `<mantissa>e<exponent>` (`0` for zero), in functions PostgreSQL and
 * Redshift both have (FLOOR, LOG base 10, ABS, POWER, ROUND): engines print floats differently, and their last digits
 * are not worth a false difference. NaN and ±Infinity as the engine names them.
 */
export function floatCanonicalText(value: string): string {
  const double = `CAST(${value} AS DOUBLE PRECISION)`;
  const exponent = `FLOOR(LOG(ABS(${double})))`;
  const mantissa = `CAST(CAST(ROUND(${double} / POWER(CAST(10 AS DOUBLE PRECISION), ${exponent} - 11)) AS BIGINT) AS VARCHAR)`;
  const special = `CAST(${value} AS VARCHAR) IN ('NaN', 'Infinity', '-Infinity')`;
  return `CASE WHEN ${double} = 0 THEN '0' WHEN ${special} THEN CAST(${value} AS VARCHAR) ELSE ${mantissa} || 'e' || CAST(CAST(${exponent} AS INTEGER) AS VARCHAR) END`;
}

/**
 * Canonical texts of the kinds PostgreSQL and Redshift spell alike with standard casts and TO_CHAR: booleans as 1/0,
 * dates, times and timestamps to the microsecond (instants in UTC). Null for a kind each engine spells itself.
 */
export function standardCanonicalText(value: string, type: PortableType): string | null {
  switch (type.kind) {
    case 'boolean':
      // NULL stays NULL (`\N`): an ELSE would make it equal to false.
      return `CASE WHEN ${value} THEN '1' WHEN NOT ${value} THEN '0' END`;
    case 'date':
      return `TO_CHAR(${value}, 'YYYY-MM-DD')`;
    case 'time':
      return type.zone
        ? `TO_CHAR(CAST('2000-01-01' AS DATE) + CAST(${value} AT TIME ZONE 'UTC' AS TIME), 'HH24:MI:SS.US')`
        : `TO_CHAR(CAST('2000-01-01' AS DATE) + ${value}, 'HH24:MI:SS.US')`;
    case 'timestamp':
      return type.zone ? `TO_CHAR(${value} AT TIME ZONE 'UTC', ${TIMESTAMP_TEXT_FORMAT})` : `TO_CHAR(${value}, ${TIMESTAMP_TEXT_FORMAT})`;
    case 'float':
      return floatCanonicalText(value);
    case 'integer':
    case 'decimal':
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

/** The parts of a ChecksumDialect that standard SQL spells the same on PostgreSQL and Redshift. */
export const STANDARD_CHECKSUM_SQL: Pick<ChecksumDialect, 'mayHoldSeparators' | 'keyFromText' | 'concat' | 'parameter' | 'digestSum' | 'distinctAtMost'> = {
  /** Text, JSON, arrays and other engines' values may hold `\` and `|`. */
  mayHoldSeparators: (type) => SEPARATOR_KINDS.has(type.kind),
  keyFromText: (parameter: string, column: ChecksumColumn) => `CAST(${parameter} AS ${column.declaredType})`,
  concat: (parts) => (parts.length === 1 ? (parts[0] ?? "''") : `(${parts.join(' || ')})`),
  parameter: (index) => `$${index}`,
  /** In DECIMAL(38,0): 2^60 × 10^13 rows still fit. node-postgres reads NUMERIC as text, exact as it is. */
  digestSum: (digest) => `SUM(CAST(${digest} AS DECIMAL(38,0)))`,
  distinctAtMost: (limit) => ({ select: 'SELECT DISTINCT', after: `\nLIMIT ${limit}` }),
};
