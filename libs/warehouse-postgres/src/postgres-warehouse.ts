import type { BatchDescriptor, StagedFiles, TableDefinition, TableRef } from '@svc/contracts';
import { warehouseClientConfig, type WarehouseConnection } from '@svc/connectors';
import type { ApplyOutcome, StagedFileReader, WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { Pool, type PoolClient } from 'pg';
import { deleteLoadedBatchesBefore, isBatchLoaded, isFencedOut, lockSchemaDdl } from './control-tables';
import { ensureTableInTransaction, type EnsureOutcome } from './ensure-table';
import { loadBatchInTransaction } from './load-batch';
import { createControlTablesSql, createSchemaSql } from './table-ddl';
import { tableLayout } from './table-layout';
import { targetTableName } from './table-names';

export interface PostgresWarehouseOptions {
  /** Bounds every statement of a session (Warehouse.TimeoutInMins). */
  statementTimeoutMs: number;
  /** RebuildIndexes: REINDEX a table after a seed has been merged into it. */
  rebuildIndexes?: boolean;
  connectTimeoutMs?: number;
  maxConnections?: number;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 4;

/** A PostgreSQL warehouse: loads staged batches by COPY and merges them set-based (SCD Type1 / Type2). */
export function createPostgresWarehouse(connection: WarehouseConnection, options: PostgresWarehouseOptions): WarehouseConnector {
  if (!Number.isInteger(options.statementTimeoutMs) || options.statementTimeoutMs <= 0) {
    throw new RangeError('statementTimeoutMs must be a positive integer');
  }
  const pool = new Pool({
    ...warehouseClientConfig(connection, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
    statement_timeout: options.statementTimeoutMs,
    application_name: 'svc-warehouse-loader',
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
  });
  // An idle connection the server drops must not become an unhandled 'error' event; the pool discards it.
  pool.on('error', () => undefined);
  return new PostgresWarehouse(pool, options.rebuildIndexes ?? false);
}

class PostgresWarehouse implements WarehouseConnector {
  /** Schemas whose control tables are known to exist. */
  private readonly readySchemas = new Set<string>();

  constructor(
    private readonly pool: Pool,
    private readonly rebuildIndexes: boolean,
  ) {}

  targetTableName(table: TableRef): string {
    return targetTableName(table);
  }

  async ensureTable(definition: TableDefinition, options: WarehouseTableOptions): Promise<EnsureOutcome> {
    const layout = tableLayout(definition, options);
    const outcome = await this.inTransaction(async (client) => {
      await this.createSchemaObjects(client, layout.schema);
      return ensureTableInTransaction(client, layout);
    });
    this.readySchemas.add(layout.schema);
    return outcome;
  }

  async loadBatch(batch: BatchDescriptor, files: StagedFiles, reader: StagedFileReader, options: WarehouseTableOptions): Promise<ApplyOutcome> {
    const layout = tableLayout(batch.definition, options);
    await this.ensureControlTables(layout.schema);
    return this.inTransaction((client) => loadBatchInTransaction(client, layout, batch, files, reader, { rebuildIndexes: this.rebuildIndexes }));
  }

  hasLoaded(batchId: string, options: WarehouseTableOptions): Promise<boolean> {
    return this.withControlTables(options.schema, (client) => isBatchLoaded(client, options.schema, batchId));
  }

  isStale(batch: BatchDescriptor, options: WarehouseTableOptions): Promise<boolean> {
    const layout = tableLayout(batch.definition, options);
    return this.withControlTables(layout.schema, (client) => isFencedOut(client, layout, batch.replicationId, batch.epoch));
  }

  forgetLoadedBatches(loadedBefore: Date, options: WarehouseTableOptions): Promise<number> {
    return this.withControlTables(options.schema, (client) => deleteLoadedBatchesBefore(client, options.schema, loadedBefore));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** Runs `work` on a pooled session, outside a transaction, once the schema's control tables exist. */
  private async withControlTables<T>(schema: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.ensureControlTables(schema);
    const client = await this.pool.connect();
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }

  /** Control tables in their own short transaction, so that loads do not hold the schema's DDL lock. */
  private async ensureControlTables(schema: string): Promise<void> {
    if (this.readySchemas.has(schema)) return;
    await this.inTransaction((client) => this.createSchemaObjects(client, schema));
    this.readySchemas.add(schema);
  }

  private async createSchemaObjects(client: PoolClient, schema: string): Promise<void> {
    await lockSchemaDdl(client, schema);
    await client.query(createSchemaSql(schema));
    for (const statement of createControlTablesSql(schema)) await client.query(statement);
  }

  private async inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      // A session that cannot even roll back (e.g. broken mid-COPY) is discarded rather than reused.
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      client.release(!rolledBack);
      throw error;
    }
  }
}
