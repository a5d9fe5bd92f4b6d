import type { BatchDescriptor, StagedFiles, TableDefinition, TableRef } from '@svc/contracts';
import {
  type DialPolicy,
  ColumnTypeChangeError,
  SystemColumns,
  WarehouseProtocol,
  clientBoundMs,
  columnChangeNotes,
  isClientQueryTimeout,
  isLatticeType,
  isVaryingText,
  planColumnTypes,
  setAsideName,
  sqlStateOf,
  suspectedRenames,
  type ChecksumQuery,
  type ChecksumTable,
  type ColumnNames,
  type ColumnTypeDrift,
  type ControlObjectsGuard,
  type FollowedTypes,
  type PairTable,
  type StagedFileReader,
  type TypedColumn,
  type WarehouseConnection,
  type WarehouseConnector,
  type WarehouseDialect,
  type WarehouseOwnershipLedger,
  type WarehouseTableOptions,
  poolGateOptions,
  withPoolConnections,
  type PoolSizing,
} from '@svc/engines';
import type { Pool, PoolClient, QueryConfig } from 'pg';
import { CopyFailedError, LOAD_ERRORS_SQL, loadErrorDetail, loadErrorFilePattern, type LoadErrorRow, type StagedFileLoader } from './file-loaders';
import { catalogName, fitIdentifier, qualifiedName, quoteIdent, targetTableName } from './redshift-identifiers';
import { createRedshiftPool, redshiftClientConfig } from './redshift-client';
import { columnSourceNameSql, tableSourceNameSql } from './redshift-column-names';
import { missingColumns, redshiftLayout, type LayoutColumn, type RedshiftLayout } from './redshift-layout';
import { RedshiftOnPostgresClient } from './redshift-on-postgres';
import { lostCreationRace } from './redshift-conflicts';
import { advanceClockSql, loadStampSql, stampLiteral } from './redshift-load-stamp';
import { REDSHIFT_CHECKSUM_DIALECT, openRedshiftChecksumSession, redshiftChecksumTable } from './redshift-checksums';
import {
  ControlTables,
  LOAD_TABLE,
  TABLE_COLUMNS_SQL,
  TABLE_COLUMN_TYPES_SQL,
  addColumnSql,
  alterVarcharLengthSql,
  batchLoadedSql,
  changeFileColumns,
  createControlTablesSql,
  createLoadTableSql,
  createSchemaSql,
  createShadowSql,
  createTargetSql,
  emptyShadowSql,
  forgetBatchesSql,
  lockSchemaDdlSql,
  mergeChangesIntoShadowSql,
  mergeChangesSql,
  mergeSeedSql,
  namedByEarlierVersionSql,
  ownedTableSql,
  recordOwnedTableSql,
  recordBatchSql,
  seedFileColumns,
  TABLE_DEPENDENTS_SQL,
  type SqlDialect,
} from './redshift-sql';
import {
  TABLE_CONTROLS_SQL,
  adoptSharedControlSql,
  createTableControlSql,
  currentSeedSql,
  fenceEpochSql,
  forgetTableBatchesSql,
  insertFenceSql,
  lockTableControlSql,
  raiseFenceSql,
  recordSeedStartSql,
  recordTableBatchSql,
  tableBatchLoadedSql,
  tableControlName,
} from './redshift-table-control';

