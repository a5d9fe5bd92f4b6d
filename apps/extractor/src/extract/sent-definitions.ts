import { tableKey, type TableDefinition } from '@svc/contracts';

/**
 * The table definition this process last sent through staging and the warehouse, per replication and
 * table. A change read with no rows skips both only while the definition is the one they have: a column
 * added to a table whose rows do not change must still reach them (and, when it came with a value for
 * existing rows, trigger the reseed that carries it). After a restart nothing is known, so the first
 * empty read of each table goes through once.
 */
export class SentDefinitions {
  private readonly fingerprints = new Map<string, string>();

  isCurrent(replicationId: string, definition: TableDefinition): boolean {
    return this.fingerprints.get(keyOf(replicationId, definition)) === definitionFingerprint(definition);
  }

  remember(replicationId: string, definition: TableDefinition): void {
    this.fingerprints.set(keyOf(replicationId, definition), definitionFingerprint(definition));
  }
}

function keyOf(replicationId: string, definition: TableDefinition): string {
  return `${replicationId}:${tableKey(definition.table)}`;
}

/** What staging and the warehouse derive their tables from: columns (name, type, nullability, default) and key. */
export function definitionFingerprint(definition: TableDefinition): string {
  const columns = definition.columns.map((column) => [column.name, column.sourceType, column.nullable, column.hasDefault === true]);
  return JSON.stringify({ columns, primaryKey: definition.primaryKey });
}
