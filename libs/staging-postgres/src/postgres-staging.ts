import { hasPrimaryKey, type BatchDescriptor, type SeedBatch, type TableDefinition, type TableRef } from '@svc/contracts';
import { postgresClientConfig } from '@svc/connectors';
import type { ApplyOutcome, CsvChunks, StagingConnector } from '@svc/engines';
import { Pool, type PoolClient } from 'pg';
import { copyIn, drain } from './copy-in';
import {
  ANALYZE_CHANGES_SQL,
  CONTROL_SCHEMA_SQL,
  CURRENT_SEED_SQL,
  DDL_LOCK_SQL,
  FENCE_STALE_SQL,
  FORGET_APPLIED_BATCHES_SQL,
  RAISE_FENCE_SQL,
  RECORD_BATCH_SQL,
  TABLE_LOCK_SQL,
  START_SEED_SQL,
  TABLE_COLUMNS_SQL,
  addColumnsSql,
  copyChangeRowsSql,
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
  const pool = new Pool({ ...clientConfig, max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS });
  // An idle connection that dies (e.g. a server restart) is dropped by the pool and the next checkout
  // connects anew; without a listener the error would crash the process.
  pool.on('error', () => undefined);
  return new PostgresStaging(pool);
}

interface TableEnsured {
  created: boolean;
  addedColumns: string[];
}

/** Nothing to do for this batch: a part of an abandoned seed. */
const SKIP = { commit: false, result: null } as const;
/** Applied before: nothing to apply, but the fence raised to the batch's epoch stays. */
const APPLIED_BEFORE = { commit: true, result: null } as const;
/** The batch's epoch is below the table's fence: it belongs to cancelled work and changes nothing. */
const STALE = { commit: false, result: 'stale' } as const;

class PostgresStaging implements StagingConnector {
  private controlSchema: Promise<void> | undefined;

  constructor(private readonly pool: Pool) {}

  async ensureTable(definition: TableDefinition): Promise<TableEnsured> {
    return inTransaction<TableEnsured>(this.pool, async (client) => {
      await client.query(DDL_LOCK_SQL);
      const existing = await client.query<{ columns: string[] }>(TABLE_COLUMNS_SQL, [definition.table.schema, definition.table.name]);
      const present = existing.rows[0]?.columns;
      if (present === undefined) {
        await client.query(createSchemaSql(definition.table));
        await client.query(createTableSql(definition));
        return { commit: true, result: { created: true, addedColumns: [] } };
      }
      const presentNames = new Set(present);
      const missing = definition.columns.filter((column) => !presentNames.has(column.name));
      if (missing.length > 0) await client.query(addColumnsSql(definition.table, missing));
      return { commit: true, result: { created: false, addedColumns: missing.map((column) => column.name) } };
    });
  }

  async existingColumns(table: TableRef): Promise<string[] | null> {
    const result = await this.pool.query<{ columns: string[] }>(TABLE_COLUMNS_SQL, [table.schema, table.name]);
    return result.rows[0]?.columns ?? null;
  }

  /**
   * `rows` is read exactly once: into COPY when the batch applies, else drained after the transaction, so
   * an iteration that also feeds the batch files sees every byte either way. When applying fails, the
   * iteration stops where the failure happened. A stale batch's rows are not read at all: its files must
   * not be written (a newer unit's batch of the same id may own the same keys).
   *
   * The fence check runs under the table lock, before anything else: a batch of a lower epoch than the
   * table's fence is refused; any other raises the fence to its epoch (also when it was applied before).
   */
  async applyBatch(batch: BatchDescriptor, rows: CsvChunks): Promise<ApplyOutcome> {
    const { body, definition } = batch;
    if (body.kind === 'changes' && !hasPrimaryKey(definition)) {
      throw new Error(`changes for ${definition.table.schema}.${definition.table.name}: a table without a primary key is never tracked`);
    }
    await this.ensureControlSchema();
    const { schema, name } = definition.table;
    const rowCount = await inTransaction<number | null | 'stale'>(this.pool, async (client) => {
      await client.query(TABLE_LOCK_SQL, [schema, name]);
      const fenced = await client.query(RAISE_FENCE_SQL, [batch.replicationId, schema, name, batch.epoch]);
      if (fenced.rowCount === 0) return STALE;
      const recorded = await client.query(RECORD_BATCH_SQL, [batch.batchId]);
      if (recorded.rowCount === 0) return APPLIED_BEFORE;
      switch (body.kind) {
        case 'seed':
          return applySeedPart(client, definition, body, rows);
        case 'changes':
          return { commit: true, result: await applyChanges(client, definition, rows) };
      }
    }).catch(this.forgetControlSchemaWhenGone);
    if (rowCount === 'stale') return { applied: false, rowCount: 0, stale: true };
    if (rowCount === null) {
      await drain(rows);
      return { applied: false, rowCount: 0 };
    }
    return { applied: true, rowCount };
  }

