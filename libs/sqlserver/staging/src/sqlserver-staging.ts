import { hasPrimaryKey, type BatchDescriptor, type SeedBatch, type TableDefinition, type TableRef } from '@svc/contracts';
import {
  ColumnTypeChangeError,
  OwnObjectMissingError,
  claimTable,
  columnChangeNotes,
  planColumnTypes,
  suspectedRenames,
  type ApplyOutcome,
  type ColumnTypeDrift,
  type CsvChunks,
  type OwnershipLedger,
  type StagingConnector,
  type TableEnsured,
} from '@svc/engines';
import {
  MssqlDatabase,
  columnPlan,
  csvRows,
  isSqlServerMissingObject,
  sqlServerConfig,
  stagingPlanOf,
  type TransactionOutcome,
  type TsqlDatabase,
  type TsqlSession,
} from '@svc/sqlserver-common';
import {
  APPLICATION_LOCK_SQL,
  BATCH_ROWS_TABLE,
  CONTROL_SCHEMA_SQL,
  CURRENT_SEED_SQL,
  DDL_LOCK_RESOURCE,
  FENCE_STALE_SQL,
  FORGET_APPLIED_BATCHES_SQL,
  HAS_APPLIED_SQL,
  NAMED_BY_EARLIER_VERSION_SQL,
  OWNED_TABLE_SQL,
  PRIMARY_KEY_NAME_SQL,
  RAISE_FENCE_SQL,
  RECORD_OWNED_TABLE_SQL,
  RECORD_BATCH_SQL,
  SHARED_TABLE_SQL,
  START_SEED_SQL,
  TABLE_COLUMNS_SQL,
  TABLE_COLUMN_TYPES_SQL,
  addColumnsSql,
  addPrimaryKeySql,
  alterColumnTypeSql,
  batchRowsColumns,
  createBatchRowsSql,
  createSchemaSql,
  createTableSql,
  deleteChangedKeysSql,
  dropConstraintSql,
  insertRowsSql,
  tableLockResource,
  truncateSql,
  valueLengthGuardSql,
} from './staging-sql';

