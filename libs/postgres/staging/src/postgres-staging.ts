import { hasPrimaryKey, type BatchDescriptor, type SeedBatch, type TableDefinition, type TableRef } from '@svc/contracts';
import {
  ColumnTypeChangeError,
  OwnObjectMissingError,
  claimTable,
  columnChangeNotes,
  planColumnTypes,
  suspectedRenames,
  type ApplyOutcome,
  type CsvChunks,
  type OwnershipLedger,
  type StagingConnector,
  type TableEnsured,
  type TypedColumn,
} from '@svc/engines';
import { createPool, isPostgresMissingObject, postgresClientConfig } from '@svc/postgres-common';
import type { Pool, PoolClient } from 'pg';
import { copyIn, drain } from './copy-in';
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
/** Tries of one operation whose control schema turns out missing: the second runs after creating it again. */
const CONTROL_SCHEMA_ATTEMPTS = 2;

/** A staging database on PostgreSQL. Throws ConnectionStringError for a string that is not a postgres:// URL. */
export function createPostgresStaging(connectionString: string, options: PostgresStagingOptions): StagingConnector {
  const clientConfig = postgresClientConfig(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  });
  const pool = createPool({ ...clientConfig, max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS });
  return new PostgresStaging(pool);
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

  /** An existing table is altered (and then written) only when the service created it: see claimTable. */
  async ensureTable(definition: TableDefinition): Promise<TableEnsured> {
    const { schema, name } = definition.table;
    return this.withControlSchema(`staging table ${schema}.${name}`, () => this.ensureTableOnce(definition));
  }

  private ensureTableOnce(definition: TableDefinition): Promise<TableEnsured> {
    const { schema, name } = definition.table;
    return inTransaction<TableEnsured>(this.pool, async (client) => {
      await client.query(DDL_LOCK_SQL);
      const present = (await client.query<TypedColumn>(TABLE_COLUMN_TYPES_SQL, [schema, name])).rows;
      await claimTable(ownershipLedger(client, definition.table), { role: 'Staging', displayName: `${schema}.${name}`, exists: present.length > 0 });
      if (present.length === 0) {
        await client.query(createSchemaSql(definition.table));
        await client.query(createTableSql(definition));
        return { commit: true, result: { created: true, addedColumns: [] } };
      }
      const wanted = definition.columns.map((column) => ({ name: column.name, type: column.portableType }));
      const types = planColumnTypes(present, wanted);
      if (types.incompatible.length > 0) throw new ColumnTypeChangeError(definition.table, 'the staging table', types.incompatible);
      const presentNames = new Set(present.map((column) => column.name));
      const missing = definition.columns.filter((column) => !presentNames.has(column.name));
      if (missing.length > 0 || types.widen.length > 0) {
        // The lock order (docs/PIPELINE.md): the table's lock before its relation, as a batch takes them.
        await client.query(TABLE_LOCK_SQL, [definition.table.schema, definition.table.name]);
      }
      if (types.widen.length > 0) await client.query(alterColumnTypesSql(definition.table, types.widen));
      if (missing.length > 0) await client.query(addColumnsSql(definition.table, missing));
      const result: TableEnsured = { created: false, addedColumns: missing.map((column) => column.name) };
      const schemaChanges = columnChangeNotes('staging', types.widen);
      const renames = columnChangeNotes('staging', [], suspectedRenames(present, wanted));
      return { commit: true, result: { ...result, ...(schemaChanges.length > 0 && { schemaChanges }), ...(renames.length > 0 && { suspectedRenames: renames }) } };
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
    const { schema, name } = definition.table;
    const reading = new ReadOnce(rows);
    // Tried again only while no row has been read: the rows can be read once.
    const rowCount = await this.withControlSchema(
      `staging batch of ${schema}.${name}`,
      () =>
        inTransaction<number | null | 'stale'>(this.pool, async (client) => {
          await client.query(TABLE_LOCK_SQL, [schema, name]);
          const fenced = await client.query(RAISE_FENCE_SQL, [batch.replicationId, schema, name, batch.epoch]);
          if (fenced.rowCount === 0) return STALE;
          const recorded = await client.query(RECORD_BATCH_SQL, [batch.batchId]);
          if (recorded.rowCount === 0) return APPLIED_BEFORE;
          switch (body.kind) {
            case 'seed':
              return applySeedPart(client, batch, body, reading);
            case 'changes':
              return { commit: true, result: await applyChanges(client, definition, reading) };
          }
        }),
      () => !reading.started,
    );
    if (rowCount === 'stale') return { applied: false, rowCount: 0, stale: true };
    if (rowCount === null) {
      await drain(reading);
      return { applied: false, rowCount: 0 };
    }
    return { applied: true, rowCount };
  }

  async hasApplied(batchId: string): Promise<boolean> {
    const result = await this.withControlSchema('staging batch log', () => this.pool.query(HAS_APPLIED_SQL, [batchId]));
    return (result.rowCount ?? 0) > 0;
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    const { schema, name } = batch.definition.table;
    const result = await this.withControlSchema('staging table fences', () =>
      this.pool.query<{ stale: boolean }>(FENCE_STALE_SQL, [batch.replicationId, schema, name, batch.epoch]),
    );
    return result.rows[0]?.stale === true;
  }

  async forgetAppliedBatches(appliedBefore: Date): Promise<number> {
    const result = await this.withControlSchema('staging batch log', () => this.pool.query(FORGET_APPLIED_BATCHES_SQL, [appliedBefore]));
    return result.rowCount ?? 0;
  }

  /**
   * Runs `work` once the control schema is known to exist. The knowledge is cached per connector (one per
   * staging database), so a database or schema dropped and created again, or a control table dropped, is
   * only found out by `work` failing on a missing relation or schema: then the cache is forgotten, the
   * schema created again and `work` run once more (when `canRetry` says it may). A missing object that
   * outlives that is an OwnObjectMissingError, which the pipeline retries: never a terminal failure.
   */
  private async withControlSchema<T>(what: string, work: () => Promise<T>, canRetry: () => boolean = () => true): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      await this.ensureControlSchema();
      try {
        return await work();
      } catch (error) {
        if (!isPostgresMissingObject(error)) throw error;
        this.controlSchema = undefined;
        if (attempt >= CONTROL_SCHEMA_ATTEMPTS || !canRetry()) throw new OwnObjectMissingError(what, { cause: error });
      }
    }
  }

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

