import { DEFAULT_REBUILD_THRESHOLD, StagingProtocol, poolGateOptions, type RebuildThreshold, type DialPolicy, type PoolSizing, type StagingConnector, type StagingDialect, type TypedColumn } from '@svc/engines';
import { createPool, isPostgresMissingObject, postgresClientConfig, rebuildWithChanges } from '@svc/postgres/common';
import type { Pool, PoolClient } from 'pg';
import { copyIn } from './copy-in';
import { portableTypeOf } from './identifiers';
import {
  ANALYZE_CHANGES_SQL,
  CONTROL_SCHEMA_SQL,
  CURRENT_SEED_SQL,
  DDL_LOCK_SQL,
  FENCE_STALE_SQL,
  FORGET_APPLIED_BATCHES_SQL,
  HAS_APPLIED_SQL,
  NAMED_BY_EARLIER_VERSION_SQL,
  OWNED_TABLE_SQL,
  RAISE_FENCE_SQL,
  RECORD_OWNED_TABLE_SQL,
  RECORD_BATCH_SQL,
  SHARED_TABLE_SQL,
  TABLE_LOCK_SQL,
  TABLE_LOCK_SHARED_SQL,
  FENCE_EPOCH_SQL,
  START_SEED_SQL,
  TABLE_COLUMNS_SQL,
  TABLE_COLUMN_TYPES_SQL,
  addColumnsSql,
  alterColumnTypesSql,
  copyChangeRowsSql,
  copyMergedSeedRowsSql,
  copySeedRowsSql,
  createChangesTableSql,
  createSchemaSql,
  createTableSql,
  deleteChangedKeysSql,
  forgetRecordsSql,
  insertChangedRowsSql,
  tableRebuildOf,
  truncateSql,
} from './staging-sql';
import { inTransaction } from './transaction';

export interface PostgresStagingOptions {
  /** Staging.EncryptDataInTransit */
  encrypt: boolean;
  /** Default 10 s. */
  connectTimeoutMs?: number;
  /** What every connect of the pool may reach (dial-guard.ts): the worker's; DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
  /** Pool size; default 10. */
  maxConnections?: number;
  /** The worker's sizing of the pool (overrides maxConnections). */
  pool?: Partial<PoolSizing>;
  /** When a change batch rebuilds its table instead of merging (DEFAULT_REBUILD_THRESHOLD). */
  rebuild?: RebuildThreshold;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 10;

/** A staging database on PostgreSQL. Throws ConnectionStringError for a string that is not a postgres:// URL. */
export function createPostgresStaging(connectionString: string, options: PostgresStagingOptions): StagingConnector {
  const clientConfig = postgresClientConfig(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.dial && { dial: options.dial }),
  });
  const { max, gate } = poolGateOptions('Staging', options, DEFAULT_MAX_CONNECTIONS);
  const pool = createPool({ ...clientConfig, max }, gate);
  return new StagingProtocol(postgresStagingDialect(pool, options.rebuild ?? DEFAULT_REBUILD_THRESHOLD));
}

