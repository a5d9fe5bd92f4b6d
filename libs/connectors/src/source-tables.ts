import { CHANGE_TRACKING_SCHEMA, type ListedTable } from '@svc/contracts';
import { ConnectionPool } from 'mssql';
import { Client } from 'pg';
import { sourceEngineOf, UNSUPPORTED_CONNECTION_STRING } from './engine';
import { postgresClientConfig } from './postgres-config';
import type { ProbeOptions } from './probe';
import { sqlServerConfig } from './sql-server-config';

/**
 * The user tables of a PostgreSQL database (alias `c` for pg_class, `n` for pg_namespace): ordinary and
 * partitioned tables, not partitions, temporary tables, system schemas or the change-tracking schema.
 * Source discovery (libs/source-postgres) uses the same filter, so a listing and a discovery agree.
 */
export const POSTGRES_USER_TABLES_FILTER = `c.relkind in ('r', 'p')
  and not c.relispartition
  and c.relpersistence <> 't'
  and n.nspname not in ('pg_catalog', 'information_schema', '${CHANGE_TRACKING_SCHEMA}')
  and n.nspname !~ '^pg_(toast|temp_)'`;

const POSTGRES_LIST_SQL = `select n.nspname::text as schema, c.relname::text as name,
  coalesce((select array_agg(a.attname::text order by k.position)
              from pg_index i
              cross join unnest(i.indkey) with ordinality as k(attnum, position)
              join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
             where i.indrelid = c.oid and i.indisprimary), '{}') as primary_key,
  greatest(c.reltuples, 0)::float8 as estimated_rows
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
where ${POSTGRES_USER_TABLES_FILTER}
order by 1, 2`;

/** One row per key column (one row with a NULL key column for a table without a key), in key order; no STRING_AGG, which SQL Server 2016 lacks. */
const SQL_SERVER_LIST_SQL = `SELECT s.name AS [schema], t.name AS [name], col.name AS key_column,
  (SELECT SUM(p.rows) FROM sys.partitions p WHERE p.object_id = t.object_id AND p.index_id IN (0, 1)) AS estimated_rows
FROM sys.tables t
JOIN sys.schemas s ON s.schema_id = t.schema_id
LEFT JOIN sys.indexes i ON i.object_id = t.object_id AND i.is_primary_key = 1
LEFT JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
LEFT JOIN sys.columns col ON col.object_id = ic.object_id AND col.column_id = ic.column_id
WHERE t.is_ms_shipped = 0 AND s.name <> '${CHANGE_TRACKING_SCHEMA}'
ORDER BY s.name, t.name, ic.key_ordinal`;

interface SqlServerRow {
  schema: string;
  name: string;
  key_column: string | null;
  estimated_rows: number | string | null;
}

interface ListedRow {
  schema: string;
  name: string;
  primary_key: string[];
  estimated_rows: number | string | null;
}

/** The source's user tables with their primary-key columns; throws when the source cannot be read. */
export async function listSourceTables(connectionString: string, options: ProbeOptions): Promise<ListedTable[]> {
  const connect = { encrypt: options.encrypt, connectTimeoutMs: options.timeoutMs };
  switch (sourceEngineOf(connectionString)) {
    case 'postgres':
      return (await listPostgres(connectionString, connect)).map(toListedTable);
    case 'sqlserver':
      return (await listSqlServer(connectionString, connect, options.timeoutMs)).map(toListedTable);
    case null:
      throw new Error(UNSUPPORTED_CONNECTION_STRING);
  }
}

async function listPostgres(connectionString: string, connect: { encrypt: boolean; connectTimeoutMs: number }): Promise<ListedRow[]> {
  const client = new Client({ ...postgresClientConfig(connectionString, connect), statement_timeout: connect.connectTimeoutMs });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<ListedRow>(POSTGRES_LIST_SQL)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function listSqlServer(connectionString: string, connect: { encrypt: boolean; connectTimeoutMs: number }, timeoutMs: number): Promise<ListedRow[]> {
  const pool = new ConnectionPool({ ...sqlServerConfig(connectionString, connect), requestTimeout: timeoutMs, pool: { min: 0, max: 1 } });
  pool.on('error', () => undefined);
  await pool.connect();
  try {
    return keyColumnsGathered((await pool.request().query<SqlServerRow>(SQL_SERVER_LIST_SQL)).recordset);
  } finally {
    await pool.close().catch(() => undefined);
  }
}

/** Rows of one table (ordered by table, then key ordinal) become one row with its key columns. */
export function keyColumnsGathered(rows: readonly SqlServerRow[]): ListedRow[] {
  const tables: ListedRow[] = [];
  for (const row of rows) {
    const last = tables[tables.length - 1];
    const current = last && last.schema === row.schema && last.name === row.name ? last : undefined;
    const table = current ?? { schema: row.schema, name: row.name, primary_key: [], estimated_rows: row.estimated_rows };
    if (!current) tables.push(table);
    if (row.key_column !== null) table.primary_key.push(row.key_column);
  }
  return tables;
}

function toListedTable(row: ListedRow): ListedTable {
  return { table: { schema: row.schema, name: row.name }, primaryKey: row.primary_key, estimatedRows: Math.round(Number(row.estimated_rows ?? 0)) };
}