export interface SqlServerStagingOptions {
  /** Staging.EncryptDataInTransit */
  encrypt: boolean;
  /** Default 10 s. */
  connectTimeoutMs?: number;
  /** Pool size; default 10. */
  maxConnections?: number;
  /** A statement (or a batch's bulk load) that has not answered by then fails, and is retried; default 1 hour. */
  requestTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 10;
const DEFAULT_REQUEST_TIMEOUT_MS = 60 * 60_000;
/** Tries of one operation whose control schema turns out missing: the second runs after creating it again. */
const CONTROL_SCHEMA_ATTEMPTS = 2;

/** A staging database on SQL Server. Throws ConnectionStringError for a string that is not a SQL Server connection string. */
export function createSqlServerStaging(connectionString: string, options: SqlServerStagingOptions): StagingConnector {
  const config = sqlServerConfig(connectionString, { encrypt: options.encrypt, connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS });
  const database = new MssqlDatabase({
    ...config,
    requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    pool: { min: 0, max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS },
  });
  return new SqlServerStaging(database);
}

/** A staging column as TABLE_COLUMN_TYPES_SQL reads it. */
interface StagingColumnRow {
  name: string;
  type_name: string;
  is_clr_type: number;
  max_length: number;
  precision: number;
  scale: number;
  is_nullable: number;
  key_ordinal: number | null;
  /** NULL for a column that is not character-based. */
  collation_name: string | null;
}

/** The staging column's type as T-SQL spells it (`nvarchar(40)`, `decimal(12,2)`), the spelling stagingPlanOf uses. */
function stagingTypeOf(row: StagingColumnRow): string {
  const column = { name: row.name, typeName: row.type_name, isClrType: row.is_clr_type === 1, maxLength: row.max_length, precision: row.precision, scale: row.scale };
  return columnPlan(column).sourceType;
}

/**
 * ALTER TABLE … ALTER COLUMN, keeping each column's nullability. SQL Server refuses to alter a column "used in a
 * PRIMARY KEY" constraint (ALTER TABLE (Transact-SQL), ALTER COLUMN): when a key column widens, the key is dropped
 * and added again under its own name around the alterations, in the same transaction (DDL is transactional).
 */
async function widenColumns(session: TsqlSession, table: TableRef, existing: readonly StagingColumnRow[], widen: readonly ColumnTypeDrift[]): Promise<void> {
  const byName = new Map(existing.map((row) => [row.name, row]));
  const keyColumns = existing
    .filter((row) => row.key_ordinal !== null && row.key_ordinal > 0)
    .sort((a, b) => (a.key_ordinal ?? 0) - (b.key_ordinal ?? 0))
    .map((row) => row.name);
  const keyWidens = widen.some((drift) => keyColumns.includes(drift.name));
  const primaryKey = keyWidens ? (await session.query<{ name: string }>(PRIMARY_KEY_NAME_SQL, { schema: table.schema, name: table.name }))[0]?.name : undefined;
  if (primaryKey !== undefined) await session.query(dropConstraintSql(table, primaryKey));
  for (const drift of widen) {
    const row = byName.get(drift.name);
    await session.query(alterColumnTypeSql(table, drift.name, drift.to, row?.is_nullable === 1, row?.collation_name ?? null));
  }
  if (primaryKey !== undefined) await session.query(addPrimaryKeySql(table, primaryKey, keyColumns));
}

type ApplyResult = number | null | 'stale';

/** Nothing to do for this batch: a part of an abandoned seed. */
const SKIP = { commit: false, result: null } as const;
/** Applied before: nothing to apply, but the fence raised to the batch's epoch stays. */
const APPLIED_BEFORE = { commit: true, result: null } as const;
/** The batch's epoch is below the table's fence: it belongs to cancelled work and changes nothing. */
const STALE = { commit: false, result: 'stale' } as const;

/**
 * The staging protocol of libs/postgres/staging in T-SQL (staging-sql.ts): one application lock per table,
 * epoch fences, a batch log, seed records, and each batch applied set-based in one transaction from its rows
 * bulk-loaded as text into a session temporary table.
 */
export class SqlServerStaging implements StagingConnector {
  private controlSchema: Promise<void> | undefined;

  constructor(private readonly database: TsqlDatabase) {}

  /** An existing table is altered (and then written) only when the service created it: see claimTable. */
  async ensureTable(definition: TableDefinition): Promise<TableEnsured> {
    const { schema, name } = definition.table;
    return this.withControlSchema(`staging table ${schema}.${name}`, () => this.ensureTableOnce(definition));
  }

  private ensureTableOnce(definition: TableDefinition): Promise<TableEnsured> {
    const { schema, name } = definition.table;
    return this.database.inTransaction<TableEnsured>(async (session) => {
      await session.query(APPLICATION_LOCK_SQL, { resource: DDL_LOCK_RESOURCE });
      const present = (await session.query<{ name: string }>(TABLE_COLUMNS_SQL, { schema, name })).map((row) => row.name);
      await claimTable(ownershipLedger(session, definition.table), { role: 'Staging', displayName: `${schema}.${name}`, exists: present.length > 0 });
      if (present.length === 0) {
        await session.query(createSchemaSql(definition.table));
        await session.query(createTableSql(definition));
        return { commit: true, result: { created: true, addedColumns: [] } };
      }
      const typed = await session.query<StagingColumnRow>(TABLE_COLUMN_TYPES_SQL, { schema, name });
      const existing = typed.map((row) => ({ name: row.name, type: stagingTypeOf(row) }));
      const wanted = definition.columns.map((column) => ({ name: column.name, type: stagingPlanOf(column.name, column.sourceType).stagingType }));
      const types = planColumnTypes(existing, wanted, 'sqlserver');
      if (types.incompatible.length > 0) throw new ColumnTypeChangeError(definition.table, 'the staging table', types.incompatible);
      const presentNames = new Set(present);
      const missing = definition.columns.filter((column) => !presentNames.has(column.name));
      if (missing.length > 0 || types.widen.length > 0) {
        // The lock order: the table's lock before the table itself, as a batch takes them.
        await session.query(APPLICATION_LOCK_SQL, { resource: tableLockResource(definition.table) });
      }
      if (types.widen.length > 0) await widenColumns(session, definition.table, typed, types.widen);
      if (missing.length > 0) await session.query(addColumnsSql(definition.table, missing));
      const schemaChanges = columnChangeNotes('staging', types.widen);
      const renames = columnChangeNotes('staging', [], suspectedRenames(existing, wanted, 'sqlserver'));
      const result: TableEnsured = {
        created: false,
        addedColumns: missing.map((column) => column.name),
        ...(schemaChanges.length > 0 && { schemaChanges }),
        ...(renames.length > 0 && { suspectedRenames: renames }),
      };
      return { commit: true, result };
    });
  }

