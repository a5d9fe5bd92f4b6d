import { createHash } from 'node:crypto';
import type { ColumnDefinition, TableDefinition, TableRef } from '@svc/contracts';
import { databaseFilter, mysqlColumnPlan, type MysqlColumnPlan, type MysqlColumnRow, type ServerFlavor } from '@svc/mysql/common';
import type { RowDataPacket } from 'mysql2';
import type { Connection } from 'mysql2/promise';

/** One column of a base table of the connection's database, with its table's key position and size. */
export interface CatalogRow extends MysqlColumnRow {
  /** The table's database: its schema. */
  schema: string;
  table: string;
  ordinal: number;
  nullable: boolean;
  hasDefault: boolean;
  /** Position in the primary key (1 = first); null when not a key column. */
  keyPosition: number | null;
  estimatedRows: number;
}

/** A described table with what reads need besides its definition: each column's plan and 0-based place in its rows. */
export interface DescribedTable {
  definition: TableDefinition;
  plans: Map<string, MysqlColumnPlan>;
  ordinals: Map<string, number>;
  /** Columns of a type this engine does not know (the table is listed, and refused when read). */
  unknownTypes: string[];
}

/**
 * The base tables of the source's databases and their columns (views are not sources). A MariaDB
 * JSON column is LONGTEXT checked by json_valid: the check names it (MariaDB's CHECK_CONSTRAINTS has TABLE_NAME).
 */
export function catalogSql(flavor: ServerFlavor, scope: string, oneTable: boolean): string {
  const json =
    flavor === 'mariadb'
      ? `EXISTS (SELECT 1 FROM information_schema.CHECK_CONSTRAINTS k
                  WHERE k.CONSTRAINT_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME
                    AND k.CHECK_CLAUSE = CONCAT('json_valid(\`', REPLACE(c.COLUMN_NAME, '\`', '\`\`'), '\`)'))`
      : '0';
  return `SELECT c.TABLE_SCHEMA AS \`schema\`, c.TABLE_NAME AS \`table\`, c.COLUMN_NAME AS name, c.ORDINAL_POSITION AS ordinal, LOWER(c.DATA_TYPE) AS dataType,
       c.COLUMN_TYPE AS columnType, c.CHARACTER_MAXIMUM_LENGTH AS characterLength, c.NUMERIC_PRECISION AS numericPrecision,
       c.NUMERIC_SCALE AS numericScale, c.DATETIME_PRECISION AS datetimePrecision, c.CHARACTER_SET_NAME AS characterSet,
       c.IS_NULLABLE = 'YES' AS nullable, (c.COLUMN_DEFAULT IS NOT NULL OR c.EXTRA LIKE '%GENERATED%' OR c.EXTRA LIKE '%auto_increment%') AS hasDefault,
       s.SEQ_IN_INDEX AS keyPosition, COALESCE(t.TABLE_ROWS, 0) AS estimatedRows, ${json} AS json
  FROM information_schema.COLUMNS c
  JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME AND t.TABLE_TYPE = 'BASE TABLE'
  LEFT JOIN information_schema.STATISTICS s ON s.TABLE_SCHEMA = c.TABLE_SCHEMA AND s.TABLE_NAME = c.TABLE_NAME AND s.INDEX_NAME = 'PRIMARY' AND s.COLUMN_NAME = c.COLUMN_NAME
 WHERE ${scope}${oneTable ? ' AND c.TABLE_SCHEMA = ? AND c.TABLE_NAME = ?' : ''}
 ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`;
}

