import type { CanonicalRow, TableSpec } from './table-spec';

/**
 * What an engine does not keep as the suite writes it, by its documentation: the one place where the generic
 * suite's tables and expectations differ by engine. Anything not declared here must arrive exactly as written;
 * nothing is skipped silently. Each declaration names its source.
 */
export interface SourceLosses {
  /**
   * The source compares keys without their trailing blanks, so 'a' and 'a ' cannot be two keys of one table: the
   * suite's table then holds only one key of each such pair.
   */
  trailingBlanksInKeys: 'kept apart' | 'one key';
}

export interface WarehouseLosses {
  /** What the warehouse holds for a binary value of zero bytes. */
  emptyBinary: 'kept' | 'null';
}

/** PostgreSQL compares text byte for byte ('a' <> 'a ' for text and varchar) and keeps an empty bytea: nothing is lost. */
export const POSTGRES_SOURCE_LOSSES: SourceLosses = { trailingBlanksInKeys: 'kept apart' };
export const POSTGRES_WAREHOUSE_LOSSES: WarehouseLosses = { emptyBinary: 'kept' };

/**
 * SQL Server pads the shorter string with blanks before comparing ("String comparison & assignment": the ANSI/ISO SQL-92
 * rule on how to compare strings with spaces, https://learn.microsoft.com/en-us/sql/t-sql/language-elements/string-comparison-assignment),
 * so = ignores trailing blanks and a primary key refuses 'a ' next to 'a'.
 */
export const SQL_SERVER_SOURCE_LOSSES: SourceLosses = { trailingBlanksInKeys: 'one key' };

/**
 * MySQL and MariaDB compare strings of a PAD SPACE collation (every collation before MySQL 8's NO PAD ones, MariaDB's
 * defaults among them) ignoring trailing blanks ("Trailing Space Handling in Comparisons",
 * https://dev.mysql.com/doc/refman/8.0/en/charset-binary-collations.html#charset-binary-collations-trailing-space-comparisons;
 * MariaDB "Character Sets and Collations": PAD SPACE vs NO PAD), so a primary key refuses 'a ' next to 'a'.
 */
export const MYSQL_SOURCE_LOSSES: SourceLosses = { trailingBlanksInKeys: 'one key' };

/**
 * A real Redshift: an empty VARBYTE arrives as NULL. AWS documents COPY so ("Empty fields for other data types, such as
 * INT, are always loaded with NULL"), and an empty binary key is refused at the source instead (issue 37 item 5); that
 * a cluster does the same for VARBYTE only a live one confirms (docs/REDSHIFT.md).
 */
export const REDSHIFT_WAREHOUSE_LOSSES: WarehouseLosses = { emptyBinary: 'null' };

/**
 * The Redshift dialect on the test hook's PostgreSQL: its COPY loads an empty VARBYTE field as NULL, as AWS documents
 * COPY ("Empty fields for other data types, such as INT, are always loaded with NULL"; redshift-copy-on-postgres.ts),
 * though it holds VARBYTE as hex text.
 */
export const REDSHIFT_DOUBLE_WAREHOUSE_LOSSES: WarehouseLosses = REDSHIFT_WAREHOUSE_LOSSES;

/** The source's rows as the warehouse is documented to hold them: what the warehouse's digest must equal. */
export function asWarehouseHolds(spec: TableSpec, rows: readonly CanonicalRow[], losses: WarehouseLosses): CanonicalRow[] {
  if (losses.emptyBinary === 'kept') return [...rows];
  const binary = spec.columns.map((column) => column.type === 'bytes');
  return rows.map((row) => row.map((value, index) => (binary[index] === true && value === '' ? null : value)));
}
