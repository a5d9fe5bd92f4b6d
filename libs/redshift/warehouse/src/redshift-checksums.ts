import type { PortableType, TableDefinition } from '@svc/contracts';
import {
  STANDARD_CHECKSUM_SQL,
  SystemColumns,
  TIMESTAMP_TEXT_FORMAT,
  standardCanonicalText,
  type ChecksumColumn,
  type ChecksumDialect,
  type ChecksumQuery,
  type ChecksumTable,
} from '@svc/engines';
import type { Pool } from 'pg';
import { quoteIdent } from './redshift-identifiers';
import type { RedshiftLayout } from './redshift-layout';
import { caseSensitive } from './redshift-sql';
import { redshiftColumnType } from './redshift-types';

/*
 * Validation's checksums in Redshift's SQL (https://docs.aws.amazon.com/redshift/latest/dg/): MD5 returns the
 * 32-character hex digest of a string (r_MD5.html); STRTOL(num_string, base) its BIGINT value (r_STRTOL.html);
 * CHR, REPLACE, COALESCE and || (r_CHR.html, r_REPLACE.html); TO_CHAR with the US (microseconds) pattern
 * (r_FORMAT_strings.html); FROM_VARBYTE(varbyte, 'hex') and TO_VARBYTE(string, 'hex') (r_FROM_VARBYTE.html,
 * r_TO_VARBYTE.html); LOG is base 10 (r_LOG.html).
 * Each canonical text matches PostgreSQL's (libs/postgres/common checksum-dialect.ts) for the values the type
 * tables say Redshift keeps: columns Redshift stores as VARCHAR hold the interchange text itself.
 */

const ALIAS = 't';

/** Whether Redshift holds the kind as the interchange text in a VARCHAR (docs/TYPES.md, "Redshift as a warehouse"). */
function storedAsText(type: PortableType): boolean {
  return type.kind !== 'text' && type.kind !== 'uuid' && /^VARCHAR/.test(redshiftColumnType(type).type);
}

export const REDSHIFT_CHECKSUM_DIALECT: ChecksumDialect = {
  ...STANDARD_CHECKSUM_SQL,
  canonicalText({ sql, type }: ChecksumColumn): string {
    if (storedAsText(type)) return sql;
    const standard = standardCanonicalText(sql, type);
    if (standard !== null) return standard;
    switch (type.kind) {
      case 'text':
        // A char(n) value arrives padded; its blanks are no data (PostgreSQL's char(n)::text drops them too).
        return type.fixed ? `RTRIM(${sql})` : sql;
      case 'uuid':
        return `LOWER(RTRIM(${sql}))`;
      case 'binary':
        // COPY loads an empty binary value as NULL (docs/TYPES.md): empty and NULL compare alike on every engine.
        return `NULLIF(LOWER(FROM_VARBYTE(${sql}, 'hex')), '')`;
      case 'integer':
      case 'decimal':
      case 'interval':
      case 'json':
      case 'array':
      case 'native':
      case 'boolean':
      case 'date':
      case 'time':
      case 'timestamp':
      case 'float':
        return `CAST(${sql} AS VARCHAR)`;
    }
  },
  keyText({ sql, type }: ChecksumColumn): string {
    if (type.kind === 'text' || storedAsText(type)) return sql;
    // A VARBYTE cast to VARCHAR is its bytes read as UTF-8 (r_TO_HEX.html): the interchange text is `\x` and the hex.
    if (type.kind === 'binary') return `CHR(92) || 'x' || FROM_VARBYTE(${sql}, 'hex')`;
    if (type.kind === 'timestamp') return type.zone ? `TO_CHAR(${sql} AT TIME ZONE 'UTC', ${TIMESTAMP_TEXT_FORMAT}) || '+00'` : `TO_CHAR(${sql}, ${TIMESTAMP_TEXT_FORMAT})`;
    if (type.kind === 'uuid') return `LOWER(RTRIM(${sql}))`;
    return `CAST(${sql} AS VARCHAR)`;
  },
  /** A VARCHAR cast to VARBYTE is its UTF-8 bytes (r_VARBYTE_type.html): a binary key's `\x…` text is hex, read by TO_VARBYTE (r_TO_VARBYTE.html). */
  keyFromText(parameter: string, column: ChecksumColumn): string {
    if (column.type.kind === 'binary') return `TO_VARBYTE(SUBSTRING(${parameter}, 3), 'hex')`;
    return STANDARD_CHECKSUM_SQL.keyFromText(parameter, column);
  },
  /**
   * A key held as text compares as the merges compare it (redshift-sql.ts, equalValues): case-sensitively whatever the
   * database's collation, and with its length in bytes, since `=` ignores trailing blanks. A uuid's text is compared by
   * `=`: its case is no part of the value.
   */
  keyEquals({ sql, type }: ChecksumColumn, value: string): string {
    if (type.kind !== 'text' && !storedAsText(type)) return `${sql} = ${value}`;
    return `(${caseSensitive(sql)} = ${caseSensitive(value)} AND OCTET_LENGTH(${sql}) = OCTET_LENGTH(${value}))`;
  },
  character(code: number): string {
    return `CHR(${code})`;
  },
  md5(text: string): string {
    return `MD5(${text})`;
  },
  hexPrefixValue(hex: string, digits: number): string {
    return `STRTOL(SUBSTRING(${hex}, 1, ${digits}), 16)`;
  },
};

/** What validation reads of a Redshift table: the source's columns, and of a Type2 table only the current rows. */
export function redshiftChecksumTable(layout: RedshiftLayout, definition: TableDefinition): ChecksumTable {
  const columns = layout.columns.map((column, index): ChecksumColumn => {
    const source = definition.columns[index];
    if (source === undefined) throw new Error(`column ${column.name} has no source column`);
    return { sql: `${ALIAS}.${quoteIdent(column.name)}`, type: source.portableType, declaredType: column.redshift.type };
  });
  const byName = new Map(layout.columns.map((column, index) => [column.name, columns[index]]));
  return {
    from: `${layout.qualifiedTarget} AS ${ALIAS}`,
    where: layout.history === 'type2' ? `${ALIAS}.${quoteIdent(SystemColumns.isCurrent)}` : null,
    columns,
    keyColumns: layout.keyColumns.map((name) => {
      const column = byName.get(name);
      if (column === undefined) throw new Error(`key column ${name} is not a column of ${layout.target}`);
      return column;
    }),
  };
}

/** One read-only transaction (Redshift's snapshot isolation: every statement sees the same committed rows). */
export async function openRedshiftChecksumSession(pool: Pool): Promise<{ query: ChecksumQuery; close(): Promise<void> }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ ONLY');
  } catch (error) {
    client.release(true);
    throw error;
  }
  let closed = false;
  return {
    query: async (sql, parameters) => (await client.query(sql, [...parameters])).rows as Record<string, unknown>[],
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await client.query('ROLLBACK');
        client.release();
      } catch {
        client.release(true);
      }
    },
  };
}
