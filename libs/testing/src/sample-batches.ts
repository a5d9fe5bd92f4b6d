import { Portable, tableKey, type BatchDescriptor, type TableDefinition } from '@svc/contracts';

/** `public.people (id integer primary key, name text)`, as the extractor describes it. */
export const SAMPLE_PEOPLE_TABLE: TableDefinition = {
  table: { schema: 'public', name: 'people' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false },
    { name: 'name', sourceType: 'text', portableType: Portable.text(), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
};

/**
 * A batch of the changes between two versions of a table, named as the extractor names it: the id has no
 * epoch, so older work re-reading the same versions yields the same batch id.
 */
export function sampleChangeBatch(
  replicationId: string,
  versions: { from: number; to: number },
  epoch: number,
  definition: TableDefinition = SAMPLE_PEOPLE_TABLE,
): BatchDescriptor {
  return {
    batchId: `${replicationId}/${tableKey(definition.table)}/changes/${versions.from}-${versions.to}`,
    replicationId,
    epoch,
    definition,
    body: { kind: 'changes', fromVersion: String(versions.from), toVersion: String(versions.to) },
  };
}