export interface RedshiftWarehouseOptions {
  /** Warehouse.TimeoutInMins, as milliseconds: bounds every statement. */
  statementTimeoutMs: number;
  /** Schemas whose tables keep their bare name (WarehouseContext). */
  bareNameSchemas: ReadonlySet<string>;
  /**
   * How long a load waits for the lock of its table (held by the table's load before it), apart from statementTimeoutMs,
   * which Redshift counts lock waits against; default LOCK_WAIT_STATEMENTS statement bounds.
   */
  lockWaitMs?: number;
  /** How the staged files reach the warehouse: COPY from S3 on Redshift (s3CopyLoader). */
  fileLoader: StagedFileLoader;
  /**
   * 'postgres' and `tls: false` only for the suite's Redshift-dialect pair on a local PostgreSQL, whose sessions then
   * fold names and compare text as Redshift does (redshift-on-postgres.ts).
   */
  dialect?: SqlDialect;
  tls?: boolean;
  connectTimeoutMs?: number;
  /** What every connect of the pool may reach (dial-guard.ts): the worker's; DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
  maxConnections?: number;
  /** The worker's sizing of the pool (overrides maxConnections). */
  pool?: Partial<PoolSizing>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** A load holds its table's lock for its statements: schema checks, COPY and up to four merge statements, each bounded. */
const LOCK_WAIT_STATEMENTS = 8;
/** Housekeeping waits this long for a table's lock, then leaves its rows to the next round. */
const HOUSEKEEPING_LOCK_WAIT_MS = 5_000;
const DEFAULT_MAX_CONNECTIONS = 4;
/** SQLSTATEs of a missing schema or table: the warehouse database or schema was recreated. */
const MISSING_OBJECT_STATES = new Set(['3F000', '42P01']);
const CREATION_RACE_ATTEMPTS = 5;

export function createRedshiftWarehouse(connection: WarehouseConnection, options: RedshiftWarehouseOptions): WarehouseConnector {
  const config = redshiftClientConfig(connection, {
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.tls !== undefined && { tls: options.tls }),
    ...(options.dial && { dial: options.dial }),
  });
  const double = options.dialect === 'postgres' ? { Client: RedshiftOnPostgresClient } : {};
  const { max, gate } = poolGateOptions('Warehouse', options, DEFAULT_MAX_CONNECTIONS);
  const pool = createRedshiftPool({ ...config, ...double, max }, options.statementTimeoutMs, gate);
  const bounds = { statementTimeoutMs: options.statementTimeoutMs, lockWaitMs: options.lockWaitMs ?? options.statementTimeoutMs * LOCK_WAIT_STATEMENTS };
  return redshiftWarehouseOnPool(pool, options.fileLoader, options.dialect ?? 'redshift', options.bareNameSchemas, bounds);
}

/** The server-side bounds of a connector's statements, and of its waits for a table's lock. */
export interface RedshiftBounds {
  statementTimeoutMs: number;
  lockWaitMs: number;
}

/** The connector on a pool of its own making; tests hand in a double of Redshift's sessions. */
export function redshiftWarehouseOnPool(pool: Pool, fileLoader: StagedFileLoader, dialect: SqlDialect, bareNameSchemas: ReadonlySet<string>, bounds: RedshiftBounds = { statementTimeoutMs: 60_000, lockWaitMs: 480_000 }): WarehouseConnector {
  if (!Number.isInteger(bounds.lockWaitMs) || bounds.lockWaitMs <= 0) throw new RangeError('lockWaitMs must be a positive integer');
  return new RedshiftWarehouse(pool, fileLoader, dialect, bareNameSchemas, bounds);
}

/** A VARCHAR column to lengthen once the ensuring transaction has committed. */
export interface Lengthening {
  qualifiedTable: string;
  drift: ColumnTypeDrift;
}

const IN_PLACE_ONLY_VARCHAR =
  'Redshift changes a column type in place only to lengthen a VARCHAR outside the primary key (ALTER TABLE … ALTER COLUMN … TYPE); ' +
  'a wider number or time type needs the table rebuilt (docs/REDSHIFT.md, "Column type changes")';

/**
 * A Redshift warehouse (docs/REDSHIFT.md): WarehouseProtocol with the Redshift dialect. Each batch in one transaction
 * that first locks its table's control table (redshift-table-control.ts), then fences, logs, COPYs and merges
 * set-based in the SQL of redshift-sql.ts.
 */
export class RedshiftWarehouse extends WarehouseProtocol<PoolClient, RedshiftLayout, Set<string>, Lengthening[]> {
  constructor(pool: Pool, loader: StagedFileLoader, dialect: SqlDialect, bareNameSchemas: ReadonlySet<string>, bounds: RedshiftBounds) {
    super(new RedshiftWarehouseDialect(pool, loader, dialect, bareNameSchemas, bounds));
  }
}

