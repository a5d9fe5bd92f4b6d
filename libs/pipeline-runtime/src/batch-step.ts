import type { BatchDescriptor } from '@svc/contracts';
import type { ApplyOutcome, TableEnsured } from '@svc/engines';
import type { WorkContext } from '@svc/messaging';
import { chunkBatchIdsOf, previousBatchOfWork, startsTable } from './batch-ids';
import { CHANGE_BATCH_LAST_SLOT_WAIT_MS, tableLoss, type SeedPartOrder } from './part-order';

/** What a stage's database (staging or warehouse) is asked while one batch goes through the step. */
export interface BatchStepTarget {
  /** True once the batch `batchId` is in (seed part k waits for part k-1). */
  hasDone(batchId: string): Promise<boolean>;
  /** True when a newer unit of work of the table has been applied: this batch would be refused. */
  isStale(): Promise<boolean>;
  /** The table of the batch exists (a part waiting for its predecessor stops waiting once it is gone). */
  tableExists(): Promise<boolean>;
  /** Creates the table or adds (and widens) columns; `keptAs` when an existing table of another shape was kept aside. */
  ensureTable(): Promise<TableEnsured & { keptAs?: string }>;
  /** Applies the batch in one transaction (a batch applied before is a no-op). */
  apply(): Promise<ApplyOutcome>;
}

/** What ensureTable did besides adding columns, in words for the SchemaChange alert (TableEnsured). */
export interface SchemaNotes {
  schemaChanges: string[];
  suspectedRenames: string[];
}

/** What the stage does with each way a batch can end. */
export interface BatchStepOutcomes {
  /** Newer work on the table was applied: the batch belongs to cancelled work and is dropped, never passed on. */
  stale(): void | Promise<void>;
  /** The table had to be created for a batch that adds to it: what was applied before is gone, so the table is reseeded. */
  tableLost(): Promise<void>;
  /** The batch is in (now, or before): pass it on. */
  done(outcome: ApplyOutcome, addedColumns: string[], noticed: SchemaNotes): Promise<void>;
}

/**
 * The step the stager and the loader share for one batch: wait for the batch of the same work before it, drop the batch
 * when newer work was applied, reseed a table whose data downstream was lost, apply, pass on.
 *
 * The staleness check comes before anything is written: a newer unit's batch of the same versions has the
 * same id, so the same keys. A part waiting for a predecessor that was refused as stale is stale too by then,
 * and one whose table was lost meanwhile (its database recreated) lost its predecessor as well.
 */
export async function runBatchStep(
  batch: BatchDescriptor,
  partOrder: SeedPartOrder,
  target: BatchStepTarget,
  outcomes: BatchStepOutcomes,
  context?: Pick<WorkContext, 'lendSlot'>,
): Promise<void> {
  const previous = previousBatchOfWork(batch);
  const tableLost = tableLoss(() => target.tableExists());
  if (previous) {
    const lastSlotTimeoutMs = batch.body.kind === 'changes' ? CHANGE_BATCH_LAST_SLOT_WAIT_MS : undefined;
    await partOrder.waitForPrevious(async () => (await target.hasDone(previous)) || (await target.isStale()) || (await tableLost()), previous, {
      lendSlot: context?.lendSlot,
      lastSlotTimeoutMs,
    });
  }
  if (await target.isStale()) return outcomes.stale();
  // A chunked seed's close applies over every chunk: one missing here was lost with its table (database recreated).
  if (!(await allDone(chunkBatchIdsOf(batch), (batchId) => target.hasDone(batchId)))) return outcomes.tableLost();
  const { created, addedColumns, schemaChanges, suspectedRenames, keptAs } = await target.ensureTable();
  // After an ScdType change the table kept aside is replaced by a new one, which the reseed that follows fills.
  if (created && keptAs === undefined && !startsTable(batch)) return outcomes.tableLost();
  const outcome = await target.apply();
  if (outcome.stale) return outcomes.stale();
  partOrder.applied(batch.batchId);
  await outcomes.done(outcome, addedColumns, { schemaChanges: schemaChanges ?? [], suspectedRenames: suspectedRenames ?? [] });
}

/** Lookups of the batch log at once while checking a close's chunks. */
const CHUNK_CHECKS_AT_ONCE = 8;

async function allDone(batchIds: readonly string[], hasDone: (batchId: string) => Promise<boolean>): Promise<boolean> {
  for (let start = 0; start < batchIds.length; start += CHUNK_CHECKS_AT_ONCE) {
    const found = await Promise.all(batchIds.slice(start, start + CHUNK_CHECKS_AT_ONCE).map(hasDone));
    if (found.includes(false)) return false;
  }
  return true;
}