  async hasApplied(batchId: string): Promise<boolean> {
    await this.ensureControlSchema();
    const result = await this.pool.query('SELECT 1 FROM svc_staging.applied_batches WHERE batch_id = $1', [batchId]).catch(this.forgetControlSchemaWhenGone);
    return (result.rowCount ?? 0) > 0;
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    await this.ensureControlSchema();
    const { schema, name } = batch.definition.table;
    const result = await this.pool
      .query<{ stale: boolean }>(FENCE_STALE_SQL, [batch.replicationId, schema, name, batch.epoch])
      .catch(this.forgetControlSchemaWhenGone);
    return result.rows[0]?.stale === true;
  }

  async forgetAppliedBatches(appliedBefore: Date): Promise<number> {
    await this.ensureControlSchema();
    const result = await this.pool.query(FORGET_APPLIED_BATCHES_SQL, [appliedBefore]).catch(this.forgetControlSchemaWhenGone);
    return result.rowCount ?? 0;
  }

  /** A staging database dropped and created again under the same name lost its control schema: create it on the next try. */
  private readonly forgetControlSchemaWhenGone = (error: unknown): never => {
    const code = (error as { code?: unknown }).code;
    if (code === '42P01' || code === '3F000') this.controlSchema = undefined;
    throw error;
  };

  async close(): Promise<void> {
    await this.pool.end();
  }

  private ensureControlSchema(): Promise<void> {
    this.controlSchema ??= inTransaction(this.pool, async (client) => {
      await client.query(DDL_LOCK_SQL);
      for (const statement of CONTROL_SCHEMA_SQL) await client.query(statement);
      return { commit: true, result: undefined };
    }).catch((error: unknown) => {
      this.controlSchema = undefined;
      throw error;
    });
    return this.controlSchema;
  }
}

/** Part 0 empties the table and makes its seed current; a later part of another seed is stale. */
async function applySeedPart(
  client: PoolClient,
  definition: TableDefinition,
  seed: SeedBatch,
  rows: CsvChunks,
): Promise<{ commit: boolean; result: number | null }> {
  const { schema, name } = definition.table;
  if (seed.part === 0) {
    await client.query(START_SEED_SQL, [schema, name, seed.seedId]);
    await client.query(truncateSql(definition.table));
  } else {
    const current = await client.query<{ seed_id: string }>(CURRENT_SEED_SQL, [schema, name]);
    if (current.rows[0]?.seed_id !== seed.seedId) return SKIP;
  }
  return { commit: true, result: await copyIn(client, copySeedRowsSql(definition), rows) };
}

/** Net changes, set-based: every changed key's row goes, then the rows of inserts and updates come in. */
async function applyChanges(client: PoolClient, definition: TableDefinition, rows: CsvChunks): Promise<number> {
  await client.query(createChangesTableSql(definition));
  const rowCount = await copyIn(client, copyChangeRowsSql(definition), rows);
  await client.query(ANALYZE_CHANGES_SQL);
  await client.query(deleteChangedKeysSql(definition));
  await client.query(insertChangedRowsSql(definition));
  return rowCount;
}