/** How Redshift does each step of WarehouseProtocol. */
class RedshiftWarehouseDialect implements WarehouseDialect<PoolClient, RedshiftLayout, Set<string>, Lengthening[]> {
  /** Sessions whose statement_timeout is the lock wait's: set back after a rollback, in case the server keeps it. */
  private readonly waitingForLock = new WeakSet<PoolClient>();
  /**
   * The stamps (SQL literals) of the loads each session runs, by target: one per table, taken after its lock
   * (redshift-load-stamp.ts); a group of change batches loads several tables in one transaction.
   */
  private readonly stamps = new WeakMap<PoolClient, Map<string, string>>();

  constructor(
    private readonly pool: Pool,
    private readonly loader: StagedFileLoader,
    private readonly dialect: SqlDialect,
    private readonly bareNameSchemas: ReadonlySet<string>,
    private readonly bounds: RedshiftBounds,
  ) {}

  targetTableName(table: TableRef): string {
    return targetTableName(table, this.bareNameSchemas);
  }

  layout(definition: TableDefinition, options: WarehouseTableOptions): RedshiftLayout {
    return redshiftLayout(definition, options, this.bareNameSchemas);
  }

  isMissingObject(error: unknown): boolean {
    return MISSING_OBJECT_STATES.has(String((error as { code?: unknown }).code));
  }

  /**
   * Columns to lengthen are lengthened after the ensuring transaction commits, one autocommitted statement each:
   * Redshift runs ALTER TABLE … ALTER COLUMN … TYPE only outside a transaction block. A failure there leaves the
   * rest committed; the retry finds the same columns still short and lengthens them.
   */
  async inEnsureTransaction<T>(layout: RedshiftLayout, controlObjects: ControlObjectsGuard, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return controlObjects.run(layout.schema, `warehouse table ${layout.qualifiedTarget}`, async () => {
      // Looked up before the transaction: its first statement must be a LOCK, so that what it reads is not older than the lock.
      const controlExists = (await existingColumns(this.pool, layout.schema, tableControlName(layout.target))) !== null;
      return this.inTransaction(async (client) => {
        // Lock order: the table's control table (a load of the table may hold it), then the schema's DDL lock.
        if (controlExists) await this.lockWithin(client, lockTableControlSql(layout), this.bounds.lockWaitMs);
        await client.query(lockSchemaDdlSql(layout.schema));
        await this.ensureTableControl(client, layout);
        return work(client);
      });
    });
  }

  /**
   * Columns to lengthen are lengthened after the ensuring transaction commits, one autocommitted statement each:
   * Redshift runs ALTER TABLE … ALTER COLUMN … TYPE only outside a transaction block. A failure there leaves the
   * rest committed; the retry finds the same columns still short and lengthens them.
   */
  async finishColumnTypes(layout: RedshiftLayout, lengthen: Lengthening[]): Promise<string[]> {
    for (const { qualifiedTable, drift } of lengthen) await this.pool.query(alterVarcharLengthSql(qualifiedTable, drift.name, drift.to));
    const widened = lengthen.filter((step) => step.qualifiedTable === layout.qualifiedTarget).map((step) => step.drift);
    return columnChangeNotes('the warehouse', widened);
  }

  tableColumns(client: PoolClient, layout: RedshiftLayout, table: PairTable): Promise<Set<string> | null> {
    return existingColumns(client, layout.schema, table === 'target' ? layout.target : layout.shadow);
  }

  /**
   * The schema's record of the tables the service created, in `client`'s transaction under the schema's lock: names as
   * Redshift's catalog holds them (catalogName), so "Orders" and "orders" are one record as they are one table.
   */
  ownershipLedger(client: PoolClient, layout: RedshiftLayout): WarehouseOwnershipLedger {
    return {
      isRecorded: async (table) => ((await client.query(ownedTableSql(layout.schema), [catalogName(table)])).rowCount ?? 0) > 0,
      isTargetNamedByEarlierVersion: async () => ((await client.query(namedByEarlierVersionSql(layout.schema), [layout.target])).rowCount ?? 0) > 0,
      record: async (table) => {
        for (const statement of recordOwnedTableSql(layout.schema, this.dialect)) await client.query(statement, [catalogName(table)]);
      },
    };
  }

