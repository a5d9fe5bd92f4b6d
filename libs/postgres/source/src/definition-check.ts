import type { TableDefinition } from '@svc/contracts';
import { columnMismatch, columnTypeMismatch, type ReadOptions, StaleDefinitionError } from '@svc/engines';
import type { PoolClient } from 'pg';
import { qualifiedName } from './identifiers';

/**
 * The table's columns as the transaction's snapshot sees them (catalog reads are MVCC too): a column
 * added by a transaction the snapshot does not see is absent, one it sees is present.
 */
const SNAPSHOT_COLUMNS_SQL = `select coalesce(array_agg(a.attname::text order by a.attnum), '{}') as columns,
  coalesce(array_agg(pg_catalog.format_type(a.atttypid, a.atttypmod) order by a.attnum), '{}') as types
from pg_attribute a
where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped`;

/**
 * Fails with StaleDefinitionError when the definition does not describe the table as the open snapshot
 * sees it. A definition read before an ALTER TABLE that the snapshot already sees would otherwise copy the
 * rows without the added column, and those values would never reach the warehouse; or, for a column whose type
 * changed (ALTER COLUMN … TYPE), prepare staging and warehouse for the old type (sourceType is format_type's text).
 */
export async function assertDefinitionCurrent(client: PoolClient, definition: TableDefinition, options: ReadOptions = {}): Promise<void> {
  const result = await client.query<{ columns: string[]; types: string[] }>(SNAPSHOT_COLUMNS_SQL, [qualifiedName(definition.table)]);
  const snapshotColumns = result.rows[0]?.columns ?? [];
  const snapshotTypes = result.rows[0]?.types ?? [];
  if (snapshotColumns.length === 0) throw new StaleDefinitionError(definition.table, 'the table does not exist');
  const problem = columnMismatch(
    definition.columns.map((column) => column.name),
    snapshotColumns,
    options.columnsProjected === true,
  );
  if (problem !== null) throw new StaleDefinitionError(definition.table, problem);
  const typeProblem = columnTypeMismatch(
    definition.columns.map((column) => ({ name: column.name, type: column.sourceType })),
    snapshotColumns.map((name, index) => ({ name, type: snapshotTypes[index] ?? '' })),
  );
  if (typeProblem !== null) throw new StaleDefinitionError(definition.table, typeProblem);
}
