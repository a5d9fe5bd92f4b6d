/** A table in a source or staging database. */
export interface TableRef {
  schema: string;
  name: string;
}

/** `[schema].[name]`, the seed's way of naming a table (TablesToInclude). */
export function tableKey(table: TableRef): string {
  return `[${table.schema}].[${table.name}]`;
}

/** Parses `[schema].[name]`; null when the text is not in that form. */
export function parseTableKey(key: string): TableRef | null {
  const match = /^\[([^\]]+)\]\.\[([^\]]+)\]$/.exec(key.trim());
  return match ? { schema: match[1] ?? '', name: match[2] ?? '' } : null;
}

export interface ColumnDefinition {
  name: string;
  /** The source engine's own type text, e.g. `numeric(38,10)`, `timestamp with time zone`, `mood` (an enum). */
  sourceType: string;
  /**
   * The type staging and warehouse tables use for this column: the source type when it is built in,
   * `text` (or `text[]`) for user-defined types (enums, domains, composites) that other databases lack.
   */
  portableType: string;
  nullable: boolean;
  /**
   * Rows that exist when the column is added get a value from the source itself (a default, an identity or
   * a generated column) without any change being recorded; absent when false.
   */
  hasDefault?: boolean;
}

export interface TableDefinition {
  table: TableRef;
  /** In the source's ordinal order; every row file lists values in this order. */
  columns: ColumnDefinition[];
  /** Primary-key column names in key order; empty for a table without a primary key (never tracked). */
  primaryKey: string[];
  /** The planner's estimate, for progress (rows seeded of estimated). */
  estimatedRows: number;
}

/** A source table as a listing of the source knows it: enough to decide whether a replication moves it. */
export type ListedTable = Pick<TableDefinition, 'table' | 'primaryKey' | 'estimatedRows'>;

export function hasPrimaryKey(definition: Pick<TableDefinition, 'primaryKey'>): boolean {
  return definition.primaryKey.length > 0;
}

/** The schema the service creates in a source database for change tracking (DESIGN §5.2); never replicated. */
export const CHANGE_TRACKING_SCHEMA = 'svc_ct';

/** Schemas whose tables keep their own name in the warehouse (DESIGN §6). */
const DEFAULT_SCHEMAS: ReadonlySet<string> = new Set(['public', 'dbo']);

/**
 * The warehouse table name for a source table (DESIGN §6): the name itself from a default schema, else
 * `<schema>_<name>`. A warehouse engine may shorten it further to fit its identifier limit.
 */
export function warehouseTableName(table: TableRef): string {
  return DEFAULT_SCHEMAS.has(table.schema) ? table.name : `${table.schema}_${table.name}`;
}
