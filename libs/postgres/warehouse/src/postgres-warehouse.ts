import type { BatchDescriptor, StagedFiles, TableDefinition, TableRef } from '@svc/contracts';
import { OwnObjectMissingError, clientBoundMs, isClientQueryTimeout, type ApplyOutcome, type WarehouseConnection, type StagedFileReader, type WarehouseConnector, type WarehouseTableOptions } from '@svc/engines';
import { createPool, inTransaction, isPostgresMissingObject, warehouseClientConfig } from '@svc/postgres-common';
import type { Pool, PoolClient } from 'pg';
import { deleteLoadedBatchesBefore, isBatchLoaded, isFencedOut, lockSchemaDdl } from './control-tables';
import { ensureTableInTransaction, type EnsureOutcome } from './ensure-table';
import { qualifiedName } from './identifiers';
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
/** Tries of one operation whose control tables turn out missing: the second runs after creating them again. */
const CONTROL_TABLE_ATTEMPTS = 2;

/** A PostgreSQL warehouse: loads staged batches by COPY and merges them set-based (SCD Type1 / Type2). */
export function createPostgresWarehouse(connection: WarehouseConnection, options: PostgresWarehouseOptions): WarehouseConnector {
  if (!Number.isInteger(options.statementTimeoutMs) || options.statementTimeoutMs <= 0) {
    throw new RangeError('statementTimeoutMs must be a positive integer');
  }
  const pool = createPool({
    ...warehouseClientConfig(connection, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
    statement_timeout: options.statementTimeoutMs,
    // The client's own bound: a server that stops answering (a dropped connection) fails the statement too.
    query_timeout: clientBoundMs(options.statementTimeoutMs),
    application_name: 'svc-warehouse-loader',
    max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
  });
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
    // The staged files can be read again, so the whole load may run once more.
    return this.withControlTables(layout.schema, `warehouse load of ${layout.qualifiedTarget}`, () =>
      this.inTransaction((client) => loadBatchInTransaction(client, layout, batch, files, reader, { rebuildIndexes: this.rebuildIndexes })),
    );
  }

  async hasTable(table: TableRef, options: WarehouseTableOptions): Promise<boolean> {
    const result = await this.pool.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [qualifiedName(options.schema, targetTableName(table))]);
    return result.rows[0]?.exists === true;
  }

  hasLoaded(batchId: string, options: WarehouseTableOptions): Promise<boolean> {
    return this.withControlTables(options.schema, 'warehouse batch log', () => this.withSession((client) => isBatchLoaded(client, options.schema, batchId)));
  }

  isStale(batch: BatchDescriptor, options: WarehouseTableOptions): Promise<boolean> {
    const layout = tableLayout(batch.definition, options);
    return this.withControlTables(layout.schema, 'warehouse table fences', () =>
      this.withSession((client) => isFencedOut(client, layout, batch.replicationId, batch.epoch)),
    );
  }

  forgetLoadedBatches(loadedBefore: Date, options: WarehouseTableOptions): Promise<number> {
    return this.withControlTables(options.schema, 'warehouse batch log', () =>
      this.withSession((client) => deleteLoadedBatchesBefore(client, options.schema, loadedBefore)),
    );
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /**
   * Runs `work` once the schema's control tables are known to exist. That knowledge is cached per schema,
   * so a database or schema dropped and created again, or a control table dropped, is only found out by
   * `work` failing on a missing relation or schema: then the schema is forgotten, its control tables
   * created again and `work` run once more. A missing object that outlives that is an
   * OwnObjectMissingError, which the pipeline retries: never a terminal failure.
   */
  private async withControlTables<T>(schema: string, what: string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      await this.ensureControlTables(schema);
      try {
        return await work();
      } catch (error) {
        if (!isPostgresMissingObject(error)) throw error;
        this.readySchemas.delete(schema);
        if (attempt >= CONTROL_TABLE_ATTEMPTS) throw new OwnObjectMissingError(what, { cause: error });
      }
    }
  }

  /** Runs `work` on a pooled session, outside a transaction. */
  private async withSession<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      const result = await work(client);
      client.release();
      return result;
    } catch (error) {
      // A session whose statement got no answer is not handed out again (it would queue behind that statement).
      client.release(isClientQueryTimeout(error) ? true : undefined);
      throw error;
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

  private inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }
}
