import type { StagedFiles } from '@svc/contracts';
import type { RebuildThreshold, StagedFileReader } from '@svc/engines';
import { rebuildWithChanges } from '@svc/postgres/common';
import type { ClientBase } from 'pg';
import { recordSeedStart } from './control-tables';
import { copyIn } from './copy-in';
import { quoteIdent } from './identifiers';
import { LOAD_TABLE, targetRebuildOf, copyChangesSql, copySeedPartSql, createLoadTableSql, firstSeedSql, mergeChangesIntoShadowSql, mergeChangesSql, mergeSeedSql, targetIsEmptySql } from './merge-sql';
import { swapShadowIntoTarget } from './seed-swap';
import { dropShadow, startSeedShadow } from './seed-shadow';
import type { TableLayout } from './table-layout';

export interface LoadOptions {
  /** REINDEX the target after a seed has been merged into it. */
  rebuildIndexes: boolean;
  /** When a change batch rebuilds a Type1 target instead of merging. */
  rebuild: RebuildThreshold;
}

/*
 * The PostgreSQL steps of a load (WarehouseProtocol decides their order): the files go in by COPY FROM STDIN,
 * change batches through a temp load table, seed parts into the shadow.
 */

/** A change batch's files COPYed into the transaction's load table; the row count. */
export async function loadChangeFiles(client: ClientBase, layout: TableLayout, files: StagedFiles, reader: StagedFileReader): Promise<number> {
  await client.query(createLoadTableSql(layout));
  const rowCount = await copyParts(client, copyChangesSql(layout), files, reader);
  // Temp tables are never analysed automatically; without statistics a large batch gets a poor join plan.
  await client.query(`ANALYZE ${quoteIdent(LOAD_TABLE)}`);
  return rowCount;
}

/** `now` is the load's stamp (load-stamp.ts); a batch of `rowCount` changes that rewrites most of a Type1 target rebuilds it. */
export async function mergeChanges(client: ClientBase, layout: TableLayout, now: string, rowCount: number, threshold: RebuildThreshold): Promise<void> {
  const rebuild = targetRebuildOf(layout, now);
  if (rebuild !== null && (await rebuildWithChanges(client, rebuild, rowCount, threshold))) return;
  await runAll(client, mergeChangesSql(layout, now));
}

/** A chunked seed's close: the load table's changes applied to the seed's shadow. */
export async function mergeChangesIntoShadow(client: ClientBase, layout: TableLayout): Promise<void> {
  await runAll(client, mergeChangesIntoShadowSql(layout));
}

/** Part 0: the shadow emptied and the seed recorded as the table's current one. */
export async function startSeed(client: ClientBase, layout: TableLayout, seedId: string): Promise<void> {
  await startSeedShadow(client, layout);
  await recordSeedStart(client, layout, seedId);
}

export function loadSeedFiles(client: ClientBase, layout: TableLayout, files: StagedFiles, reader: StagedFileReader): Promise<number> {
  return copyParts(client, copySeedPartSql(layout), files, reader);
}

/**
 * The final part: a first seed into an empty target makes the shadow the target when nothing else hangs on
 * it (its statistics go with it); otherwise the shadow is merged into the target (into an empty one with a
 * plain INSERT). Either way in the part's transaction: a statement sees the target before or after the seed
 * (a swap, like TRUNCATE, is not MVCC-safe for a REPEATABLE READ snapshot taken before it: see the README).
 */
export async function completeSeed(client: ClientBase, layout: TableLayout, options: LoadOptions, now: string): Promise<void> {
  await client.query(`ANALYZE ${layout.qualifiedShadow}`);
  const first = firstSeedSql(layout, now);
  const empty = first !== null && (await client.query<{ empty: boolean }>(targetIsEmptySql(layout))).rows[0]?.empty === true;
  // A swapped-in table's primary key was just built: there is nothing for RebuildIndexes to rebuild.
  if (empty && (await swapShadowIntoTarget(client, layout, now))) return;
  await runAll(client, empty && first ? first : mergeSeedSql(layout, now));
  await dropShadow(client, layout);
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
