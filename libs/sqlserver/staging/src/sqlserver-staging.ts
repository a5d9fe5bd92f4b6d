import type { TableDefinition, TableRef } from '@svc/contracts';
import { StagingProtocol, poolGateOptions, type DialPolicy, type PoolSizing, type BatchRowsKind, type ColumnTypeDrift, type CsvChunks, type StagingConnector, type StagingDialect, type TypedColumn } from '@svc/engines';
import { MssqlDatabase, columnPlan, mssqlPoolGate, csvRows, isSqlServerMissingObject, sqlServerConfig, stagingPlanOf, type TsqlDatabase, type TsqlSession } from '@svc/sqlserver/common';
import {
  APPLICATION_LOCK_SQL,
  APPLICATION_LOCK_SHARED_SQL,
  FENCE_EPOCH_SQL,
  BATCH_ROWS_TABLE,
  CONTROL_SCHEMA_SQL,
  CURRENT_SEED_SQL,
  DDL_LOCK_RESOURCE,
  DROP_BATCH_ROWS_SQL,
  FENCE_STALE_SQL,
  FORGET_APPLIED_BATCHES_SQL,
  forgetRecordsSql,
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
  /** What every connect of the pool may reach (dial-guard.ts): the worker's; DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
  /** Pool size; default 10. */
  maxConnections?: number;
  /** The worker's sizing of the pool (overrides maxConnections). */
  pool?: Partial<PoolSizing>;
  /** A statement (or a batch's bulk load) that has not answered by then fails, and is retried; default 1 hour. */
  requestTimeoutMs?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 10;
const DEFAULT_REQUEST_TIMEOUT_MS = 60 * 60_000;

/** A staging database on SQL Server. Throws ConnectionStringError for a string that is not a SQL Server connection string. */
export function createSqlServerStaging(connectionString: string, options: SqlServerStagingOptions): StagingConnector {
  const config = sqlServerConfig(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.dial && { dial: options.dial }),
  });
  const { max, gate } = poolGateOptions('Staging', options, DEFAULT_MAX_CONNECTIONS);
  const database = new MssqlDatabase({ ...config, requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, pool: { min: 0, max } }, mssqlPoolGate(max, gate));
  return new SqlServerStaging(database);
}

