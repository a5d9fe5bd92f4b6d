import { STANDARD_CHECKSUM_SQL, standardCanonicalText, type ChecksumColumn, type ChecksumDialect } from '@svc/engines';

/**
 * Session settings under which PostgreSQL's text of a value is its interchange text (docs/ROW-FORMAT.md), whatever the
 * server's or the role's defaults are: ISO dates, instants in UTC, intervals in ISO 8601, bytea in hex, floats that
 * round-trip exactly. Every source read (COPY) and every validation transaction sets them.
 */
export const INTERCHANGE_TEXT_SETTINGS_SQL = [
  "set local timezone to 'UTC'",
  "set local datestyle to 'ISO, YMD'",
  "set local intervalstyle to 'iso_8601'",
  "set local bytea_output to 'hex'",
  'set local extra_float_digits to 3',
].join(';\n');

/** One REPEATABLE READ, read-only snapshot with the interchange text settings: a source read's, a validation's. */
export const READ_ONLY_SNAPSHOT_SQL = `begin isolation level repeatable read read only;\n${INTERCHANGE_TEXT_SETTINGS_SQL}`;

/**
 * PostgreSQL's spelling of validation's checksums, for a source and for a warehouse alike (both declare a
 * column's own type, docs/TYPES.md). Runs under INTERCHANGE_TEXT_SETTINGS_SQL.
 */
export const POSTGRES_CHECKSUM_DIALECT: ChecksumDialect = {
  ...STANDARD_CHECKSUM_SQL,
  canonicalText({ sql, type }: ChecksumColumn): string {
    const standard = standardCanonicalText(sql, type);
    if (standard !== null) return standard;
    switch (type.kind) {
      case 'text':
        // char(n)'s padding is no data: PostgreSQL drops it in ::text, Redshift's VARCHAR keeps what COPY wrote.
        return type.fixed ? `rtrim(${sql}::text, ' ')` : `${sql}::text`;
      case 'binary':
        // Redshift loads an empty binary value as NULL (docs/TYPES.md): empty and NULL compare alike everywhere.
        return `nullif(encode(${sql}, 'hex'), '')`;
      case 'integer':
      case 'decimal':
      case 'interval':
      case 'uuid':
      case 'json':
      case 'array':
      case 'native':
      case 'boolean':
      case 'date':
      case 'time':
      case 'timestamp':
      case 'float':
        return `${sql}::text`;
    }
  },
  /** PostgreSQL's sum of a bigint is a NUMERIC, exact (functions-aggregate.html), accumulated without a cast a row. */
  digestSum(digest: string): string {
    return `SUM(${digest})`;
  },
  keyText({ sql }: ChecksumColumn): string {
    return `${sql}::text`;
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
};
