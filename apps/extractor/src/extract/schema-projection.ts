import type { TableDefinition } from '@svc/contracts';

/**
 * The source definition narrowed to the columns the staging table already has, in source order, for a
 * replication with SchemaReplication off: a column added in the source then reaches neither staging nor
 * the warehouse. Primary-key columns always stay, since change reads and merges are keyed on them.
 */
export function projectOntoColumns(definition: TableDefinition, existingColumns: readonly string[]): TableDefinition {
  const kept = new Set([...existingColumns, ...definition.primaryKey]);
  return { ...definition, columns: definition.columns.filter((column) => kept.has(column.name)) };
}