/** A staging column as TABLE_COLUMN_TYPES_SQL reads it, with its type as T-SQL spells it (`type`). */
interface StagingColumn extends TypedColumn {
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
function stagingTypeOf(row: Omit<StagingColumn, 'type'>): string {
  const column = { name: row.name, typeName: row.type_name, isClrType: row.is_clr_type === 1, maxLength: row.max_length, precision: row.precision, scale: row.scale };
  return columnPlan(column).sourceType;
}

/** The staging protocol (StagingProtocol of @svc/engines) on SQL Server. */
export class SqlServerStaging extends StagingProtocol<TsqlSession, StagingColumn> {
  constructor(database: TsqlDatabase) {
    super(sqlServerStagingDialect(database));
  }
}

/**
 * ALTER TABLE … ALTER COLUMN, keeping each column's nullability. SQL Server refuses to alter a column "used in a
 * PRIMARY KEY" constraint (ALTER TABLE (Transact-SQL), ALTER COLUMN): when a key column widens, the key is dropped
 * and added again under its own name around the alterations, in the same transaction (DDL is transactional).
 */
async function widenColumns(session: TsqlSession, table: TableRef, widen: readonly ColumnTypeDrift[], present: readonly StagingColumn[]): Promise<void> {
  const byName = new Map(present.map((row) => [row.name, row]));
  const keyColumns = present
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

/** The batch's rows bulk-loaded as text into the session's batch table, then checked against the columns' lengths. */
async function loadBatchRows(session: TsqlSession, definition: TableDefinition, rows: CsvChunks, kind: BatchRowsKind): Promise<number> {
  const withOperation = kind === 'changes';
  await session.query(createBatchRowsSql(definition, withOperation));
  const rowCount = await session.bulkLoad(BATCH_ROWS_TABLE, batchRowsColumns(definition, withOperation), csvRows(rows));
  const lengthGuard = valueLengthGuardSql(definition);
  if (lengthGuard !== null) await session.query(lengthGuard);
  return rowCount;
}

/** The batch's last statement on its rows: the batch table goes with it. */
async function insertBatchRows(session: TsqlSession, definition: TableDefinition, kind: BatchRowsKind): Promise<void> {
  await session.query(`${insertRowsSql(definition, kind === 'changes')};\n${DROP_BATCH_ROWS_SQL}`);
}

/** A table's schema and name as the statements' @schema and @name. */
const named = (table: TableRef): { schema: string; name: string } => ({ schema: table.schema, name: table.name });

/** The staging protocol's steps in T-SQL (staging-sql.ts): application locks, and batch rows bulk-loaded into a session temporary table. */
function sqlServerStagingDialect(database: TsqlDatabase): StagingDialect<TsqlSession, StagingColumn> {
  return {
    typeDialect: 'sqlserver',
    inTransaction: (work) => database.inTransaction(work),
    isMissingObject: isSqlServerMissingObject,
    lockDdl: async (session) => {
      await session.query(APPLICATION_LOCK_SQL, { resource: DDL_LOCK_RESOURCE });
    },
    createControlObjects: async (session) => {
      for (const statement of CONTROL_SCHEMA_SQL) await session.query(statement);
    },
    lockTable: async (session, table) => {
      await session.query(APPLICATION_LOCK_SQL, { resource: tableLockResource(table) });
    },
    lockTableShared: async (session, table) => {
      await session.query(APPLICATION_LOCK_SHARED_SQL, { resource: tableLockResource(table) });
    },
    fenceEpoch: async (session, replicationId, table) => {
      const [fence] = await session.query<{ epoch: number | string }>(FENCE_EPOCH_SQL, { replication: replicationId, ...named(table) });
      return fence === undefined ? null : Number(fence.epoch);
    },
    raiseFence: async (session, { replicationId, definition: { table }, epoch }) => {
      const [fence] = await session.query<{ stale: number }>(RAISE_FENCE_SQL, { replication: replicationId, ...named(table), epoch });
      return fence?.stale === 0;
    },
    isStale: async ({ replicationId, definition: { table }, epoch }) =>
      (await database.query<{ stale: number }>(FENCE_STALE_SQL, { replication: replicationId, ...named(table), epoch }))[0]?.stale === 1,
    recordBatch: async (session, batchId) => (await session.query<{ recorded: number }>(RECORD_BATCH_SQL, { batch_id: batchId }))[0]?.recorded === 1,
    hasApplied: async (batchId) => (await database.query(HAS_APPLIED_SQL, { batch_id: batchId })).length > 0,
    forgetAppliedBatches: async (appliedBefore) =>
      (await database.query<{ forgotten: number }>(`${FORGET_APPLIED_BATCHES_SQL};\nSELECT @@ROWCOUNT AS forgotten`, { before: appliedBefore }))[0]?.forgotten ?? 0,
    forgetReplication: async (replicationId, table) => {
      let forgotten = 0;
      for (const records of ['table_fences', 'table_seeds'] as const) {
        const parameters = { replication: replicationId, ...(table && named(table)) };
        forgotten += (await database.query<{ forgotten: number }>(forgetRecordsSql(records, table !== undefined), parameters))[0]?.forgotten ?? 0;
      }
      return forgotten;
    },
    isShared: async (session, replicationId, table) =>
      (await session.query<{ shared: number }>(SHARED_TABLE_SQL, { replication: replicationId, ...named(table) }))[0]?.shared === 1,
    startSeed: async (session, replicationId, table, seedId, truncated) => {
      await session.query(START_SEED_SQL, { replication: replicationId, ...named(table), seed_id: seedId, truncated });
    },
    currentSeed: async (session, replicationId, table) => {
      const [own] = await session.query<{ seed_id: string; truncated: number; superseded: number }>(CURRENT_SEED_SQL, { replication: replicationId, ...named(table) });
      return own && { seedId: own.seed_id, truncated: own.truncated === 1, superseded: own.superseded === 1 };
    },
    truncate: async (session, table) => {
      await session.query(truncateSql(table));
    },
    // Through the batch table too: the bulk load writes text, which the insert converts to the columns' types.
    appendRows: async (session, definition, rows) => {
      const rowCount = await loadBatchRows(session, definition, rows, 'seed');
      await insertBatchRows(session, definition, 'seed');
      return rowCount;
    },
    loadBatchRows,
    deleteBatchKeys: async (session, definition) => {
      await session.query(deleteChangedKeysSql(definition));
    },
    insertBatchRows,
    // The names first; the types (a catalog join) only for a table that exists.
    presentColumns: async (session, table) => {
      const names = (await session.query<{ name: string }>(TABLE_COLUMNS_SQL, named(table))).map((row) => row.name);
      const typed = async (): Promise<StagingColumn[]> =>
        (await session.query<Omit<StagingColumn, 'type'>>(TABLE_COLUMN_TYPES_SQL, named(table))).map((row) => ({ ...row, type: stagingTypeOf(row) }));
      return { names, typed };
    },
    wantedType: (column) => stagingPlanOf(column.name, column.sourceType).stagingType,
    createTable: async (session, definition) => {
      await session.query(createSchemaSql(definition.table));
      await session.query(createTableSql(definition));
    },
    widenColumns,
    addColumns: async (session, table, missing) => {
      await session.query(addColumnsSql(table, missing));
    },
    existingColumns: async (table) => {
      const rows = await database.query<{ name: string }>(TABLE_COLUMNS_SQL, named(table));
      return rows.length === 0 ? null : rows.map((row) => row.name);
    },
    isOwnedTable: async (session, table) => (await session.query(OWNED_TABLE_SQL, named(table))).length > 0,
    isNamedByEarlierVersion: async (session, table) => (await session.query(NAMED_BY_EARLIER_VERSION_SQL, named(table))).length > 0,
    recordOwnedTable: async (session, table) => {
      await session.query(RECORD_OWNED_TABLE_SQL, named(table));
    },
    close: () => database.close(),
  };
}