  /** Plans the VARCHAR lengthenings of target and shadow (made after the transaction, finishColumnTypes); any other type change fails the table first. */
  async followColumnTypes(client: PoolClient, layout: RedshiftLayout, target: Set<string> | null, shadow: Set<string> | null): Promise<FollowedTypes<Lengthening[]>> {
    if (target === null) return { renames: [], pending: [] };
    const lengthen: Lengthening[] = [];
    const targetTyped = await typedColumns(client, layout.schema, layout.target, layout);
    lengthen.push(...this.lengthening(layout, layout.qualifiedTarget, targetTyped));
    if (shadow !== null) lengthen.push(...this.lengthening(layout, layout.qualifiedShadow, await typedColumns(client, layout.schema, layout.shadow, layout)));
    const system = new Set<string>(Object.values(SystemColumns));
    const renames = columnChangeNotes('the warehouse', [], suspectedRenames(targetTyped.filter((column) => !system.has(column.name)), this.wantedColumns(layout)));
    return { renames, pending: lengthen };
  }

  setAside(client: PoolClient, layout: RedshiftLayout, target: Set<string>): Promise<string> {
    return setAside(client, layout, target);
  }

  async createTable(client: PoolClient, layout: RedshiftLayout, table: PairTable): Promise<void> {
    if (table === 'shadow') {
      await client.query(createShadowSql(layout, this.dialect));
      return;
    }
    await client.query(createTargetSql(layout, this.dialect));
    for (const column of layout.columns) await recordSourceName(client, layout.qualifiedTarget, column);
    const tableComment = tableSourceNameSql(layout.qualifiedTarget, layout.targetSourceName);
    if (tableComment !== null) await client.query(tableComment);
  }

  addMissingColumns(client: PoolClient, layout: RedshiftLayout, table: PairTable, existing: Set<string>): Promise<string[]> {
    return this.addMissing(client, layout, table === 'target' ? layout.qualifiedTarget : layout.qualifiedShadow, existing);
  }

  /**
   * A batch loaded before tables had control tables of their own is only in the schema's log, read outside the load's
   * transaction (its first statement must be the LOCK, and a load never reads the schema's shared log).
   */
  async loadedOutsideTransaction(layout: RedshiftLayout, batchId: string): Promise<boolean> {
    return ((await this.pool.query(batchLoadedSql(layout.schema), [batchId])).rowCount ?? 0) > 0;
  }

  async hasTable(table: TableRef, options: WarehouseTableOptions): Promise<boolean> {
    return (await existingColumns(this.pool, options.schema, targetTableName(table, this.bareNameSchemas))) !== null;
  }

  async hasLoaded(schema: string, batchId: string): Promise<boolean> {
    return ((await this.pool.query(batchLoadedSql(schema), [batchId])).rowCount ?? 0) > 0;
  }

  /** A table not yet ensured (no control table) has no fence: nothing is stale. Waits only for a load of this table. */
  async isStale(layout: RedshiftLayout, batch: BatchDescriptor): Promise<boolean> {
    const result = await this.pool.query<{ epoch: string | number }>(fenceEpochSql(layout), [batch.replicationId]).catch((error: unknown) => {
      if (MISSING_OBJECT_STATES.has(String(sqlStateOf(error)))) return null;
      throw error;
    });
    const fence = result?.rows[0];
    return fence !== undefined && Number(fence.epoch) > batch.epoch;
  }

