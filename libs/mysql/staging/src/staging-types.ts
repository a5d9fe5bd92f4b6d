import { describePortableType, tableKey, type ColumnDefinition, type PortableType, type TableRef } from '@svc/contracts';
import { EngineError } from '@svc/engines';

/**
 * The staging columns of MySQL and MariaDB, declared from each column's portable type (never its source's spelling).
 *
 * Each column has two types:
 * - its **logical** type: the portable type in MySQL's spelling (`varchar(40)`, `datetime(6)`, `timestamp(3)` for an
 *   instant), which the column's comment keeps (`svc:varchar(40)`) and the widening lattice compares
 *   (column-type-change.ts, dialect 'mysql');
 * - its **declaration**, what the table holds: the logical type itself where MySQL has it, except that text and
 *   binary outside the primary key are LONGTEXT and LONGBLOB whatever their bound. A VARCHAR counts its longest value
 *   (4 bytes a character in utf8mb4) against the 65,535 bytes every row's columns share, while a LONGTEXT counts 9 to
 *   12 ("Limits on Table Column Count and Row Size", MySQL 8.0 Reference Manual 10.4.7): the source's bound is kept by
 *   the source, and a staging table of many long VARCHARs would not be created at all. Key columns must be indexed
 *   whole, so they keep their bound (VARCHAR, VARBINARY).
 */

/** Whether the column is part of the primary key: only those need a type an index holds whole. */
export type ColumnRole = 'key' | 'value';

/** InnoDB's longest index key, in bytes, for the DYNAMIC row format ("Limits on InnoDB Tables", MySQL 8.0 17.22; MariaDB "InnoDB Limitations"). */
export const INNODB_MAX_KEY_BYTES = 3072;

/** A column's declaration in CREATE and ALTER TABLE, and the bytes its value takes at most in an index (null: no index holds it whole). */
export interface ColumnDeclaration {
  sql: string;
  keyBytes: number | null;
}

/** The prefix of the comment that keeps a column's logical type. */
const COMMENT_PREFIX = 'svc:';

/** MySQL's DECIMAL holds up to 65 digits, up to 30 after the point ("Fixed-Point Types"). */
const DECIMAL_MAX_PRECISION = 65;
const DECIMAL_MAX_SCALE = 30;
/** TIME and DATETIME keep at most microseconds ("Fractional Seconds in Time Values"). */
const MAX_SECOND_DIGITS = 6;

/** The portable type in MySQL's spelling: what the column means, whatever the table declares for it. */
export function logicalType(type: PortableType): string {
  switch (type.kind) {
    case 'integer':
      return type.bytes === 2 ? 'smallint' : type.bytes === 4 ? 'int' : 'bigint';
    case 'decimal':
      return decimalFits(type.precision, type.scale) ? `decimal(${type.precision},${type.scale})` : 'longtext';
    case 'float':
      return type.bytes === 4 ? 'float' : 'double';
    case 'text':
      if (type.length === null) return 'longtext';
      return `${type.fixed ? 'char' : 'varchar'}(${type.length})`;
    case 'binary':
      if (type.length === null) return 'longblob';
      return `${type.fixed ? 'binary' : 'varbinary'}(${type.length})`;
    case 'boolean':
      return 'tinyint(1)';
    case 'date':
      return 'date';
    case 'time':
      return `time(${secondDigits(type.precision)})${type.zone ? ' with time zone' : ''}`;
    case 'timestamp':
      // MySQL's TIMESTAMP is an instant and DATETIME a wall-clock reading: the lattice keeps the two apart.
      return `${type.zone ? 'timestamp' : 'datetime'}(${secondDigits(type.precision)})`;
    case 'interval':
      return 'interval';
    case 'uuid':
      return 'uuid';
    case 'json':
      return 'json';
    case 'array':
      return `${logicalType(type.element)} array`;
    case 'native':
      // Another database of the engine declares the type again; any other engine's travels as its text.
      return type.engine === 'mysql' ? type.type : `text of ${type.engine} ${type.type}`;
  }
}

function decimalFits(precision: number | null, scale: number): precision is number {
  return precision !== null && precision <= DECIMAL_MAX_PRECISION && scale >= 0 && scale <= DECIMAL_MAX_SCALE && scale <= precision;
}

const secondDigits = (precision: number): number => Math.min(precision, MAX_SECOND_DIGITS);

/** Text stored exactly as it came, in the collation that compares it byte for byte (see StagingCollation). */
const textOf = (type: string, collation: string): string => `${type} CHARACTER SET utf8mb4 COLLATE ${collation}`;
/** ASCII-only texts (UUIDs, ISO durations, times with an offset). */
const asciiOf = (type: string): string => `${type} CHARACTER SET ascii COLLATE ascii_bin`;

/**
 * The declaration of a logical type (logicalType's spelling) for a key or a value column; `collation` is the text
 * collation of the server (stagingCollation).
 */