  async existingColumns(table: TableRef): Promise<string[] | null> {
    const rows = await this.database.query<{ name: string }>(TABLE_COLUMNS_SQL, { schema: table.schema, name: table.name });
    return rows.length === 0 ? null : rows.map((row) => row.name);
  }

  /**
   * `rows` is read exactly once: into the bulk load when the batch applies, else drained after the
   * transaction (an iteration that also feeds the batch files sees every byte either way). A stale batch's
   * rows are not read at all. The fence check runs under the table's lock, before anything else.
   */
  async applyBatch(batch: BatchDescriptor, rows: CsvChunks): Promise<ApplyOutcome> {
    const { body, definition } = batch;
    if (body.kind === 'changes' && !hasPrimaryKey(definition)) {
      throw new Error(`changes for ${definition.table.schema}.${definition.table.name}: a table without a primary key is never tracked`);
    }
    const { schema, name } = definition.table;
    const reading = new ReadOnce(rows);
    const outcome = await this.withControlSchema(
      `staging batch of ${schema}.${name}`,
      () =>
        this.database.inTransaction<ApplyResult>(async (session) => {
          await session.query(APPLICATION_LOCK_SQL, { resource: tableLockResource(definition.table) });
          const [fence] = await session.query<{ stale: number }>(RAISE_FENCE_SQL, { replication: batch.replicationId, schema, name, epoch: batch.epoch });
          if (fence?.stale !== 0) return STALE;
          const [record] = await session.query<{ recorded: number }>(RECORD_BATCH_SQL, { batch_id: batch.batchId });
          if (record?.recorded !== 1) return APPLIED_BEFORE;
          switch (body.kind) {
            case 'seed':
              return applySeedPart(session, batch, body, reading);
            case 'changes':
              return { commit: true, result: await applyRows(session, definition, reading, { withOperation: true, merge: true }) };
          }
        }),
      () => !reading.started,
    );
    if (outcome === 'stale') return { applied: false, rowCount: 0, stale: true };
    if (outcome === null) {
      for await (const chunk of reading) void chunk;
      return { applied: false, rowCount: 0 };
    }
    return { applied: true, rowCount: outcome };
  }

  async hasApplied(batchId: string): Promise<boolean> {
    const rows = await this.withControlSchema('staging batch log', () => this.database.query(HAS_APPLIED_SQL, { batch_id: batchId }));
    return rows.length > 0;
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    const { schema, name } = batch.definition.table;
    const rows = await this.withControlSchema('staging table fences', () =>
      this.database.query<{ stale: number }>(FENCE_STALE_SQL, { replication: batch.replicationId, schema, name, epoch: batch.epoch }),
    );
    return rows[0]?.stale === 1;
  }

  async forgetAppliedBatches(appliedBefore: Date): Promise<number> {
    const rows = await this.withControlSchema('staging batch log', () =>
      this.database.query<{ forgotten: number }>(`${FORGET_APPLIED_BATCHES_SQL};\nSELECT @@ROWCOUNT AS forgotten`, { before: appliedBefore }),
    );
    return rows[0]?.forgotten ?? 0;
  }

  async close(): Promise<void> {
    await this.database.close();
  }