  /**
   * The schema's batch log under its own lock (loads only append to it, for a moment), then each table's record of its
   * batches under the table's lock, one table at a time; a table whose lock does not come in a few seconds (a load of
   * it is running) keeps its rows until the next round.
   */
  async forgetLoadedBatches(schema: string, loadedBefore: Date): Promise<number> {
    const cutoff = utcTimestamp(loadedBefore);
    const forgotten = await this.inTransaction(async (client) => {
      await client.query(`LOCK ${qualifiedName(schema, ControlTables.loadedBatches)}`);
      return (await client.query(forgetBatchesSql(schema), [cutoff])).rowCount ?? 0;
    });
    const controls = await this.pool.query<{ name: string }>(TABLE_CONTROLS_SQL, [schema]);
    for (const { name } of controls.rows) {
      await this.inTransaction(async (client) => {
        await this.lockWithin(client, `LOCK ${qualifiedName(schema, name)}`, HOUSEKEEPING_LOCK_WAIT_MS);
        await client.query(forgetTableBatchesSql(schema, name), [cutoff]);
      }).catch(() => undefined);
    }
    return forgotten;
  }

  readonly checksumDialect = REDSHIFT_CHECKSUM_DIALECT;

  checksumTable(layout: RedshiftLayout, definition: TableDefinition): ChecksumTable {
    return redshiftChecksumTable(layout, definition);
  }