/** The staging protocol's steps in PostgreSQL (staging-sql.ts): advisory locks, and batch rows COPYed into a temporary table. */
function postgresStagingDialect(pool: Pool, rebuild: RebuildThreshold): StagingDialect<PoolClient> {
  const affected = (result: { rowCount: number | null }): number => result.rowCount ?? 0;
  return {
    typeDialect: 'postgres',
    inTransaction: (work) => inTransaction(pool, work),
    isMissingObject: isPostgresMissingObject,
    lockDdl: async (client) => {
      await client.query(DDL_LOCK_SQL);
    },
    createControlObjects: async (client) => {
      for (const statement of CONTROL_SCHEMA_SQL) await client.query(statement);
    },
    lockTable: async (client, table) => {
      await client.query(TABLE_LOCK_SQL, [table.schema, table.name]);
    },
    lockTableShared: async (client, table) => {
      await client.query(TABLE_LOCK_SHARED_SQL, [table.schema, table.name]);
    },
    fenceEpoch: async (client, replicationId, table) => {
      const fence = (await client.query<{ epoch: string }>(FENCE_EPOCH_SQL, [replicationId, table.schema, table.name])).rows[0];
      return fence === undefined ? null : Number(fence.epoch);
    },
    raiseFence: async (client, { replicationId, definition: { table }, epoch }) =>
      affected(await client.query(RAISE_FENCE_SQL, [replicationId, table.schema, table.name, epoch])) > 0,
    isStale: async ({ replicationId, definition: { table }, epoch }) =>
      (await pool.query<{ stale: boolean }>(FENCE_STALE_SQL, [replicationId, table.schema, table.name, epoch])).rows[0]?.stale === true,
    recordBatch: async (client, batchId) => affected(await client.query(RECORD_BATCH_SQL, [batchId])) > 0,
    hasApplied: async (batchId) => affected(await pool.query(HAS_APPLIED_SQL, [batchId])) > 0,
    forgetAppliedBatches: async (appliedBefore) => affected(await pool.query(FORGET_APPLIED_BATCHES_SQL, [appliedBefore])),
    forgetReplication: async (replicationId, table) => {
      let forgotten = 0;
      for (const records of ['table_fences', 'table_seeds'] as const) {
        forgotten += affected(await pool.query(forgetRecordsSql(records), [replicationId, table?.schema ?? null, table?.name ?? null]));
      }
      return forgotten;
    },
    isShared: async (client, replicationId, table) =>
      (await client.query<{ shared: boolean }>(SHARED_TABLE_SQL, [replicationId, table.schema, table.name])).rows[0]?.shared === true,
    startSeed: async (client, replicationId, table, seedId, truncated) => {
      await client.query(START_SEED_SQL, [replicationId, table.schema, table.name, seedId, truncated]);
    },
    currentSeed: async (client, replicationId, table) => {
      const current = await client.query<{ seed_id: string; truncated: boolean; superseded: boolean }>(CURRENT_SEED_SQL, [replicationId, table.schema, table.name]);
      const own = current.rows[0];
      return own && { seedId: own.seed_id, truncated: own.truncated, superseded: own.superseded };
    },
    truncate: async (client, table) => {
      await client.query(truncateSql(table));
    },
    appendRows: (client, definition, rows) => copyIn(client, copySeedRowsSql(definition), rows),
    loadBatchRows: async (client, definition, rows, kind) => {
      await client.query(createChangesTableSql(definition));
      const rowCount = await copyIn(client, kind === 'changes' ? copyChangeRowsSql(definition) : copyMergedSeedRowsSql(definition), rows);
      await client.query(ANALYZE_CHANGES_SQL);
      return rowCount;
    },
    rebuildWithBatch: (client, definition, rowCount) => rebuildWithChanges(client, tableRebuildOf(definition), rowCount, rebuild),
    deleteBatchKeys: async (client, definition) => {
      await client.query(deleteChangedKeysSql(definition));
    },
    // Seed rows land in the changes table with its operation column's default, an insert: one statement serves both.
    insertBatchRows: async (client, definition) => {
      await client.query(insertChangedRowsSql(definition));
    },
    // One query reads names and types.
    presentColumns: async (client, table) => {
      const typed = (await client.query<TypedColumn>(TABLE_COLUMN_TYPES_SQL, [table.schema, table.name])).rows;
      return { names: typed.map((column) => column.name), typed: () => Promise.resolve(typed) };
    },
    wantedType: (column) => portableTypeOf(column),
    createTable: async (client, definition) => {
      await client.query(createSchemaSql(definition.table));
      await client.query(createTableSql(definition));
    },
    widenColumns: async (client, table, widen) => {
      await client.query(alterColumnTypesSql(table, widen));
    },
    addColumns: async (client, table, missing) => {
      await client.query(addColumnsSql(table, missing));
    },
    existingColumns: async (table) => (await pool.query<{ columns: string[] }>(TABLE_COLUMNS_SQL, [table.schema, table.name])).rows[0]?.columns ?? null,
    isOwnedTable: async (client, table) => affected(await client.query(OWNED_TABLE_SQL, [table.schema, table.name])) > 0,
    isNamedByEarlierVersion: async (client, table) =>
      (await client.query<{ named: boolean }>(NAMED_BY_EARLIER_VERSION_SQL, [table.schema, table.name])).rows[0]?.named === true,
    recordOwnedTable: async (client, table) => {
      await client.query(RECORD_OWNED_TABLE_SQL, [table.schema, table.name]);
    },
    close: () => pool.end(),
  };
}
