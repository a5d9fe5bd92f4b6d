import { tableKey, type BatchDescriptor, type TableRef } from '@svc/contracts';

/** Deterministic batch ids (DESIGN §3): replication, table, versions or seed, part. */
export function seedBatchId(replicationId: string, table: TableRef, seedId: string, part: number): string {
  return `${replicationId}/${tableKey(table)}/seed/${seedId}/${part}`;
}

export function changeBatchId(replicationId: string, table: TableRef, fromVersion: string, toVersion: string): string {
  return `${replicationId}/${tableKey(table)}/changes/${fromVersion}-${toVersion}`;
}

/** A batch id as one safe S3 key segment. */
export function batchFolderName(batchId: string): string {
  const [, , kind, ...rest] = batchId.split('/');
  return `${kind ?? 'batch'}-${rest.join('-')}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * The id of the batch of the same work that must be applied before this one, or null: the seed's part before
 * it, or the change batch it follows (`after`). Part 0 and a work's first change batch follow nothing.
 */
export function previousBatchOfWork(batch: BatchDescriptor): string | null {
  const { body, replicationId } = batch;
  const { table } = batch.definition;
  if (body.kind === 'changes') return body.after === undefined ? null : changeBatchId(replicationId, table, body.after, body.fromVersion);
  // The chunks of a chunked seed apply in any order.
  return body.part === 0 || body.chunked === true ? null : seedBatchId(replicationId, table, body.seedId, body.part - 1);
}

/**
 * Part 0 of a seed, or any chunk of a chunked seed (whichever arrives first starts it), fills its table from nothing;
 * every other batch adds to what is already there. A chunked seed's table lost after some chunks were in is found by
 * its close (chunkBatchIdsOf: every chunk must be in the batch log).
 */
export function startsTable(batch: BatchDescriptor): boolean {
  return batch.body.kind === 'seed' && (batch.body.part === 0 || batch.body.chunked === true);
}

/** The batch ids of every chunk of the seed a close's first batch closes; empty for any other batch. */
export function chunkBatchIdsOf(batch: BatchDescriptor): string[] {
  const { body } = batch;
  if (body.kind !== 'changes' || body.closesSeed === undefined || body.after !== undefined) return [];
  const { seedId, chunkCount } = body.closesSeed;
  return Array.from({ length: chunkCount }, (_, index) => seedBatchId(batch.replicationId, batch.definition.table, seedId, index));
}

/**
 * JetStream de-duplication id of a stage's message about a batch. Scoped by the unit of work: an idle
 * table yields the same (empty) batch id cycle after cycle, and each cycle's completion must still count;
 * and by its attempt (epoch): a work delivered again reads under a new epoch batches that may bear the ids of the
 * earlier attempt's (the same change range; a chunked seed's chunks, published again at the new epoch), and these
 * must reach the next stage, where the earlier attempt's are refused. A redelivered message of the same attempt is
 * still dropped.
 */
export function workMessageId(workId: string, batchId: string, epoch: number): string {
  return `${workId}/${batchId}/${epoch}`;
}