  openChecksumSession(): Promise<{ query: ChecksumQuery; close(): Promise<void> }> {
    return openRedshiftChecksumSession(this.pool);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** The table's control table, made with what earlier versions kept of it in the schema's shared tables; under the schema's DDL lock. */
  private async ensureTableControl(client: PoolClient, layout: RedshiftLayout): Promise<void> {
    if ((await existingColumns(client, layout.schema, tableControlName(layout.target))) !== null) return;
    await client.query(createTableControlSql(layout));
    for (const statement of adoptSharedControlSql(layout, this.dialect)) await client.query(statement, [layout.target]);
  }

  /**
   * `lock` (a LOCK statement, first in its transaction) under a bound of its own: Redshift's statement_timeout counts
   * the wait for a lock ("This time includes planning, queueing in workload management (WLM), and execution time",
   * https://docs.aws.amazon.com/redshift/latest/dg/r_statement_timeout.html; PostgreSQL's too), and the statements after
   * it keep the load's bound.
   */
  private async lockWithin(client: PoolClient, lock: string, waitMs: number): Promise<void> {
    this.waitingForLock.add(client);
    await client.query(`SET statement_timeout TO ${waitMs}`);
    // pg's per-statement client bound (node_modules/pg/lib/client.js: `config.query_timeout || connectionParameters.query_timeout`).
    const statement: QueryConfig & { query_timeout: number } = { text: lock, query_timeout: clientBoundMs(waitMs) };
    await client.query(statement);
    await client.query(`SET statement_timeout TO ${this.bounds.statementTimeoutMs}`);
    this.waitingForLock.delete(client);
  }

  /** The columns as CREATE TABLE declares them here (binary is text on the suite's PostgreSQL pair). */
  private wantedColumns(layout: RedshiftLayout): TypedColumn[] {
    return layout.columns.map((column) => ({ name: column.name, type: this.dialect === 'postgres' && column.redshift.form === 'hex' ? 'text' : column.redshift.type }));
  }

  /**
   * The VARCHAR columns of the table to lengthen to the source's new type. Any other change fails the table,
   * naming columns and types, before anything is altered: a change no widening follows, a widening Redshift
   * cannot make in place (numbers, times, a key column). Types the widening lattice does not know are left alone.
   */
  private lengthening(layout: RedshiftLayout, qualifiedTable: string, existing: readonly TypedColumn[]): Lengthening[] {
    const known = (column: TypedColumn) => isLatticeType(column.type);
    const wanted = this.wantedColumns(layout).filter(known);
    const plan = planColumnTypes(existing.filter(known), wanted);
    if (plan.incompatible.length > 0) throw new ColumnTypeChangeError(layout.table, 'the warehouse table', plan.incompatible);
    const keys = new Set(layout.keyColumns);
    const inPlace = (drift: ColumnTypeDrift) => isVaryingText(drift.from) && isVaryingText(drift.to) && !keys.has(drift.name);
    const rebuilt = plan.widen.filter((drift) => !inPlace(drift));
    if (rebuilt.length > 0) throw new ColumnTypeChangeError(layout.table, 'the Redshift warehouse table', rebuilt, IN_PLACE_ONLY_VARCHAR);
    return plan.widen.map((drift) => ({ qualifiedTable, drift }));
  }

  private async addMissing(client: PoolClient, layout: RedshiftLayout, qualifiedTable: string, existing: Set<string>): Promise<string[]> {
    const missing = missingColumns(layout, existing);
    for (const column of missing) {
      await client.query(addColumnSql(qualifiedTable, column, this.dialect));
      await recordSourceName(client, qualifiedTable, column);
    }
    return missing.map((column) => column.sourceName ?? column.name);
  }

  /**
   * The first statement of every load: the table's control table, under its own lock-wait bound. Nothing is read here:
   * a group takes every member's LOCK before the first statement that takes the transaction's snapshot.
   */
  async lockTable(client: PoolClient, layout: RedshiftLayout): Promise<void> {
    await this.lockWithin(client, lockTableControlSql(layout), this.bounds.lockWaitMs);
  }

  /** The load's first statements once its locks are held: its stamp, then the fence. */
  async raiseFence(client: PoolClient, layout: RedshiftLayout, batch: BatchDescriptor): Promise<boolean> {
    const stamp = await client.query<{ stamp: unknown }>(loadStampSql(layout, this.dialect));
    const stamps = this.stamps.get(client) ?? new Map<string, string>();
    this.stamps.set(client, stamps.set(layout.qualifiedTarget, stampLiteral(stamp.rows[0]?.stamp)));
    return raiseFence(client, layout, batch.replicationId, batch.epoch, this.dialect);
  }

  async isLoaded(client: PoolClient, layout: RedshiftLayout, batchId: string): Promise<boolean> {
    return ((await client.query(tableBatchLoadedSql(layout), [batchId])).rowCount ?? 0) > 0;
  }

  async recordLoaded(client: PoolClient, layout: RedshiftLayout, batchId: string): Promise<void> {
    const [advance, start] = advanceClockSql(layout, this.stampOf(client, layout));
    if (((await client.query(advance)).rowCount ?? 0) === 0) await client.query(start);
    await client.query(recordTableBatchSql(layout, this.dialect), [batchId]);
    // The schema's batch log, for hasLoaded: appended to, never read in a load.
    await client.query(recordBatchSql(layout.schema, this.dialect), [batchId]);
  }

  /** A shadow lives while a seed runs: made by its first part, with the columns it loads; emptied if one is there. */
  async startSeed(client: PoolClient, layout: RedshiftLayout, seedId: string): Promise<void> {
    if ((await existingColumns(client, layout.schema, layout.shadow)) === null) await client.query(createShadowSql(layout, this.dialect));
    else await client.query(emptyShadowSql(layout));
    const [remove, insert] = recordSeedStartSql(layout, this.dialect);
    if (remove !== undefined) await client.query(remove);
    if (insert !== undefined) await client.query(insert, [seedId]);
  }

  async currentSeedId(client: PoolClient, layout: RedshiftLayout): Promise<string | null> {
    const current = await client.query<{ seed_id: string }>(currentSeedSql(layout));
    return current.rows[0]?.seed_id ?? null;
  }

  loadSeedFiles(client: PoolClient, layout: RedshiftLayout, files: StagedFiles, reader: StagedFileReader): Promise<number> {
    return this.loader.load(client, layout.qualifiedShadow, seedFileColumns(layout), files, reader);
  }

  /**
   * The seed merged into the target, and its shadow dropped: between seeds the schema holds no `svc_seed_*` table. DROP
   * TABLE of a regular table runs inside the load's transaction (only an external table's may not) and, RESTRICT by
   * default, fails when a view depends on it (https://docs.aws.amazon.com/redshift/latest/dg/r_DROP_TABLE.html): such
   * a shadow is left, emptied, since without savepoints a failed DROP would roll the whole load back.
   */
  async completeSeed(client: PoolClient, layout: RedshiftLayout): Promise<void> {
    for (const statement of mergeSeedSql(layout, this.stampOf(client, layout))) await client.query(statement);
    if (!(await hasDependents(client, layout.schema, layout.shadow))) await client.query(`DROP TABLE ${layout.qualifiedShadow}`);
  }

  async loadChangeFiles(client: PoolClient, layout: RedshiftLayout, files: StagedFiles, reader: StagedFileReader): Promise<number> {
    for (const statement of createLoadTableSql(layout, this.dialect)) await client.query(statement);
    return this.loader.load(client, quoteIdent(LOAD_TABLE), changeFileColumns(layout), files, reader);
  }

  async mergeChanges(client: PoolClient, layout: RedshiftLayout): Promise<void> {
    for (const statement of mergeChangesSql(layout, this.stampOf(client, layout))) await client.query(statement);
  }

  async mergeChangesIntoShadow(client: PoolClient, layout: RedshiftLayout): Promise<void> {
    for (const statement of mergeChangesIntoShadowSql(layout)) await client.query(statement);
  }

  /**
   * Makes the schema and its control tables when missing. Loaders of two replications into one warehouse meet a new
   * schema at the same moment, and IF NOT EXISTS does not make concurrent creation safe: the slower one fails on the
   * catalog (PostgreSQL: a unique violation on pg_namespace; Redshift: a serializable isolation violation, under either
   * isolation level, redshift-conflicts.ts) after the faster one committed. It then tries again, and finds everything made.
   */
  async createControlObjects(schema: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.inTransaction(async (client) => {
          await client.query(createSchemaSql(schema));
          for (const statement of createControlTablesSql(schema)) await client.query(statement);
        });
        break;
      } catch (error) {
        if (attempt >= CREATION_RACE_ATTEMPTS || !lostCreationRace(error)) throw error;
        await new Promise((retry) => setTimeout(retry, 20 + Math.floor(Math.random() * 80)));
      }
    }
  }

  /**
   * One transaction on one session. A COPY that failed is explained from SYS_LOAD_ERROR_DETAIL after the rollback:
   * the failed statement aborted the transaction, and Redshift has no savepoint to read anything inside it. A
   * session whose statement got no answer in time (the client's bound) is discarded without a ROLLBACK, which would
   * only wait behind that statement.
   */
  inTransaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    // Inside `work` the pool gives nothing more (its gate refuses): a load never waits on the pool holding a session.
    return withPoolConnections(this.pool, 1, () => this.transactionOn(work));
  }

  private async transactionOn<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: unknown;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      if (isClientQueryTimeout(error)) {
        broken = error;
        throw error;
      }
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError;
      });
      if (broken === undefined && this.waitingForLock.has(client)) {
        this.waitingForLock.delete(client);
        await client.query(`SET statement_timeout TO ${this.bounds.statementTimeoutMs}`).catch((setError: unknown) => {
          broken = setError;
        });
      }
      if (error instanceof CopyFailedError && broken === undefined && this.dialect === 'redshift') {
        const rows = await client.query<LoadErrorRow>(LOAD_ERRORS_SQL, [loadErrorFilePattern(error.fileUrlPrefix)]).catch(() => null);
        if (rows !== null) error.message += loadErrorDetail(rows.rows);
      }
      throw error;
    } finally {
      this.stamps.delete(client);
      client.release(broken === undefined ? undefined : true);
    }
  }

  /** The stamp of the table's load; only a load that holds its table's lock and has passed its fence has one. */
  private stampOf(client: PoolClient, layout: RedshiftLayout): string {
    const stamp = this.stamps.get(client)?.get(layout.qualifiedTarget);
    if (stamp === undefined) throw new Error("a load stamps its rows only once it holds its table's lock");
    return stamp;
  }
}