export function columnDeclaration(logical: string, role: ColumnRole, collation: string): ColumnDeclaration {
  const sized = /^(varchar|char|varbinary|binary|decimal|time|datetime|timestamp)\((\d+)(?:,(\d+))?\)$/.exec(logical);
  if (sized !== null) {
    const [, name = '', first = '0', second = '0'] = sized;
    const size = Number(first);
    switch (name) {
      case 'varchar':
      case 'char':
        // VARCHAR for CHAR too: MySQL strips a CHAR's trailing spaces when it reads it ("The CHAR and VARCHAR Types"), so a value would not come back as it came.
        return role === 'key' ? { sql: textOf(`VARCHAR(${size})`, collation), keyBytes: size * 4 } : { sql: textOf('LONGTEXT', collation), keyBytes: null };
      case 'varbinary':
      case 'binary':
        // VARBINARY for BINARY too: BINARY pads a shorter value with zero bytes ("The BINARY and VARBINARY Types").
        return role === 'key' ? { sql: `VARBINARY(${size})`, keyBytes: size } : { sql: 'LONGBLOB', keyBytes: null };
      case 'decimal':
        return { sql: `DECIMAL(${size},${Number(second)})`, keyBytes: 32 };
      case 'time':
        return { sql: `TIME(${size})`, keyBytes: 6 };
      default:
        // datetime and timestamp alike: an instant is stored as its reading in UTC (TIMESTAMP ends in 2038).
        return { sql: `DATETIME(${size})`, keyBytes: 8 };
    }
  }
  if (/^time\(\d\) with time zone$/.test(logical)) return { sql: asciiOf('VARCHAR(64)'), keyBytes: 64 };
  switch (logical) {
    case 'smallint':
      return { sql: 'SMALLINT', keyBytes: 2 };
    case 'int':
      return { sql: 'INT', keyBytes: 4 };
    case 'bigint':
      return { sql: 'BIGINT', keyBytes: 8 };
    case 'float':
      return { sql: 'FLOAT', keyBytes: 4 };
    case 'double':
      return { sql: 'DOUBLE', keyBytes: 8 };
    case 'tinyint(1)':
      return { sql: 'BOOLEAN', keyBytes: 1 };
    case 'date':
      return { sql: 'DATE', keyBytes: 3 };
    case 'longtext':
    case 'json':
      return { sql: textOf('LONGTEXT', collation), keyBytes: null };
    case 'longblob':
      return { sql: 'LONGBLOB', keyBytes: null };
    // An ISO 8601 duration as the row format writes it: its text, whatever its parts (a TIME holds neither months nor 839 hours).
    case 'interval':
      return { sql: asciiOf('VARCHAR(255)'), keyBytes: 255 };
    case 'uuid':
      return { sql: asciiOf('CHAR(36)'), keyBytes: 36 };
    default:
      if (logical.endsWith(' array') || logical.startsWith('text of ')) return { sql: textOf('LONGTEXT', collation), keyBytes: null };
      // A MySQL type of the source's own (INET6): declared again; the server says whether it can be a key.
      if (/^[a-z_][a-z0-9_]*(?:\(\d+(?:,\d+)?\))?$/.test(logical)) return { sql: logical.toUpperCase(), keyBytes: 0 };
      throw new Error(`no MySQL staging declaration for the type ${JSON.stringify(logical)}`);
  }
}

/** The comment that keeps a column's logical type; presentColumns reads it back (logicalTypeOfColumn). */
export function typeComment(logical: string): string {
  return `${COMMENT_PREFIX}${logical}`;
}

/** A staging column's logical type: its comment's, or for a column without one the catalog's COLUMN_TYPE. */
export function logicalTypeOfColumn(columnType: string, comment: string): string {
  return comment.startsWith(COMMENT_PREFIX) ? comment.slice(COMMENT_PREFIX.length) : columnType;
}

/** A primary key no InnoDB index can hold: the table is refused before anything is created. */
export class StagingKeyError extends EngineError {
  readonly kind = 'statement-failed';
  override readonly serviceWorded = true;

  constructor(table: TableRef, detail: string) {
    super(
      `${tableKey(table)}: the staging table cannot be created on MySQL: ${detail}. InnoDB indexes at most ${INNODB_MAX_KEY_BYTES} bytes a key ` +
        '(4 bytes a character in utf8mb4), and the primary key must be indexed whole to merge changes by key (docs/ENGINES.md, "MySQL and MariaDB")',
    );
    this.name = 'StagingKeyError';
  }
}

/** The primary key's columns, each declared for a key; StagingKeyError when InnoDB cannot index them whole. */
export function checkedKeyDeclarations(table: TableRef, columns: readonly ColumnDefinition[], primaryKey: readonly string[], collation: string): Map<string, ColumnDeclaration> {
  const declarations = new Map<string, ColumnDeclaration>();
  let totalBytes = 0;
  for (const name of primaryKey) {
    const column = columns.find((candidate) => candidate.name === name);
    if (column === undefined) throw new Error(`${tableKey(table)}: the primary key names ${name}, which is not a column`);
    const declaration = columnDeclaration(logicalType(column.portableType), 'key', collation);
    if (declaration.keyBytes === null) throw new StagingKeyError(table, `key column ${name} is ${describePortableType(column.portableType)}, which has no bound`);
    if (declaration.keyBytes > INNODB_MAX_KEY_BYTES) throw new StagingKeyError(table, `key column ${name} (${describePortableType(column.portableType)}) takes up to ${declaration.keyBytes} bytes`);
    totalBytes += declaration.keyBytes;
    declarations.set(name, declaration);
  }
  if (totalBytes > INNODB_MAX_KEY_BYTES) throw new StagingKeyError(table, `its key columns (${primaryKey.join(', ')}) take up to ${totalBytes} bytes together`);
  return declarations;
}
