import { guardColumnDefinition, type ColumnDefinition, type TableDefinition, type TableRef } from '@svc/contracts';
import { portableTypeOfPostgres } from '@svc/postgres/common';
import type { Pool, PoolClient } from 'pg';
import { CHANGE_TABLE_KEY_COLUMNS_SQL, DISCOVER_TABLES_SQL, PRIMARY_KEY_COLUMNS_SQL } from './catalog-sql';
import { inChangeSchema, qualifiedName } from './identifiers';
import type { KeyColumn } from './tracking-sql';

interface TableRow {
  schema: string;
  name: string;
  estimated_rows: number;
  primary_key: string[];
  columns: unknown;
}

/** All user tables, or the one named by `only`. */
export async function readTableDefinitions(pool: Pool, only?: TableRef): Promise<TableDefinition[]> {
  const result = await pool.query<TableRow>(DISCOVER_TABLES_SQL, [only?.schema ?? null, only?.name ?? null]);
  return result.rows.map(toDefinition);
}

function toDefinition(row: TableRow): TableDefinition {
  return {
    table: { schema: row.schema, name: row.name },
    columns: toColumns(row.columns),
    primaryKey: row.primary_key,
    estimatedRows: Math.round(row.estimated_rows),
  };
}

function toColumns(json: unknown): ColumnDefinition[] {
  if (!Array.isArray(json)) throw new Error('catalog query returned no column list');
  return json.map((item: unknown) => {
    const checked = guardColumnDefinition(withPortableType(item));
    if (!checked.ok) throw new Error(`catalog query returned a malformed column (${checked.problems.join('; ')})`);
    const { name, sourceType, portableType, nullable, hasDefault } = checked.value;
    const column = { name, sourceType, portableType, nullable };
    return hasDefault === true ? { ...column, hasDefault: true } : column;
  });
}

/** The catalog query spells the portable type as PostgreSQL does (format_type); the definition holds its portable form. */
function withPortableType(item: unknown): unknown {
  if (typeof item !== 'object' || item === null) return item;
  const typeText = (item as { portableType?: unknown }).portableType;
  return typeof typeText === 'string' ? { ...item, portableType: portableTypeOfPostgres(typeText) } : item;
}

/** The table's primary key as the catalog has it now, in key order. */
export async function primaryKeyColumns(client: PoolClient, table: TableRef): Promise<KeyColumn[]> {
  const result = await client.query<KeyColumn>(PRIMARY_KEY_COLUMNS_SQL, [qualifiedName(table)]);
  return result.rows;
}

/** The key columns of an existing change table; empty when there is none. */
export async function changeTableKeyColumns(client: PoolClient, changeTable: string): Promise<KeyColumn[]> {
  const result = await client.query<KeyColumn>(CHANGE_TABLE_KEY_COLUMNS_SQL, [inChangeSchema(changeTable)]);
  return result.rows;
}

/** Whether the table is (still) there. */
export async function tableExists(client: PoolClient, table: TableRef): Promise<boolean> {
  const result = await client.query<{ exists: boolean }>('select to_regclass($1) is not null as exists', [qualifiedName(table)]);
  return result.rows[0]?.exists === true;
}
