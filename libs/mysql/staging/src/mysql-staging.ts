import { createHash } from 'node:crypto';
import type { TableRef } from '@svc/contracts';
import { EngineError, StagingProtocol, isRecord, poolGateOptions, type DialPolicy, type PoolSizing, type StagingConnector, type StagingDialect, type TypedColumn } from '@svc/engines';
import { mysqlConnectionOptions, qualifiedName } from '@svc/mysql/common';
import type { RowDataPacket } from 'mysql2';
import type { PoolConnection } from 'mysql2/promise';
import { insertRecords } from './batch-rows';
import { StagingServer, affectedRows, sessionRows, type MysqlSession } from './staging-server';
import {
  BATCH_TABLE,
  CONTROL_DATABASE,
  CONTROL_DATABASE_SQL,
  CONTROL_TABLES_SQL,
  CURRENT_SEED_SQL,
  DATABASE_EXISTS_SQL,
  DATABASE_TABLES_SQL,
  DDL_LOCK_NAME,
  DDL_LOCK_SQL,
  DDL_LOCK_TIMEOUT_SECONDS,
  DROP_BATCH_TABLE_SQL,
  FENCE_EPOCH_SQL,
  FENCE_STALE_SQL,
  HAS_APPLIED_SQL,
  OLD_BATCHES_SQL,
  OWNED_TABLE_SQL,
  RAISE_FENCE_SQL,
  RECORD_BATCH_SQL,
  RECORD_OWNED_TABLE_SQL,
  SHARED_TABLE_SQL,
  START_SEED_SQL,
  TABLE_COLUMNS_SQL,
  TABLE_LOCK_ROW_SQL,
  TABLE_LOCK_SHARED_SQL,
  TABLE_LOCK_SQL,
  addColumnsSql,
  createBatchTableSql,
  createDatabaseSql,
  createTableSql,
  deleteChangedKeysSql,
  emptyTableSql,
  forgetBatchesSql,
  forgetRecordSql,
  insertChangedRowsSql,
  replicationRecordsSql,
  widenColumnsSql,
  type ReplicationRecords,
} from './staging-sql';
import { logicalType, logicalTypeOfColumn } from './staging-types';

export interface MysqlStagingOptions {
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
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 10;
/** Keys a DELETE of housekeeping names at once. */
const KEYS_PER_DELETE = 1000;

/**
 * A staging server on MySQL or MariaDB (docs/ENGINES.md, "MySQL and MariaDB"): the staging table of `schema.name` is
 * table `name` of database `schema`, the control tables are in database `svc_staging`. A database the connection
 * string names is not used: every statement names its own. Throws ConnectionStringError for a string that is not
 * `mysql://` or `mariadb://`.
 */
export function createMysqlStaging(connectionString: string, options: MysqlStagingOptions): StagingConnector {
  const connection = mysqlConnectionOptions(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.dial && { dial: options.dial }),
  });
  const { max, gate } = poolGateOptions('Staging', options, DEFAULT_MAX_CONNECTIONS);
  return new StagingProtocol(mysqlStagingDialect(new StagingServer(connection, max, gate)));
}

/** A staging column as the catalog describes it; `type` is its logical type (staging-types.ts). */
export interface MysqlStagingColumn extends TypedColumn {
  key: boolean;
  nullable: boolean;
}

/** The named DDL lock was not granted within its wait: retried. */
export class DdlLockTimeoutError extends EngineError {
  readonly kind = 'transient';
  override readonly serviceWorded = true;

  constructor() {
    super(`staging: another staging session held the DDL lock (GET_LOCK '${DDL_LOCK_NAME}') for ${DDL_LOCK_TIMEOUT_SECONDS} s; retried`);
    this.name = 'DdlLockTimeoutError';
  }
}

/**
 * MySQL's words for an object the service creates that is gone: 1146 no such table, 1049 unknown database, 1051
 * unknown table ("Server Error Message Reference": ER_NO_SUCH_TABLE, ER_BAD_DB_ERROR, ER_BAD_TABLE_ERROR).
 */
const MISSING_OBJECT_ERRORS: ReadonlySet<number> = new Set([1146, 1049, 1051]);

export function isMysqlMissingObject(error: unknown): boolean {
  return isRecord(error) && typeof error['errno'] === 'number' && typeof error['sqlState'] === 'string' && MISSING_OBJECT_ERRORS.has(error['errno']);
}

/** The batch log's key: ids name a schema and a table, longer than an index key may be. */
const batchKey = (batchId: string): Buffer => createHash('sha256').update(batchId, 'utf8').digest();