/** Raises the table's fence to `epoch` and returns true; false (nothing changed) when the fence is above it. */
async function raiseFence(client: PoolClient, layout: RedshiftLayout, replicationId: string, epoch: number, dialect: SqlDialect): Promise<boolean> {
  const current = await client.query<{ epoch: string | number }>(fenceEpochSql(layout), [replicationId]);
  const fence = current.rows[0];
  if (fence === undefined) {
    await client.query(insertFenceSql(layout, dialect), [replicationId, epoch]);
    return true;
  }
  if (Number(fence.epoch) > epoch) return false;
  if (Number(fence.epoch) < epoch) await client.query(raiseFenceSql(layout), [replicationId, epoch]);
  return true;
}

/**
 * The table's columns with their types (TABLE_COLUMN_TYPES_SQL), named as the layout names them (the catalog may
 * hold a name folded to lower case), under the name as given and then as Redshift stores it (see existingColumns).
 */
async function typedColumns(client: PoolClient, schema: string, table: string, layout: RedshiftLayout): Promise<TypedColumn[]> {
  let result = await client.query<TypedColumn>(TABLE_COLUMN_TYPES_SQL, [schema, table]);
  if (result.rows.length === 0) result = await client.query<TypedColumn>(TABLE_COLUMN_TYPES_SQL, [catalogName(schema), catalogName(table)]);
  const layoutName = new Map(layout.columns.map((column) => [column.name.toLowerCase(), column.name]));
  return result.rows.map((row) => ({ name: layout.columns.some((column) => column.name === row.name) ? row.name : (layoutName.get(row.name) ?? row.name), type: row.type }));
}