/** The staging database's record of the tables the service created, read and written in `client`'s transaction. */
function ownershipLedger(client: PoolClient, table: TableRef): OwnershipLedger {
  const params = [table.schema, table.name];
  return {
    isRecorded: async () => ((await client.query(OWNED_TABLE_SQL, params)).rowCount ?? 0) > 0,
    isNamedByEarlierVersion: async () => (await client.query<{ named: boolean }>(NAMED_BY_EARLIER_VERSION_SQL, params)).rows[0]?.named === true,
    record: async () => {
      await client.query(RECORD_OWNED_TABLE_SQL, params);
    },
  };
}

/** Rows that can be read once, remembering whether their reading has begun. */
class ReadOnce implements CsvChunks {
  started = false;

  constructor(private readonly rows: CsvChunks) {}

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    this.started = true;
    return this.rows[Symbol.asyncIterator]();
  }
}

/**
 * Part 0 starts the replication's seed of the table; a later part of another seed of the same replication is
 * stale. A table no other replication writes is emptied at part 0 and its parts appended. A keyed table another
 * replication writes too (docs/PIPELINE.md, "Staging tables shared by replications") is never emptied: that would
 * take the other replication's rows, which nothing would bring back were this seed abandoned; the seed's rows are
 * merged by key instead. A keyless table has no key to merge by: it is emptied at part 0 and holds the newest
 * seed's rows; a part of a seed another replication started a seed after adds nothing, but is recorded.
 */
async function applySeedPart(
  client: PoolClient,
  batch: BatchDescriptor,
  seed: SeedBatch,
  rows: CsvChunks,
): Promise<{ commit: boolean; result: number | null }> {
  const { definition, replicationId } = batch;
  const { schema, name } = definition.table;
  const keyed = hasPrimaryKey(definition);
  const shared = (await client.query<{ shared: boolean }>(SHARED_TABLE_SQL, [replicationId, schema, name])).rows[0]?.shared === true;
  let truncated: boolean;
  if (seed.part === 0) {
    truncated = !keyed || !shared;
    await client.query(START_SEED_SQL, [replicationId, schema, name, seed.seedId, truncated]);
    if (truncated) await client.query(truncateSql(definition.table));
  } else {
    const current = await client.query<{ seed_id: string; truncated: boolean; superseded: boolean }>(CURRENT_SEED_SQL, [replicationId, schema, name]);
    const own = current.rows[0];
    if (own?.seed_id !== seed.seedId) return SKIP;
    if (!keyed && own.superseded) return APPLIED_BEFORE;
    truncated = own.truncated;
  }
  if (keyed && (shared || !truncated)) return { commit: true, result: await mergeSeedRows(client, definition, rows) };
  return { commit: true, result: await copyIn(client, copySeedRowsSql(definition), rows) };
}

/** Seed rows merged by key like inserts of a change batch: a row another replication wrote is replaced, not duplicated. */
async function mergeSeedRows(client: PoolClient, definition: TableDefinition, rows: CsvChunks): Promise<number> {
  await client.query(createChangesTableSql(definition));
  const rowCount = await copyIn(client, copyMergedSeedRowsSql(definition), rows);
  await client.query(ANALYZE_CHANGES_SQL);
  await client.query(deleteChangedKeysSql(definition));
  await client.query(insertChangedRowsSql(definition));
  return rowCount;
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
