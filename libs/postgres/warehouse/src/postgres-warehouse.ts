import { DEFAULT_REBUILD_THRESHOLD, WarehouseProtocol, type RebuildThreshold, clientBoundMs, poolGateOptions, type DialPolicy, type PoolSizing, columnChangeNotes, isClientQueryTimeout, type ColumnTypeDrift, type TypedColumn, type WarehouseConnection, type WarehouseConnector, type WarehouseDialect } from '@svc/engines';
import { POSTGRES_CHECKSUM_DIALECT, READ_ONLY_SNAPSHOT_SQL, createPool, inTransaction, isPostgresMissingObject, openChecksumSession, warehouseClientConfig } from '@svc/postgres/common';
import { checksumTable } from './checksum-table';
import type { Pool, PoolClient } from 'pg';
import { currentSeedId, deleteLoadedBatchesBefore, isBatchLoaded, isFencedOut, lockSchemaDdl, lockTable, ownershipLedger, raiseFence, recordLoadedBatch } from './control-tables';
import { addMissingColumns, createTable, followColumnTypes, setAside, tableColumns } from './ensure-table';
import { qualifiedName } from './identifiers';
import { completeSeed, loadChangeFiles, loadSeedFiles, mergeChanges, mergeChangesIntoShadow, startSeed, type LoadOptions } from './load-batch';
import { takeLoadStamp } from './load-stamp';
import { createControlTablesSql, createSchemaSql } from './table-ddl';
import { tableLayout, type TableLayout } from './table-layout';
import { targetTableName } from './table-names';

