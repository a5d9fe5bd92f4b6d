import type { WarehouseOwnershipLedger } from '@svc/engines';
import type { ClientBase } from 'pg';
import { quoteIdent } from './identifiers';
import { ControlTables } from './table-ddl';
import type { TableLayout } from './table-layout';

/*
 * Lock order of every loader transaction (docs/PIPELINE.md, "Lock order"): (1) lockSchemaDdl, only in
 * ensureTable and the control tables' creation, never in a load; (2) lockTable of the one table the
 * transaction works on; (3) only then anything of that table: its fence and seed rows, its batches' log
 * rows, its shadow and target. Housekeeping, which touches every table's log rows without (2), skips rows
 * held by others: it never waits.
 */

/**
 * Serialises DDL in one warehouse schema (CREATE SCHEMA / CREATE TABLE IF NOT EXISTS race each other across
 * sessions). Held until the transaction ends.
 */
export async function lockSchemaDdl(client: ClientBase, schema: string): Promise<void> {
  await advisoryLock(client, `svc_sys_ddl:${schema}`);
}

/** Serialises work on one warehouse table: loads of its batches and changes to its shape. */
export async function lockTable(client: ClientBase, layout: TableLayout): Promise<void> {
  await advisoryLock(client, `svc_sys_table:${layout.qualifiedTarget}`);
}

export async function isBatchLoaded(client: ClientBase, schema: string, batchId: string): Promise<boolean> {
  const result = await client.query(`SELECT 1 FROM ${loadedBatches(schema)} WHERE batch_id = $1`, [batchId]);
  return result.rowCount !== null && result.rowCount > 0;
}

/** `loadedAt` is the load's stamp (load-stamp.ts). */
export async function recordLoadedBatch(client: ClientBase, schema: string, batchId: string, loadedAt: string): Promise<void> {
  await client.query(`INSERT INTO ${loadedBatches(schema)} (batch_id, loaded_at) VALUES ($1, ${loadedAt})`, [batchId]);
}

/** Forgets batches loaded before `loadedBefore`; returns how many. */
export async function deleteLoadedBatchesBefore(client: ClientBase, schema: string, loadedBefore: Date): Promise<number> {
  // Rows another session holds are skipped, not waited for: housekeeping never waits, so it is never part of a deadlock.
  const result = await client.query(
    `DELETE FROM ${loadedBatches(schema)} WHERE batch_id IN (SELECT batch_id FROM ${loadedBatches(schema)} WHERE loaded_at < $1 FOR UPDATE SKIP LOCKED)`,
    [loadedBefore],
  );
  return result.rowCount ?? 0;
}

/** The seed the table's shadow is collecting (or last collected); null before its first seed. */
export async function currentSeedId(client: ClientBase, layout: TableLayout): Promise<string | null> {
  const result = await client.query<{ seed_id: string }>(`SELECT seed_id FROM ${tableSeeds(layout.schema)} WHERE table_name = $1`, [layout.target]);
  return result.rows[0]?.seed_id ?? null;
}

export async function recordSeedStart(client: ClientBase, layout: TableLayout, seedId: string): Promise<void> {
  await client.query(
    `INSERT INTO ${tableSeeds(layout.schema)} (table_name, seed_id) VALUES ($1, $2)
ON CONFLICT (table_name) DO UPDATE SET seed_id = excluded.seed_id`,
    [layout.target, seedId],
  );
}

/**
 * Raises the table's fence to `epoch` (the epoch of the batch being loaded) and returns true; returns
 * false, changing nothing, when the fence is above it: a newer unit of work has loaded a batch of the
 * table, so this batch is stale. Locks the fence row until the transaction ends.
 */
export async function raiseFence(client: ClientBase, layout: TableLayout, replicationId: string, epoch: number): Promise<boolean> {
  const result = await client.query(
    `INSERT INTO ${tableFences(layout.schema)} AS fence (replication_id, table_name, epoch) VALUES ($1, $2, $3)
ON CONFLICT (replication_id, table_name) DO UPDATE SET epoch = excluded.epoch
WHERE fence.epoch <= excluded.epoch
RETURNING fence.epoch`,
    [replicationId, layout.target, epoch],
  );
  return result.rowCount !== null && result.rowCount > 0;
}

/** True when the table's fence is above `epoch`: a batch of that epoch would be refused. */
export async function isFencedOut(client: ClientBase, layout: TableLayout, replicationId: string, epoch: number): Promise<boolean> {
  const result = await client.query<{ stale: boolean }>(
    `SELECT epoch > $3::bigint AS stale FROM ${tableFences(layout.schema)} WHERE replication_id = $1 AND table_name = $2`,
    [replicationId, layout.target, epoch],
  );
  return result.rows[0]?.stale === true;
}

/** The schema's record of the tables the service created, read and written in `client`'s transaction under the table's lock. */
export function ownershipLedger(client: ClientBase, layout: TableLayout): WarehouseOwnershipLedger {
  return {
    isRecorded: async (table) => ((await client.query(`SELECT 1 FROM ${ownedTables(layout.schema)} WHERE table_name = $1`, [table])).rowCount ?? 0) > 0,
    isTargetNamedByEarlierVersion: async () => {
      const result = await client.query<{ named: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${tableFences(layout.schema)} WHERE table_name = $1)
  OR EXISTS (SELECT 1 FROM ${tableSeeds(layout.schema)} WHERE table_name = $1) AS named`,
        [layout.target],
      );
      return result.rows[0]?.named === true;
    },
    record: async (table) => {
      await client.query(`INSERT INTO ${ownedTables(layout.schema)} (table_name) VALUES ($1) ON CONFLICT (table_name) DO NOTHING`, [table]);
    },
  };
}

async function advisoryLock(client: ClientBase, name: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [name]);
}

function loadedBatches(schema: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(ControlTables.loadedBatches)}`;
}

function tableSeeds(schema: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(ControlTables.tableSeeds)}`;
}

function tableFences(schema: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(ControlTables.tableFences)}`;
}

function ownedTables(schema: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(ControlTables.ownedTables)}`;
}