  /**
   * Runs `work` once the control schema is known to exist; a missing control object (the database or schema
   * was recreated) forgets that knowledge, creates it again and runs `work` once more when it may (see the
   * PostgreSQL staging's twin). One that outlives that is an OwnObjectMissingError, retried by the pipeline.
   */
  private async withControlSchema<T>(what: string, work: () => Promise<T>, canRetry: () => boolean = () => true): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      await this.ensureControlSchema();
      try {
        return await work();
      } catch (error) {
        if (!isSqlServerMissingObject(error)) throw error;
        this.controlSchema = undefined;
        if (attempt >= CONTROL_SCHEMA_ATTEMPTS || !canRetry()) throw new OwnObjectMissingError(what, { cause: error });
      }
    }
  }

  private ensureControlSchema(): Promise<void> {
    this.controlSchema ??= this.database
      .inTransaction(async (session) => {
        await session.query(APPLICATION_LOCK_SQL, { resource: DDL_LOCK_RESOURCE });
        for (const statement of CONTROL_SCHEMA_SQL) await session.query(statement);
        return { commit: true, result: undefined };
      })
      .catch((error: unknown) => {
        this.controlSchema = undefined;
        throw error;
      });
    return this.controlSchema;
  }
}

/** The staging database's record of the tables the service created, read and written in `session`'s transaction. */
function ownershipLedger(session: TsqlSession, table: TableRef): OwnershipLedger {
  const params = { schema: table.schema, name: table.name };
  return {
    isRecorded: async () => (await session.query(OWNED_TABLE_SQL, params)).length > 0,
    isNamedByEarlierVersion: async () => (await session.query(NAMED_BY_EARLIER_VERSION_SQL, params)).length > 0,
    record: async () => {
      await session.query(RECORD_OWNED_TABLE_SQL, params);
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
 * stale. The same rules as the PostgreSQL staging (docs/PIPELINE.md, "Staging tables shared by replications"):
 * a table no other replication writes is emptied at part 0 and its parts appended; a keyed table another
 * replication writes too is never emptied, the seed's rows are merged by key; a keyless table holds the newest seed's rows.
 */
async function applySeedPart(session: TsqlSession, batch: BatchDescriptor, seed: SeedBatch, rows: CsvChunks): Promise<TransactionOutcome<number | null>> {
  const { definition, replicationId } = batch;
  const { schema, name } = definition.table;
  const keyed = hasPrimaryKey(definition);
  const [sharing] = await session.query<{ shared: number }>(SHARED_TABLE_SQL, { replication: replicationId, schema, name });
  const shared = sharing?.shared === 1;
  let truncated: boolean;
  if (seed.part === 0) {
    truncated = !keyed || !shared;
    await session.query(START_SEED_SQL, { replication: replicationId, schema, name, seed_id: seed.seedId, truncated });
    if (truncated) await session.query(truncateSql(definition.table));
  } else {
    const [own] = await session.query<{ seed_id: string; truncated: number; superseded: number }>(CURRENT_SEED_SQL, { replication: replicationId, schema, name });
    if (own?.seed_id !== seed.seedId) return SKIP;
    if (!keyed && own.superseded === 1) return APPLIED_BEFORE;
    truncated = own.truncated === 1;
  }
  const merge = keyed && (shared || !truncated);
  return { commit: true, result: await applyRows(session, definition, rows, { withOperation: false, merge }) };
}

/**
 * The batch's rows bulk-loaded as text, then set-based: when merging, every key the batch names goes from the
 * table first (deletes, and the old rows of updates); then the rows of inserts and updates come in.
 */
async function applyRows(session: TsqlSession, definition: TableDefinition, rows: CsvChunks, how: { withOperation: boolean; merge: boolean }): Promise<number> {
  await session.query(createBatchRowsSql(definition, how.withOperation));
  const rowCount = await session.bulkLoad(BATCH_ROWS_TABLE, batchRowsColumns(definition, how.withOperation), csvRows(rows));
  const lengthGuard = valueLengthGuardSql(definition);
  if (lengthGuard !== null) await session.query(lengthGuard);
  if (how.merge) await session.query(deleteChangedKeysSql(definition));
  await session.query(insertRowsSql(definition, how.withOperation));
  return rowCount;
}