export async function catalogRows(connection: Connection, flavor: ServerFlavor, database: string | null, table: TableRef | null): Promise<CatalogRow[]> {
  const scope = databaseFilter('c.TABLE_SCHEMA', database);
  const [rows] = await connection.query<RowDataPacket[]>(catalogSql(flavor, scope.sql, table !== null), [...scope.values, ...(table === null ? [] : [table.schema, table.name])]);
  const count = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return rows.map((row) => ({
    schema: String(row['schema']),
    table: String(row['table']),
    name: String(row['name']),
    ordinal: Number(row['ordinal']),
    dataType: String(row['dataType']),
    columnType: String(row['columnType']),
    characterLength: count(row['characterLength']),
    numericPrecision: count(row['numericPrecision']),
    numericScale: count(row['numericScale']),
    datetimePrecision: count(row['datetimePrecision']),
    characterSet: row['characterSet'] === null ? null : String(row['characterSet']),
    nullable: Number(row['nullable']) === 1,
    hasDefault: Number(row['hasDefault']) === 1,
    keyPosition: count(row['keyPosition']),
    estimatedRows: Number(row['estimatedRows'] ?? 0),
    json: Number(row['json']) === 1,
  }));
}

/**
 * The names of the base tables of the source's databases, without their columns: what a change probe without schema
 * stamps needs (is each watermark's table still there). Far cheaper than the columns' catalog on a server of many
 * tables, which the probe, four times a second, read whole.
 */
export async function baseTableNames(connection: Connection, database: string | null): Promise<TableRef[]> {
  const scope = databaseFilter('TABLE_SCHEMA', database);
  const [rows] = await connection.query<RowDataPacket[]>(
    `SELECT TABLE_SCHEMA AS \`schema\`, TABLE_NAME AS name FROM information_schema.TABLES WHERE ${scope.sql} AND TABLE_TYPE = 'BASE TABLE'`,
    scope.values,
  );
  return rows.map((row) => ({ schema: String(row['schema']), name: String(row['name']) }));
}

/** The source type a definition records: COLUMN_TYPE, with the character set where it has one (a change of it is a type change). */
function sourceTypeOf(row: CatalogRow): string {
  return row.characterSet === null || row.dataType === 'enum' || row.dataType === 'set' ? row.columnType : `${row.columnType} character set ${row.characterSet}`;
}

/** Groups catalog rows into tables, each of the schema that is its database, in name order. */
export function describeTables(rows: readonly CatalogRow[]): DescribedTable[] {
  const byTable = new Map<string, CatalogRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([row.schema, row.table]);
    byTable.set(key, [...(byTable.get(key) ?? []), row]);
  }
  return [...byTable.values()].map((columns) => {
    const schema = columns[0]?.schema ?? '';
    const name = columns[0]?.table ?? '';
    const plans = new Map<string, MysqlColumnPlan>();
    const ordinals = new Map<string, number>();
    const unknownTypes: string[] = [];
    const definitions: ColumnDefinition[] = columns.map((row) => {
      const plan = mysqlColumnPlan(row);
      ordinals.set(row.name, row.ordinal - 1);
      if (plan === null) unknownTypes.push(`${row.name} (${row.columnType})`);
      else plans.set(row.name, plan);
      return {
        name: row.name,
        sourceType: sourceTypeOf(row),
        portableType: plan?.portableType ?? { kind: 'text', length: null, unit: 'characters', fixed: false },
        nullable: row.nullable,
        ...(row.hasDefault && { hasDefault: true }),
      };
    });
    const primaryKey = columns
      .filter((row) => row.keyPosition !== null)
      .sort((left, right) => (left.keyPosition ?? 0) - (right.keyPosition ?? 0))
      .map((row) => row.name);
    const [first] = columns;
    const table: TableRef = { schema, name };
    return { definition: { table, columns: definitions, primaryKey, estimatedRows: first?.estimatedRows ?? 0 }, plans, ordinals, unknownTypes };
  });
}

/** A text that changes whenever the table's columns, types or key do (ChangedTables.schemaStamps). */
export function schemaStamp(described: DescribedTable): string {
  const { columns, primaryKey } = described.definition;
  return createHash('sha256')
    .update(JSON.stringify([columns.map((column) => [column.name, column.sourceType, column.nullable]), primaryKey]))
    .digest('hex')
    .slice(0, 32);
}
