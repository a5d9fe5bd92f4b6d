import type { BatchDescriptor, SeedBatch, StagedFiles } from '@svc/contracts';
import type { ApplyOutcome, StagedFileReader } from '@svc/engines';
import type { ClientBase } from 'pg';
import { currentSeedId, isBatchLoaded, lockTable, raiseFence, recordLoadedBatch, recordSeedStart } from './control-tables';
import { copyIn } from './copy-in';
import { quoteIdent } from './identifiers';
import { LOAD_TABLE, copyChangesSql, copySeedPartSql, createLoadTableSql, firstSeedSql, mergeChangesSql, mergeSeedSql, targetIsEmptySql } from './merge-sql';
import { swapShadowIntoTarget } from './seed-swap';
import { startSeedShadow } from './seed-shadow';
import type { TableLayout } from './table-layout';

export interface LoadOptions {
  /** REINDEX the target after a seed has been merged into it. */
  rebuildIndexes: boolean;
}

const NOT_APPLIED: ApplyOutcome = { applied: false, rowCount: 0 };
const STALE: ApplyOutcome = { applied: false, rowCount: 0, stale: true };

/**
 * Loads one batch inside the caller's transaction: a batch of a lower epoch than the table's fence (a
 * cancelled unit of work), a batch loaded before, or a part of an abandoned seed changes nothing;
 * otherwise its files are streamed in, merged, and its id recorded. Any batch not stale raises the fence
 * to its epoch, under the table lock, so loaders of one table never interleave.
 */
export async function loadBatchInTransaction(
  client: ClientBase,
  layout: TableLayout,
  batch: BatchDescriptor,
  files: StagedFiles,
  reader: StagedFileReader,
  options: LoadOptions,
): Promise<ApplyOutcome> {
  await lockTable(client, layout);
  if (!(await raiseFence(client, layout, batch.replicationId, batch.epoch))) return STALE;
  if (await isBatchLoaded(client, layout.schema, batch.batchId)) return NOT_APPLIED;
  let rowCount: number;
  switch (batch.body.kind) {
    case 'changes':
      rowCount = await loadChanges(client, layout, files, reader);
      break;
    case 'seed': {
      const loaded = await loadSeedPart(client, layout, batch.body, files, reader, options);
      if (loaded === null) return NOT_APPLIED;
      rowCount = loaded;
      break;
    }
  }
  await recordLoadedBatch(client, layout.schema, batch.batchId);
  return { applied: true, rowCount };
}

async function loadChanges(client: ClientBase, layout: TableLayout, files: StagedFiles, reader: StagedFileReader): Promise<number> {
  const merge = mergeChangesSql(layout);
  await client.query(createLoadTableSql(layout));
  const rowCount = await copyParts(client, copyChangesSql(layout), files, reader);
  // Temp tables are never analysed automatically; without statistics a large batch gets a poor join plan.
  await client.query(`ANALYZE ${quoteIdent(LOAD_TABLE)}`);
  await runAll(client, merge);
  return rowCount;
}

/**
 * Null when the part belongs to a seed that is no longer the table's current one. This is what keeps the
 * shadow to one seed's rows, without a per-row stamp: part 0 empties it and records its seed in the same
 * transaction, under the table lock; a later part is COPYed only while its seed is still the recorded one
 * (a newer seed's part 0 has emptied the shadow otherwise, and the epoch fence refuses cancelled work
 * before this); the final part merges and truncates the shadow, or swaps it out for a new empty one.
 */
async function loadSeedPart(
  client: ClientBase,
  layout: TableLayout,
  seed: SeedBatch,
  files: StagedFiles,
  reader: StagedFileReader,
  options: LoadOptions,
): Promise<number | null> {
  if (seed.part === 0) {
    await startSeedShadow(client, layout);
    await recordSeedStart(client, layout, seed.seedId);
  } else if ((await currentSeedId(client, layout)) !== seed.seedId) {
    return null;
  }
  const rowCount = await copyParts(client, copySeedPartSql(layout), files, reader);
  if (seed.final) await completeSeed(client, layout, options);
  return rowCount;
}

/**
 * The final part: a first seed into an empty target makes the shadow the target when nothing else hangs on
 * it (its statistics go with it); otherwise the shadow is merged into the target (into an empty one with a
 * plain INSERT). Either way in the part's transaction: a statement sees the target before or after the seed
 * (a swap, like TRUNCATE, is not MVCC-safe for a REPEATABLE READ snapshot taken before it: see the README).
 */
async function completeSeed(client: ClientBase, layout: TableLayout, options: LoadOptions): Promise<void> {
  await client.query(`ANALYZE ${layout.qualifiedShadow}`);
  const first = firstSeedSql(layout);
  const empty = first !== null && (await client.query<{ empty: boolean }>(targetIsEmptySql(layout))).rows[0]?.empty === true;
  // A swapped-in table's primary key was just built: there is nothing for RebuildIndexes to rebuild.
  if (empty && (await swapShadowIntoTarget(client, layout))) return;
  await runAll(client, empty && first ? first : mergeSeedSql(layout));
  if (options.rebuildIndexes) await client.query(`REINDEX TABLE ${layout.qualifiedTarget}`);
}

async function copyParts(client: ClientBase, copySql: string, files: StagedFiles, reader: StagedFileReader): Promise<number> {
  let rowCount = 0;
  for (const key of files.partKeys) {
    rowCount += await copyIn(client, copySql, await reader.readPart(key));
  }
  return rowCount;
}

async function runAll(client: ClientBase, statements: string[]): Promise<void> {
  for (const statement of statements) await client.query(statement);
}
