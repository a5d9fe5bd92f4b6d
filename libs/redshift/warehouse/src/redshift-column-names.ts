import { EngineError } from '@svc/engines';
import { catalogName, fitIdentifier, quoteIdent, quoteLiteral } from './redshift-identifiers';

/**
 * Two columns of one table that would share a Redshift name once a long one is fitted to 127 bytes: the table stops,
 * naming both, rather than loading one column's values into the other.
 */
export class RedshiftColumnNameError extends EngineError {
  readonly kind = 'statement-failed';
  override readonly serviceWorded = true;

  constructor(message: string) {
    super(message);
    this.name = 'RedshiftColumnNameError';
  }
}

/** A column as Redshift names it, and the source name it stands for. */
export interface WarehouseColumnName {
  /** The name in Redshift: the source's, or, over 127 bytes, a prefix cut on a character boundary plus `_` and a hash of the whole name. */
  name: string;
  /** The source column's name, when `name` is not it. */
  sourceName?: string;
}

/**
 * The Redshift names of a table's columns, in order. Redshift's identifiers are 1 to 127 bytes (AWS, "Names and
 * identifiers"), and a longer name given to CREATE or ALTER TABLE is cut, so a later ADD COLUMN of the full name
 * would find it "already exists" on every retry. A longer name is therefore fitted deterministically (the same
 * source name always gives the same Redshift name), and two columns whose Redshift names would be one (compared
 * as Redshift's catalog keeps them) are refused when a fitted name is among them.
 */
export function warehouseColumnNames(table: string, sourceNames: readonly string[]): WarehouseColumnName[] {
  const seen = new Map<string, { sourceName: string; fitted: boolean }>();
  return sourceNames.map((sourceName) => {
    const name = fitIdentifier(sourceName);
    const fitted = name !== sourceName;
    const stored = catalogName(name);
    const other = seen.get(stored);
    if (other !== undefined && (fitted || other.fitted)) {
      throw new RedshiftColumnNameError(
        `${table}: columns "${other.sourceName}" and "${sourceName}" would both be named "${stored}" in Redshift, whose names are at most 127 bytes; rename one at the source`,
      );
    }
    seen.set(stored, { sourceName, fitted });
    return fitted ? { name, sourceName } : { name };
  });
}

/**
 * Records a fitted column's source name where anyone reading the warehouse finds it: the column's comment
 * (`COMMENT ON COLUMN`, AWS "COMMENT"; read with `col_description` or pg_description). Idempotent.
 */
export function columnSourceNameSql(qualifiedTable: string, column: WarehouseColumnName): string | null {
  if (column.sourceName === undefined) return null;
  return `COMMENT ON COLUMN ${qualifiedTable}.${quoteIdent(column.name)} IS ${quoteLiteral(`source column: ${column.sourceName}`)}`;
}

/** Likewise for a table whose name was fitted (targetTableName): the source table's name, as the table's comment. */
export function tableSourceNameSql(qualifiedTable: string, sourceName: string | undefined): string | null {
  if (sourceName === undefined) return null;
  return `COMMENT ON TABLE ${qualifiedTable} IS ${quoteLiteral(`source table: ${sourceName}`)}`;
}
