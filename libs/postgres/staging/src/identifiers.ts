import type { ColumnDefinition, TableRef } from '@svc/contracts';
import { columnList, postgresColumnType, qualifiedName as qualifiedSchemaName, quoteIdent } from '@svc/postgres/common';

export { columnList, quoteIdent };

export function qualifiedName(table: TableRef): string {
  return qualifiedSchemaName(table.schema, table.name);
}

/**
 * What format_type writes for built-in types: words, a parenthesised modifier (`numeric(38,10)`,
 * `timestamp(3) with time zone`, `interval day to second(0)`), the quoted `"char"`, array brackets.
 * Type text is spliced into DDL, so anything else is refused rather than trusted.
 */
const PORTABLE_TYPE = /^(?:"char"|[a-z_][a-z0-9_]*(?:\s+[a-z_][a-z0-9_]*|\(\d+(?:,\d+)?\))*)(?:\[\])*$/;

export class UnsupportedColumnTypeError extends Error {
  override readonly name = 'UnsupportedColumnTypeError';
}

/** The PostgreSQL type a staging column of this portable type has, checked to be a plain built-in type name. */
export function portableTypeOf(column: Pick<ColumnDefinition, 'name' | 'portableType'>): string {
  return checkedTypeText(column.name, postgresColumnType(column.portableType).type);
}

/** A type text about to be spliced into DDL, checked to be a plain built-in type name. */
export function checkedTypeText(columnName: string, typeText: string): string {
  const type = typeText.trim();
  if (!PORTABLE_TYPE.test(type)) {
    throw new UnsupportedColumnTypeError(`column ${quoteIdent(columnName)} has a type staging cannot create: ${JSON.stringify(type)}`);
  }
  return type;
}