export interface PostgresWarehouseOptions {
  /** Bounds every statement of a session (Warehouse.TimeoutInMins). */
  statementTimeoutMs: number;
  /** Schemas whose tables keep their bare name (WarehouseContext). */
  bareNameSchemas: ReadonlySet<string>;
  /** RebuildIndexes: REINDEX a table after a seed has been merged into it. */
  rebuildIndexes?: boolean;
  /** When a change batch rebuilds a Type1 target instead of merging (DEFAULT_REBUILD_THRESHOLD). */
  rebuild?: RebuildThreshold;
  connectTimeoutMs?: number;
  /** What every connect of the pool may reach (dial-guard.ts): the worker's; DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
  maxConnections?: number;
  /** The worker's sizing of the pool (overrides maxConnections). */
  pool?: Partial<PoolSizing>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/**
 * Every session in UTC, whatever time zone the role's or the database's settings give new sessions: sent at startup, it
 * outranks them (load-time.integration-spec.ts). The warehouse's times are timestamptz, whose instants no zone changes;
 * the zone still decides how a time is written as text and how a text without an offset is read.
 */
export const WAREHOUSE_SESSION_OPTIONS = '-c TimeZone=UTC';
const DEFAULT_MAX_CONNECTIONS = 4;

/** A PostgreSQL warehouse: loads staged batches by COPY and merges them set-based (SCD Type1 / Type2). */
export function createPostgresWarehouse(connection: WarehouseConnection, options: PostgresWarehouseOptions): WarehouseConnector {
  if (!Number.isInteger(options.statementTimeoutMs) || options.statementTimeoutMs <= 0) {
    throw new RangeError('statementTimeoutMs must be a positive integer');
  }
  const { max, gate } = poolGateOptions('Warehouse', options, DEFAULT_MAX_CONNECTIONS);
  const pool = createPool({
    ...warehouseClientConfig(connection, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, options.dial),
    statement_timeout: options.statementTimeoutMs,
    // The client's own bound: a server that stops answering (a dropped connection) fails the statement too.
    query_timeout: clientBoundMs(options.statementTimeoutMs),
    application_name: 'svc-warehouse-loader',
    options: WAREHOUSE_SESSION_OPTIONS,
    max,
  }, gate);
  return new WarehouseProtocol(postgresDialect(pool, { rebuildIndexes: options.rebuildIndexes ?? false, rebuild: options.rebuild ?? DEFAULT_REBUILD_THRESHOLD }, options.bareNameSchemas));
}

/**
 * How the PostgreSQL warehouse does each step of WarehouseProtocol: advisory locks per schema and table, control
 * tables of its own in each warehouse schema, COPY FROM STDIN, and a shadow swapped in or merged.
 */
function postgresDialect(pool: Pool, loadOptions: LoadOptions, bareNameSchemas: ReadonlySet<string>): WarehouseDialect<PoolClient, TableLayout, Map<string, TypedColumn>, ColumnTypeDrift[]> {
  /**
   * The stamp of the load each session runs, taken after its table's lock (load-stamp.ts). A group of change batches
   * takes its tables' locks one after another: its members all stamp with the last, taken once every lock is held.
   */
  const stamps = new WeakMap<PoolClient, string>();
  const stampOf = (client: PoolClient): string => {
    const stamp = stamps.get(client);
    if (stamp === undefined) throw new Error("a load stamps its rows only once it holds its table's lock");
    return stamp;
  };
  const transaction = <T>(work: (client: PoolClient) => Promise<T>): Promise<T> =>
    inTransaction(pool, async (client) => {
      try {
        return await work(client);
      } finally {
        stamps.delete(client);
      }
    });
  /** Runs `work` on a pooled session, outside a transaction. */
  const withSession = async <T>(work: (client: PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      const result = await work(client);
      client.release();
      return result;
    } catch (error) {
      // A session whose statement got no answer is not handed out again (it would queue behind that statement).
      client.release(isClientQueryTimeout(error) ? true : undefined);
      throw error;
    }
  };
  const createSchemaObjects = async (client: PoolClient, schema: string): Promise<void> => {
    await lockSchemaDdl(client, schema);
    await client.query(createSchemaSql(schema));
    for (const statement of createControlTablesSql(schema)) await client.query(statement);
  };
  return {
    targetTableName: (table) => targetTableName(table, bareNameSchemas),
    layout: (definition, options) => tableLayout(definition, options, bareNameSchemas),
    inTransaction: transaction,
    isMissingObject: isPostgresMissingObject,
    // Control tables in their own short transaction, so that loads do not hold the schema's DDL lock.
    createControlObjects: (schema) => transaction((client) => createSchemaObjects(client, schema)),
    async lockTable(client, layout) {
      await lockTable(client, layout);
      stamps.set(client, await takeLoadStamp(client));
    },
    raiseFence: (client, layout, batch) => raiseFence(client, layout, batch.replicationId, batch.epoch),
    isLoaded: (client, layout, batchId) => isBatchLoaded(client, layout.schema, batchId),
    recordLoaded: (client, layout, batchId) => recordLoadedBatch(client, layout.schema, batchId, stampOf(client)),
    startSeed,
    currentSeedId,
    loadSeedFiles,
    completeSeed: (client, layout) => completeSeed(client, layout, loadOptions, stampOf(client)),
    loadChangeFiles,
    mergeChanges: (client, layout, rowCount) => mergeChanges(client, layout, stampOf(client), rowCount, loadOptions.rebuild),
    mergeChangesIntoShadow,
    async inEnsureTransaction(layout, controlObjects, work) {
      const ensured = await transaction(async (client) => {
        await createSchemaObjects(client, layout.schema);
        await lockTable(client, layout);
        return work(client);
      });
      controlObjects.markReady(layout.schema);
      return ensured;
    },
    tableColumns,
    ownershipLedger,
    followColumnTypes,
    setAside,
    createTable,
    addMissingColumns,
    // Widened in the transaction: only the notes are left.
    finishColumnTypes: async (_layout, widened) => columnChangeNotes('the warehouse', widened),
    async hasTable(table, options) {
      const result = await pool.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [qualifiedName(options.schema, targetTableName(table, bareNameSchemas))]);
      return result.rows[0]?.exists === true;
    },
    hasLoaded: (schema, batchId) => withSession((client) => isBatchLoaded(client, schema, batchId)),
    isStale: (layout, batch, controlObjects) =>
      controlObjects.run(layout.schema, 'warehouse table fences', () => withSession((client) => isFencedOut(client, layout, batch.replicationId, batch.epoch))),
    forgetLoadedBatches: (schema, loadedBefore) => withSession((client) => deleteLoadedBatchesBefore(client, schema, loadedBefore)),
    checksumDialect: POSTGRES_CHECKSUM_DIALECT,
    checksumTable,
    // LOCK takes no snapshot: the first query's is taken after any rebuild of the table in progress has committed
    // (TRUNCATE is not MVCC-safe: a snapshot taken before its commit would find the table empty).
    openChecksumSession: (layout) => openChecksumSession(pool, `${READ_ONLY_SNAPSHOT_SQL};\nLOCK TABLE ${layout.qualifiedTarget} IN ACCESS SHARE MODE`),
    close: () => pool.end(),
  };
}
