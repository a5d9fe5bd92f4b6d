import type { BatchDescriptor, ColumnDefinition, TableDefinition, TableRef } from '@svc/contracts';
import {
  StagingProtocol,
  type BatchRowsKind,
  type ColumnTypeDrift,
  type CsvChunks,
  type PresentColumns,
  type SeedRecord,
  type StagingConnector,
  type StagingDialect,
  type TransactionStep,
  type TypedColumn,
} from '@svc/engines';
import { createPool, isPostgresMissingObject, postgresClientConfig } from '@svc/postgres-common';
import type { Pool, PoolClient } from 'pg';
import { copyIn } from './copy-in';
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
  insertChangedRowsSql,
  truncateSql,
} from './staging-sql';
import { inTransaction } from './transaction';

export interface PostgresStagingOptions {
  /** Staging.EncryptDataInTransit */
  encrypt: boolean;
  /** Default 10 s. */
  connectTimeoutMs?: number;
  /** Pool size; default 10. */
  maxConnections?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 10;

/** A staging database on PostgreSQL. Throws ConnectionStringError for a string that is not a postgres:// URL. */
export function createPostgresStaging(connectionString: string, options: PostgresStagingOptions): StagingConnector {
  const clientConfig = postgresClientConfig(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  });
  const pool = createPool({ ...clientConfig, max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS });
  return new StagingProtocol(new PostgresStagingDialect(pool));
}

/** The staging protocol's steps in PostgreSQL (staging-sql.ts): advisory locks, and batch rows COPYed into a temporary table. */
class PostgresStagingDialect implements StagingDialect<PoolClient> {
  readonly typeDialect = 'postgres';

  constructor(private readonly pool: Pool) {}

  inTransaction<T>(work: (client: PoolClient) => Promise<TransactionStep<T>>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  isMissingObject(error: unknown): boolean {
    return isPostgresMissingObject(error);
  }

  async lockDdl(client: PoolClient): Promise<void> {
    await client.query(DDL_LOCK_SQL);
  }

  async createControlObjects(client: PoolClient): Promise<void> {
    for (const statement of CONTROL_SCHEMA_SQL) await client.query(statement);
  }

  async lockTable(client: PoolClient, table: TableRef): Promise<void> {
    await client.query(TABLE_LOCK_SQL, [table.schema, table.name]);
  }

  async raiseFence(client: PoolClient, batch: BatchDescriptor): Promise<boolean> {
    const { schema, name } = batch.definition.table;
    return ((await client.query(RAISE_FENCE_SQL, [batch.replicationId, schema, name, batch.epoch])).rowCount ?? 0) > 0;
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    const { schema, name } = batch.definition.table;
    const result = await this.pool.query<{ stale: boolean }>(FENCE_STALE_SQL, [batch.replicationId, schema, name, batch.epoch]);
    return result.rows[0]?.stale === true;
  }

  async recordBatch(client: PoolClient, batchId: string): Promise<boolean> {
    return ((await client.query(RECORD_BATCH_SQL, [batchId])).rowCount ?? 0) > 0;
  }

  async hasApplied(batchId: string): Promise<boolean> {
    return ((await this.pool.query(HAS_APPLIED_SQL, [batchId])).rowCount ?? 0) > 0;
  }

  async forgetAppliedBatches(appliedBefore: Date): Promise<number> {
    return (await this.pool.query(FORGET_APPLIED_BATCHES_SQL, [appliedBefore])).rowCount ?? 0;
  }

  async isShared(client: PoolClient, replicationId: string, table: TableRef): Promise<boolean> {
    return (await client.query<{ shared: boolean }>(SHARED_TABLE_SQL, [replicationId, table.schema, table.name])).rows[0]?.shared === true;
  }

  async startSeed(client: PoolClient, replicationId: string, table: TableRef, seedId: string, truncated: boolean): Promise<void> {
    await client.query(START_SEED_SQL, [replicationId, table.schema, table.name, seedId, truncated]);
  }

  async currentSeed(client: PoolClient, replicationId: string, table: TableRef): Promise<SeedRecord | undefined> {
    const current = await client.query<{ seed_id: string; truncated: boolean; superseded: boolean }>(CURRENT_SEED_SQL, [replicationId, table.schema, table.name]);
    const own = current.rows[0];
    return own && { seedId: own.seed_id, truncated: own.truncated, superseded: own.superseded };
  }

  async truncate(client: PoolClient, table: TableRef): Promise<void> {
    await client.query(truncateSql(table));
  }

  appendRows(client: PoolClient, definition: TableDefinition, rows: CsvChunks): Promise<number> {
    return copyIn(client, copySeedRowsSql(definition), rows);
  }

  async loadBatchRows(client: PoolClient, definition: TableDefinition, rows: CsvChunks, kind: BatchRowsKind): Promise<number> {
    await client.query(createChangesTableSql(definition));
    const rowCount = await copyIn(client, kind === 'changes' ? copyChangeRowsSql(definition) : copyMergedSeedRowsSql(definition), rows);
    await client.query(ANALYZE_CHANGES_SQL);
    return rowCount;
  }

  async deleteBatchKeys(client: PoolClient, definition: TableDefinition): Promise<void> {
    await client.query(deleteChangedKeysSql(definition));
  }

  /** Seed rows land in the changes table with its operation column's default, an insert: one statement serves both. */
  async insertBatchRows(client: PoolClient, definition: TableDefinition): Promise<void> {
    await client.query(insertChangedRowsSql(definition));
  }

  /** One query reads names and types. */
  async presentColumns(client: PoolClient, table: TableRef): Promise<PresentColumns> {
    const typed = (await client.query<TypedColumn>(TABLE_COLUMN_TYPES_SQL, [table.schema, table.name])).rows;
    return { names: typed.map((column) => column.name), typed: () => Promise.resolve(typed) };
  }

  wantedType(column: ColumnDefinition): string {
    return column.portableType;
  }

  async createTable(client: PoolClient, definition: TableDefinition): Promise<void> {
    await client.query(createSchemaSql(definition.table));
    await client.query(createTableSql(definition));
  }

  async widenColumns(client: PoolClient, table: TableRef, widen: readonly ColumnTypeDrift[]): Promise<void> {
    await client.query(alterColumnTypesSql(table, widen));
  }

  async addColumns(client: PoolClient, table: TableRef, missing: readonly ColumnDefinition[]): Promise<void> {
    await client.query(addColumnsSql(table, missing));
  }

  async existingColumns(table: TableRef): Promise<string[] | null> {
    const result = await this.pool.query<{ columns: string[] }>(TABLE_COLUMNS_SQL, [table.schema, table.name]);
    return result.rows[0]?.columns ?? null;
  }

  async isOwnedTable(client: PoolClient, table: TableRef): Promise<boolean> {
    return ((await client.query(OWNED_TABLE_SQL, [table.schema, table.name])).rowCount ?? 0) > 0;
  }

  async isNamedByEarlierVersion(client: PoolClient, table: TableRef): Promise<boolean> {
    return (await client.query<{ named: boolean }>(NAMED_BY_EARLIER_VERSION_SQL, [table.schema, table.name])).rows[0]?.named === true;
  }

  async recordOwnedTable(client: PoolClient, table: TableRef): Promise<void> {
    await client.query(RECORD_OWNED_TABLE_SQL, [table.schema, table.name]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