/**
 * Column names of a table; null when it does not exist. Looked up under the name as given, then as Redshift stores
 * it by default (catalogName): a cluster with enable_case_sensitive_identifier on, and the suite's PostgreSQL pair,
 * keep the case of quoted names.
 */
async function existingColumns(client: Pool | PoolClient, schema: string, table: string): Promise<Set<string> | null> {
  const result = await client.query<{ name: string }>(TABLE_COLUMNS_SQL, [schema, table]);
  if (result.rows.length > 0) return new Set(result.rows.map((row) => row.name));
  const folded = [catalogName(schema), catalogName(table)];
  if (folded[0] === schema && folded[1] === table) return null;
  const stored = await client.query<{ name: string }>(TABLE_COLUMNS_SQL, folded);
  return stored.rows.length === 0 ? null : new Set(stored.rows.map((row) => row.name));
}

/** Whether a view reads the table, found under its name as given or as Redshift stored it (folded), as existingColumns. */
async function hasDependents(client: PoolClient, schema: string, table: string): Promise<boolean> {
  if ((await client.query(TABLE_DEPENDENTS_SQL, [schema, table])).rows.length > 0) return true;
  const folded = [catalogName(schema), catalogName(table)];
  if (folded[0] === schema && folded[1] === table) return false;
  return (await client.query(TABLE_DEPENDENTS_SQL, folded)).rows.length > 0;
}

/** A fitted column's source name, as its comment (redshift-column-names.ts). */
async function recordSourceName(client: PoolClient, qualifiedTable: string, column: LayoutColumn): Promise<void> {
  const comment = columnSourceNameSql(qualifiedTable, column);
  if (comment !== null) await client.query(comment);
}

/** Renames the table of the previous ScdType to `<table>_<type>_<UTC timestamp>`; its data stays in the warehouse. */
async function setAside(client: PoolClient, layout: RedshiftLayout, existing: ColumnNames): Promise<string> {
  const keptAs = fitIdentifier(setAsideName(layout.target, existing));
  await client.query(`ALTER TABLE ${qualifiedName(layout.schema, layout.target)} RENAME TO ${quoteIdent(keptAs)}`);
  return keptAs;
}

/** The batch log's times are SYSDATE in the sessions' UTC (redshift-client.ts), without a zone: compare with the same. */
function utcTimestamp(instant: Date): string {
  return instant.toISOString().replace('T', ' ').replace('Z', '');
}
