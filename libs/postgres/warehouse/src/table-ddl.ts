import type { ColumnDefinition } from '@svc/contracts';
import { WarehouseControlTables } from '@svc/engines';
import { declaredPostgresType } from '@svc/postgres/common';
import { quoteIdent } from './identifiers';
import { columnList } from './sql-fragments';
import { SystemColumns, type TableLayout } from './table-layout';

/** A column as CREATE TABLE / ADD COLUMN spell it. */
export interface ColumnSpec {
  name: string;
  type: string;
}

export function createSchemaSql(schema: string): string {
  return `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`;
}

/**
 * Batch ids loaded (idempotency), the seed each table is collecting, each table's work epoch fence, and the
 * tables the service created (targets and shadows): no other table is written.
 */
export function createControlTablesSql(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${quoteIdent(ControlTables.loadedBatches)} (
  batch_id text PRIMARY KEY,
  loaded_at timestamptz NOT NULL DEFAULT now()
)`,
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${quoteIdent(ControlTables.tableSeeds)} (
  table_name text PRIMARY KEY,
  seed_id text NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${quoteIdent(ControlTables.tableFences)} (
  replication_id text NOT NULL,
  table_name text NOT NULL,
  epoch bigint NOT NULL,
  PRIMARY KEY (replication_id, table_name)
)`,
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${quoteIdent(ControlTables.ownedTables)} (
  table_name text PRIMARY KEY,
  recorded_at timestamptz NOT NULL DEFAULT now()
)`,
  ];
}

export const ControlTables = WarehouseControlTables;

/**
 * The target table. Only key columns are NOT NULL: a Type2 table keeps rows of every past version, and the
 * warehouse must accept whatever the source held. Type2 rows are identified by a surrogate key; a partial
 * unique index keeps one current row per source key.
 */
export function createTargetSql(layout: TableLayout): string[] {
  const keys = new Set(layout.keyColumns);
  const lines = layout.columns.map((column) => `${quoteIdent(column.name)} ${declaredType(column)}${keys.has(column.name) ? ' NOT NULL' : ''}`);
  if (layout.addUpdateTimestamp) lines.push(`${quoteIdent(SystemColumns.updateTimestamp)} timestamptz`);
  switch (layout.history) {
    case 'plain':
      return [createTable(layout.qualifiedTarget, lines)];
    case 'type1':
      return [createTable(layout.qualifiedTarget, [...lines, `PRIMARY KEY (${columnList(layout.keyColumns)})`])];
    case 'type2':
      return [
        createTable(layout.qualifiedTarget, [
          ...lines,
          `${quoteIdent(SystemColumns.validFrom)} timestamptz NOT NULL`,
          `${quoteIdent(SystemColumns.validTo)} timestamptz`,
          `${quoteIdent(SystemColumns.isCurrent)} boolean NOT NULL`,
          `${quoteIdent(SystemColumns.isDeleted)} boolean NOT NULL DEFAULT false`,
          `${quoteIdent(SystemColumns.rowId)} bigserial PRIMARY KEY`,
        ]),
        `CREATE UNIQUE INDEX ${quoteIdent(layout.currentKeyIndex)} ON ${layout.qualifiedTarget} (${columnList(layout.keyColumns)})
WHERE ${quoteIdent(SystemColumns.isCurrent)}`,
      ];
  }
}

/**
 * The seed shadow: the table's columns without constraints. Its rows are not stamped with their seed: the
 * shadow only ever holds the current seed's rows (see startSeedShadow and WarehouseProtocol's loadSeedPart).
 */
export function createShadowSql(layout: TableLayout): string {
  return createTable(
    layout.qualifiedShadow,
    shadowColumns(layout).map((column) => `${quoteIdent(column.name)} ${column.type}`),
  );
}

/** Columns of the target that a later definition may add to an existing table (all nullable). */
export function targetColumns(layout: TableLayout): ColumnSpec[] {
  const columns = layout.columns.map(specOf);
  return layout.addUpdateTimestamp ? [...columns, { name: SystemColumns.updateTimestamp, type: 'timestamptz' }] : columns;
}

export function shadowColumns(layout: TableLayout): ColumnSpec[] {
  return layout.columns.map(specOf);
}

export function addColumnSql(qualifiedTable: string, column: ColumnSpec): string {
  return `ALTER TABLE ${qualifiedTable} ADD COLUMN ${quoteIdent(column.name)} ${column.type}`;
}

function specOf(column: ColumnDefinition): ColumnSpec {
  return { name: column.name, type: declaredType(column) };
}

function createTable(qualifiedTable: string, lines: string[]): string {
  return `CREATE TABLE ${qualifiedTable} (\n  ${lines.join(',\n  ')}\n)`;
}

/** The PostgreSQL type a warehouse column of this source column has, checked to be a built-in type (UnsupportedPostgresTypeError). */
export function declaredType(column: Pick<ColumnDefinition, 'name' | 'portableType'>): string {
  return declaredPostgresType(column);
}