/** A table's schema and name as the statements' parameters. */
const named = (table: TableRef): [string, string] => [table.schema, table.name];

/** A date as DATETIME(6) text in UTC, as the control tables keep times. */
const utcText = (date: Date): string => date.toISOString().replace('T', ' ').replace('Z', '');

/** The rows of TABLE_COLUMNS_SQL that belong to exactly `table` (information_schema compares names without case). */
async function tableColumns(rows: Promise<RowDataPacket[]>, table: TableRef): Promise<MysqlStagingColumn[]> {
  return (await rows)
    .filter((row) => row['table_schema'] === table.schema && row['table_name'] === table.name)
    .map((row) => ({
      name: String(row['name']),
      type: logicalTypeOfColumn(String(row['column_type']), String(row['comment'] ?? '')),
      key: row['column_key'] === 'PRI',
      nullable: row['is_nullable'] === 'YES',
    }));
}

/** Whether a database exists, by its exact name. */
async function databaseExists(connection: PoolConnection, name: string): Promise<boolean> {
  return (await sessionRows(connection, DATABASE_EXISTS_SQL, [name])).some((row) => row['name'] === name);
}

/** The staging protocol's steps in MySQL (staging-sql.ts): a named DDL lock, row locks for tables, and rows loaded by multi-row INSERTs. */
function mysqlStagingDialect(server: StagingServer): StagingDialect<MysqlSession, MysqlStagingColumn> {
  /** Deletes what `records` of a replication the caller may (SKIP LOCKED), in one transaction; how many. */
  const forgetRecords = (records: ReplicationRecords, replicationId: string, table?: TableRef): Promise<number> =>
    server.inTransaction(async ({ connection }) => {
      const keys = await sessionRows(connection, replicationRecordsSql(records, table !== undefined), table === undefined ? [replicationId] : [replicationId, ...named(table)]);
      let forgotten = 0;
      for (const key of keys) forgotten += await affectedRows(connection, forgetRecordSql(records), [String(key['replication_id']), String(key['schema_name']), String(key['table_name'])]);
      return { commit: true, result: forgotten };
    });

  return {
    typeDialect: 'mysql',
    inTransaction: (work) => server.inTransaction(work),
    isMissingObject: isMysqlMissingObject,
    lockDdl: async (session) => {
      if (session.holdsDdlLock) return;
      const [row] = await sessionRows(session.connection, DDL_LOCK_SQL, [DDL_LOCK_NAME]);
      if (row?.['granted'] === null || row?.['granted'] === undefined) throw new Error(`staging: GET_LOCK('${DDL_LOCK_NAME}') failed`);
      if (Number(row['granted']) !== 1) throw new DdlLockTimeoutError();
      session.holdsDdlLock = true;
    },
    createControlObjects: async ({ connection }) => {
      if (!(await databaseExists(connection, CONTROL_DATABASE))) await connection.query(CONTROL_DATABASE_SQL);
      const present = new Set((await sessionRows(connection, DATABASE_TABLES_SQL, [CONTROL_DATABASE])).map((row) => String(row['name'])));
      for (const [name, statement] of Object.entries(CONTROL_TABLES_SQL)) {
        if (!present.has(name)) await connection.query(statement);
      }
    },
    lockTable: async ({ connection }, table) => {
      await connection.query(TABLE_LOCK_SQL, named(table));
    },
    lockTableShared: async ({ connection }, table) => {
      await connection.query(TABLE_LOCK_ROW_SQL, named(table));
      await connection.query(TABLE_LOCK_SHARED_SQL, named(table));
    },
    fenceEpoch: async ({ connection }, replicationId, table) => {
      const [fence] = await sessionRows(connection, FENCE_EPOCH_SQL, [replicationId, ...named(table)]);
      return fence === undefined ? null : Number(fence['epoch']);
    },
    raiseFence: async ({ connection }, { replicationId, definition: { table }, epoch }) => {
      await connection.query(RAISE_FENCE_SQL, [replicationId, ...named(table), epoch]);
      const [fence] = await sessionRows(connection, FENCE_EPOCH_SQL, [replicationId, ...named(table)]);
      return fence !== undefined && Number(fence['epoch']) <= epoch;
    },
    isStale: async ({ replicationId, definition: { table }, epoch }) => {
      const [fence] = await server.rows(FENCE_STALE_SQL, [epoch, replicationId, ...named(table)]);
      return fence !== undefined && Number(fence['stale']) === 1;
    },
    recordBatch: async ({ connection }, batchId) => (await affectedRows(connection, RECORD_BATCH_SQL, [batchKey(batchId), batchId])) > 0,
    hasApplied: async (batchId) => (await server.rows(HAS_APPLIED_SQL, [batchKey(batchId)])).length > 0,
    forgetAppliedBatches: (appliedBefore) =>
      server.inTransaction(async ({ connection }) => {
        const keys = (await sessionRows(connection, OLD_BATCHES_SQL, [utcText(appliedBefore)])).map((row) => row['batch_key'] as Buffer);
        let forgotten = 0;
        for (let at = 0; at < keys.length; at += KEYS_PER_DELETE) {
          const chunk = keys.slice(at, at + KEYS_PER_DELETE);
          forgotten += await affectedRows(connection, forgetBatchesSql(chunk.length), chunk);
        }
        return { commit: true, result: forgotten };
      }),
    forgetReplication: async (replicationId, table) => {
      let forgotten = 0;
      for (const records of ['table_fences', 'table_seeds'] as const) forgotten += await forgetRecords(records, replicationId, table);
      return forgotten;
    },
    isShared: async ({ connection }, replicationId, table) => {
      const [row] = await sessionRows(connection, SHARED_TABLE_SQL, [...named(table), replicationId]);
      return Number(row?.['shared']) === 1;
    },
    startSeed: async ({ connection }, replicationId, table, seedId, truncated) => {
      await connection.query(START_SEED_SQL, [replicationId, ...named(table), seedId, truncated ? 1 : 0]);
    },
    currentSeed: async ({ connection }, replicationId, table) => {
      const [own] = await sessionRows(connection, CURRENT_SEED_SQL, [replicationId, ...named(table)]);
      return own && { seedId: String(own['seed_id']), truncated: Number(own['truncated']) === 1, superseded: Number(own['superseded']) === 1 };
    },
    truncate: async ({ connection }, table) => {
      await connection.query(emptyTableSql(table));
    },
    appendRows: ({ connection }, definition, rows) => insertRecords(connection, qualifiedName(definition.table), definition, rows, false),
    loadBatchRows: async ({ connection, collation }, definition, rows, kind) => {
      // Built first: a key InnoDB cannot index is refused before anything runs.
      const create = createBatchTableSql(definition, collation);
      await connection.query(DROP_BATCH_TABLE_SQL);
      await connection.query(create);
      return insertRecords(connection, BATCH_TABLE, definition, rows, kind === 'changes');
    },
    deleteBatchKeys: async ({ connection }, definition) => {
      await connection.query(deleteChangedKeysSql(definition));
    },
    // Seed rows land in the batch table with the operation's default, an insert: one statement serves both. The batch table goes with it.
    insertBatchRows: async ({ connection }, definition) => {
      await connection.query(insertChangedRowsSql(definition));
      await connection.query(DROP_BATCH_TABLE_SQL);
    },
    presentColumns: async ({ connection }, table) => {
      const typed = await tableColumns(sessionRows(connection, TABLE_COLUMNS_SQL, named(table)), table);
      return { names: typed.map((column) => column.name), typed: () => Promise.resolve(typed) };
    },
    wantedType: (column) => logicalType(column.portableType),
    createTable: async ({ connection, collation }, definition) => {
      const create = createTableSql(definition, collation);
      if (!(await databaseExists(connection, definition.table.schema))) await connection.query(createDatabaseSql(definition.table.schema, collation));
      await connection.query(create);
    },
    widenColumns: async ({ connection, collation }, table, widen, present) => {
      const byName = new Map(present.map((column) => [column.name, column]));
      const columns = widen.map((drift) => {
        const column = byName.get(drift.name);
        return { name: drift.name, to: drift.to, key: column?.key === true, nullable: column?.nullable !== false };
      });
      await connection.query(widenColumnsSql(table, columns, collation));
    },
    addColumns: async ({ connection, collation }, table, missing) => {
      await connection.query(addColumnsSql(table, missing, collation));
    },
    existingColumns: async (table) => {
      const columns = await tableColumns(server.rows(TABLE_COLUMNS_SQL, named(table)), table);
      return columns.length === 0 ? null : columns.map((column) => column.name);
    },
    isOwnedTable: async ({ connection }, table) => (await sessionRows(connection, OWNED_TABLE_SQL, named(table))).length > 0,
    // No version of this engine kept its tables before owned_tables: a table it does not record is not its own.
    isNamedByEarlierVersion: () => Promise.resolve(false),
    recordOwnedTable: async ({ connection }, table) => {
      await connection.query(RECORD_OWNED_TABLE_SQL, named(table));
    },
    close: () => server.close(),
  };
}
