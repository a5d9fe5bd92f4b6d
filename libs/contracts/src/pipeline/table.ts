import { Type, type Static } from '@sinclair/typebox';
import { FiniteNumber, Flag, Matching, NonEmptyList, Struct, Text } from '../schema/kinds';
import { PortableTypeSchema } from './portable-type';

/** A table in a source or staging database. */
export const TableRefSchema = Struct({ schema: Text(), name: Text() });
export type TableRef = Static<typeof TableRefSchema>;

/**
 * `[schema].[name]`, the seed's way of naming a table (TablesToInclude), and the pipeline's key of a table.
 * A `]` inside a name is written `]]` (SQL Server quoting), so every name has exactly one key and the key
 * reads back as the same name. This file owns that grammar: the API's table lists and every key use it.
 */
export function tableKey(table: TableRef): string {
  return `[${escapeName(table.schema)}].[${escapeName(table.name)}]`;
}

/** Parses `[schema].[name]` (surrounding spaces ignored); null when the text is not exactly one such name. */
export function parseTableKey(key: string): TableRef | null {
  const text = key.trim();
  const read = readTableRef(text, 0);
  return read.ok && read.end === text.length ? read.table : null;
}

export type TableRefRead = { ok: true; table: TableRef; end: number } | { ok: false; reason: string };

/** Reads one `[schema].[name]` starting at `start`; `end` is just past its closing bracket. */
export function readTableRef(text: string, start: number): TableRefRead {
  const schema = readBracketedName(text, start);
  if (!schema.ok) return schema;
  if (text[schema.end] !== '.') return { ok: false, reason: TABLE_NAME_FORM };
  const name = readBracketedName(text, schema.end + 1);
  if (!name.ok) return name;
  return { ok: true, table: { schema: schema.name, name: name.name }, end: name.end };
}

const TABLE_NAME_FORM = 'must be written [schema].[table]';

type NameRead = { ok: true; name: string; end: number } | { ok: false; reason: string };

function readBracketedName(text: string, start: number): NameRead {
  if (text[start] !== '[') return { ok: false, reason: TABLE_NAME_FORM };
  let name = '';
  let at = start + 1;
  for (;;) {
    const close = text.indexOf(']', at);
    if (close === -1) return { ok: false, reason: "has a '[' without its ']'" };
    name += text.slice(at, close);
    if (text[close + 1] !== ']') {
      at = close + 1;
      break;
    }
    name += ']';
    at = close + 2;
  }
  if (name.trim() === '') return { ok: false, reason: 'has an empty schema or table name' };
  return { ok: true, name, end: at };
}

function escapeName(name: string): string {
  return name.replace(/\]/g, ']]');
}

export const ColumnDefinitionSchema = Struct({
  name: Text(),
  /** The source engine's own type text, e.g. `numeric(38,10)`, `timestamp with time zone`, `mood` (an enum). */
  sourceType: Text(),
  /**
   * What the column's values are, in no engine's spelling (portable-type.ts): staging and warehouse engines
   * declare their columns from it, and its kind says the text form its values travel in (row-format.ts).
   */
  portableType: PortableTypeSchema,
  nullable: Flag(),
  /**
   * Rows that exist when the column is added get a value from the source itself (a default, an identity or
   * a generated column) without any change being recorded; absent when false.
   */
  hasDefault: Type.Optional(Flag()),
  /**
   * The collation of a character column as the source engine names it (SQL Server's sys.columns.collation_name);
   * absent for other columns and for sources that do not report one. The staging database is the source's
   * engine, which creates the column with it. A name only (letters, digits, underscores): it is spliced into DDL.
   */
  collation: Type.Optional(Matching(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be a collation name (letters, digits and underscores)')),
});
export type ColumnDefinition = Static<typeof ColumnDefinitionSchema>;

export const TableDefinitionSchema = Struct({
  table: TableRefSchema,
  /** In the source's ordinal order; every row file lists values in this order. */
  columns: NonEmptyList(ColumnDefinitionSchema),
  /** Primary-key column names in key order (each one of `columns`); empty for a table without a primary key (never tracked). */
  primaryKey: Type.Array(Text(), { problem: 'must be a list' }),
  /** The planner's estimate, for progress (rows seeded of estimated). */
  estimatedRows: FiniteNumber(),
});
export type TableDefinition = Static<typeof TableDefinitionSchema>;

/** Problems of a definition its schema cannot see: primary-key columns that are not among its columns. */
export function definitionKeyProblems(definition: unknown, path: string): string[] {
  if (!isFields(definition) || !Array.isArray(definition['columns']) || !Array.isArray(definition['primaryKey'])) return [];
  const names = new Set(definition['columns'].map((column: unknown) => (isFields(column) ? column['name'] : undefined)));
  return definition['primaryKey'].flatMap((key: unknown, index) =>
    typeof key === 'string' && key.length > 0 && !names.has(key) ? [`${path}.primaryKey[${index}]: '${key}' is not one of the columns`] : [],
  );
}

function isFields(value: unknown): value is { [field: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A source table as a listing of the source knows it: enough to decide whether a replication moves it. */
export type ListedTable = Pick<TableDefinition, 'table' | 'primaryKey' | 'estimatedRows'>;

export function hasPrimaryKey(definition: Pick<TableDefinition, 'primaryKey'>): boolean {
  return definition.primaryKey.length > 0;
}

/** The schema the service creates in a source database for change tracking (DESIGN §5.2); never replicated. */
export const CHANGE_TRACKING_SCHEMA = 'svc_ct';

/**
 * The warehouse table name for a source table (DESIGN §6): the name itself when its schema is one of
 * `bareNameSchemas` (the engines' default schemas, which the engine list collects: `public`, `dbo`), else
 * `<schema>_<name>`. A warehouse engine may shorten it further to fit its identifier limit.
 */
export function warehouseTableName(table: TableRef, bareNameSchemas: ReadonlySet<string>): string {
  return bareNameSchemas.has(table.schema) ? table.name : `${table.schema}_${table.name}`;
}
