import { tableKey, type TableDefinition } from '@svc/contracts';

interface SentDefinition {
  fingerprint: string;
  /** The version the table's watermark reaches once the batch that carried the definition is loaded. */
  loadedAtVersion: bigint;
}

/**
 * The table definition this process last sent through staging and the warehouse, per replication and
 * table. A change read with no rows skips both only while they have the definition: a column added to a
 * table whose rows do not change must still reach them (and, when it came with a value for existing rows,
 * trigger the reseed that carries it). A definition counts as delivered once the watermark the registry
 * reads from has reached the version of the batch that carried it; a batch that failed downstream leaves
 * the watermark below, so the retry carries the definition again. After a restart nothing is known, so the
 * first empty read of each table goes through once.
 */
export class SentDefinitions {
  private readonly sent = new Map<string, SentDefinition>();

  isDelivered(replicationId: string, definition: TableDefinition, fromVersion: string): boolean {
    const sent = this.sent.get(keyOf(replicationId, definition));
    return sent !== undefined && sent.fingerprint === definitionFingerprint(definition) && BigInt(fromVersion) >= sent.loadedAtVersion;
  }

  remember(replicationId: string, definition: TableDefinition, loadedAtVersion: string): void {
    this.sent.set(keyOf(replicationId, definition), { fingerprint: definitionFingerprint(definition), loadedAtVersion: BigInt(loadedAtVersion) });
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
