import { hasPrimaryKey, retentionHours, tableKey, type RetentionPeriod, type TableDefinition, type TableRef } from '@svc/contracts';
import {
  type DialPolicy,
  ChangesPurgedError,
  EngineError,
  PrimaryKeyRequiredError,
  SourceIncarnationChangedError,
  SourceVersionsRewoundError,
  StaleDefinitionError,
  TableNotTrackedError,
  columnMismatch,
  columnTypeMismatch,
  distinctBounds,
  incarnationMoved,
  poolGateOptions,
  seedChunkCount,
  seedSamplePercent,
  type ConnectionGate,
  type PoolSizing,
  type ChangeRead,
  type ChangedTables,
  type ChangeProbeOptions,
  type PurgeOutcome,
  type ReadOptions,
  type SeedChunkPlan,
  type SnapshotRead,
  type SourceChecksums,
  type SourceConnector,
  type TableWatermark,
} from '@svc/engines';
import { connectSqlServer, gateMssqlPool, mssqlDriver, mssqlPoolGate, sqlServerConfig } from '@svc/sqlserver/common';
import type { ConnectionPool, config as MssqlConfig, Request, Transaction } from 'mssql';
import { DISCOVER_COLUMNS_SQL } from './catalog-sql';
import { changedTables } from './changed-tables';
import { sqlServerChecksums } from './checksums';
import { definitionsOf, type CatalogRow } from './catalog';
import { qualifiedName, quoteName } from './identifiers';
import { readIncarnation } from './incarnation';
import { CURRENT_VERSION_SQL, changeWindowSql, netChangesSql, snapshotSelectSql } from './read-sql';
import { streamRows } from './row-stream';
import { TABLE_SIZE_SQL, bucketStartsSql, keyCutsIntoRanges, keyRangeFilter } from './seed-chunks';
import { readLayout } from './unpaired-surrogates';
import {
  ALLOW_SNAPSHOT_ISOLATION_SQL,
  MIN_VALID_VERSION_SQL,
  SNAPSHOT_ISOLATION_STATE_SQL,
  VIEW_CHANGE_TRACKING_PERMISSION_SQL,
  disableTableTrackingSql,
  enableDatabaseTrackingSql,
  enableTableTrackingSql,
  retentionReconciled,
} from './tracking-sql';
import { changeWindow, lastSyncVersionOf, minValidVersionOf, parseVersion, startVersionOf, versionsWentBack } from './versions';

export interface SqlServerSourceOptions {
  /** Source.EncryptDataInTransit */
  encrypt: boolean;
  /** Default 10 s. */
  connectTimeoutMs?: number;
  /** What every connect of the pool may reach (dial-guard.ts): the worker's; DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
  /** Connections held at most (one per open snapshot or change read). Default 4. */
  maxConnections?: number;
  /** The worker's sizing of the pool (overrides maxConnections). */
  pool?: Partial<PoolSizing>;
  /** A statement that has not answered by then fails, and is retried; default 1 hour (a read's rows stream after its first answer). */
  requestTimeoutMs?: number;
  /** Retention Change Tracking gets when the database has none yet (the replication's own comes with purgeChanges). */
  defaultRetention?: RetentionPeriod;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 4;
const DEFAULT_REQUEST_TIMEOUT_MS = 60 * 60_000;
/** snapshot_isolation_state of sys.databases. */
const SNAPSHOT_ON = 1;

/** Snapshot isolation was switched on but is still PENDING_ON (write transactions older than the switch are open): retried. */
export class SnapshotIsolationPendingError extends EngineError {
  readonly kind = 'transient';

  constructor() {
    super('snapshot isolation is still being switched on in the source database (write transactions started before are still open)');
    this.name = 'SnapshotIsolationPendingError';
  }
}

/**
 * The login may not read the table's changes: CHANGE_TRACKING_MIN_VALID_VERSION is NULL without VIEW CHANGE
 * TRACKING, as for an untracked table, and reseeding would not cure it. The table stops until it is granted.
 */
export class ChangeTrackingPermissionError extends EngineError {
  readonly kind = 'permission-denied';
  override readonly serviceWorded = true;

  constructor(table: TableRef, userName: string | null) {
    super(
      `Source: permission denied on ${qualifiedName(table)}: the login may not read its changes; ` +
        `GRANT VIEW CHANGE TRACKING ON ${qualifiedName(table)} TO ${userName === null ? '<the replication\'s user>' : quoteName(userName)}`,
    );
    this.name = 'ChangeTrackingPermissionError';
  }
}

/**
 * A SQL Server source (DESIGN §5.1): the database's native Change Tracking, seeds and net-change reads in
 * SNAPSHOT transactions, every value rendered as text by SQL Server (column-types.ts) and streamed as CSV.
 * The connection string is only handed to the driver, never kept in a message.
 */
export function createSqlServerSource(connectionString: string, options: SqlServerSourceOptions): SourceConnector {
  const config = sqlServerConfig(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.dial && { dial: options.dial }),
  });
  const { max, gate } = poolGateOptions('Source', options, DEFAULT_MAX_CONNECTIONS);
  const pool = { min: 0, max };
  return new SqlServerSource({ ...config, requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, pool }, options.defaultRetention ?? '2 Days', mssqlPoolGate(max, gate));
}

class SqlServerSource implements SourceConnector {
  /** Connected on first use (TLS 1.2+ first, see connectSqlServer); a pool that failed to connect is forgotten. */
  private pool: Promise<ConnectionPool> | undefined;

  constructor(
    private readonly config: MssqlConfig,
    private readonly defaultRetention: RetentionPeriod,
    private readonly gate: ConnectionGate,
  ) {}

  async discoverTables(): Promise<TableDefinition[]> {
    // A table with a column of a type the source does not know is listed; describing it for its read stops it.
    return definitionsOf(await this.catalogRows(await this.request(), null), 'list');
  }

  async describeTable(table: TableRef): Promise<TableDefinition | null> {
    const [definition] = definitionsOf(await this.catalogRows(await this.request(), table));
    return definition ?? null;
  }

  async enableTracking(definition: TableDefinition): Promise<void> {
    if (!hasPrimaryKey(definition)) throw new PrimaryKeyRequiredError(definition.table);
    // ALTER DATABASE cannot run inside a transaction: each statement is its own batch.
    await (await this.request()).batch(enableDatabaseTrackingSql(this.defaultRetention));
    await (await this.request()).batch(ALLOW_SNAPSHOT_ISOLATION_SQL);
    const request = await this.request();
    request.input('table', mssqlDriver().NVarChar, qualifiedName(definition.table));
    await request.query(enableTableTrackingSql(definition.table));
  }

  async disableTracking(table: TableRef): Promise<void> {
    const request = await this.request();
    request.input('table', mssqlDriver().NVarChar, qualifiedName(table));
    await request.query(disableTableTrackingSql(table));
  }

  async readSnapshot(definition: TableDefinition, options: ReadOptions = {}): Promise<SnapshotRead> {
    const { transaction, currentVersion: current } = await this.pinnedSnapshot();
    try {
      const sourceIncarnation = await readIncarnation(transaction.request());
      await this.assertDefinitionCurrent(transaction, definition, options);
      const filter = options.keyRange === undefined ? null : keyRangeFilter(definition, options.keyRange);
      const rows = transaction.request();
      for (const [name, text] of filter?.parameters ?? []) rows.input(name, mssqlDriver().NVarChar, text);
      const stream = streamRows(transaction, rows, snapshotSelectSql(definition, filter?.condition ?? null), readLayout(definition, 'snapshot'));
      return { startVersion: startVersionOf(current).toString(), sourceIncarnation, ...stream };
    } catch (error) {
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
  }

  /**
   * The capture horizon first (startVersionOf the version a SNAPSHOT transaction reads first, as a seed's), then key
   * bounds cutting the table into chunks of about `chunkBytes` of its pages: the first keys of equal buckets of a page
   * sample of its keys (seed-chunks.ts). A table under `chunkBytes`, or whose key cannot be cut into ranges, is one chunk.
   */
  async planSeedChunks(definition: TableDefinition, chunkBytes: number): Promise<SeedChunkPlan> {
    if (!hasPrimaryKey(definition)) throw new PrimaryKeyRequiredError(definition.table);
    const { transaction, currentVersion: current } = await this.pinnedSnapshot();
    try {
      const sourceIncarnation = await readIncarnation(transaction.request());
      const whole: SeedChunkPlan = { startVersion: startVersionOf(current).toString(), sourceIncarnation, bounds: [] };
      if (!keyCutsIntoRanges(definition)) return whole;
      const sizeRequest = transaction.request();
      sizeRequest.input('table', mssqlDriver().NVarChar, qualifiedName(definition.table));
      const size = (await sizeRequest.query<{ bytes: string; pages: string }>(TABLE_SIZE_SQL)).recordset[0];
      const chunks = seedChunkCount(Number(size?.bytes ?? 0), chunkBytes);
      if (chunks <= 1) return whole;
      const sample = transaction.request();
      const starts = (await sample.query<Record<string, string | null>>(bucketStartsSql(definition, seedSamplePercent(chunks, Number(size?.pages ?? 0)), chunks))).recordset;
      return { ...whole, bounds: distinctBounds(starts.map((row) => definition.primaryKey.map((_, index) => String(row[`k${index}`] ?? '')))) };
    } finally {
      await transaction.rollback().catch(() => undefined);
    }
  }

  async readChanges(definition: TableDefinition, fromVersion: string, limit: number, options: ReadOptions = {}): Promise<ChangeRead> {
    const { table } = definition;
    if (!hasPrimaryKey(definition)) throw new PrimaryKeyRequiredError(table);
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`the change record limit must be a positive integer, not ${limit}`);
    const from = parseVersion(fromVersion, 'fromVersion');
    const last = lastSyncVersionOf(from);
    const transaction = await this.snapshotTransaction();
    try {
      const current = await this.currentVersion(transaction);
      const sourceIncarnation = await readIncarnation(transaction.request());
      if (incarnationMoved(options.incarnation, sourceIncarnation)) throw new SourceIncarnationChangedError(table, options.incarnation ?? '', sourceIncarnation ?? '');
      const minValid = await this.ctMinValidVersion(transaction.request(), table);
      if (current === null) throw new TableNotTrackedError(table);
      if (minValid === null) throw await this.untrackedOrDenied(transaction.request(), table);
      if (versionsWentBack(from, current)) throw new SourceVersionsRewoundError(table, fromVersion, current.toString());
      if (last < minValid) throw new ChangesPurgedError(table, fromVersion, minValidVersionOf(minValid).toString());
      await this.assertDefinitionCurrent(transaction, definition, options);
      const window = transaction.request();
      window.input('last', mssqlDriver().BigInt, last.toString());
      window.input('current', mssqlDriver().BigInt, current.toString());
      window.input('limit', mssqlDriver().BigInt, String(limit));
      const [bounds] = (await window.query<{ first_version: string | null; version_past_limit: string | null }>(changeWindowSql(definition))).recordset;
      const { end: to, limited } = changeWindow(current, versionOrNull(bounds?.first_version), versionOrNull(bounds?.version_past_limit));
      const changes = transaction.request();
      changes.input('last', mssqlDriver().BigInt, last.toString());
      changes.input('to', mssqlDriver().BigInt, to.toString());
      return { toVersion: to.toString(), limited, sourceIncarnation, ...streamRows(transaction, changes, netChangesSql(definition), readLayout(definition, 'changes')) };
    } catch (error) {
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
  }

  async changedTables(watermarks: readonly TableWatermark[], options: ChangeProbeOptions): Promise<ChangedTables> {
    return changedTables(await this.connected(), watermarks, options);
  }

  async minValidVersion(table: TableRef): Promise<string | null> {
    const minValid = await this.ctMinValidVersion(await this.request(), table);
    return minValid === null ? null : minValidVersionOf(minValid).toString();
  }

  /**
   * SQL Server purges changes itself (AUTO_CLEANUP) after the database's retention. What is left to do is
   * to keep that retention at least as long as the replication asks for.
   */
  async purgeChanges(_table: TableRef, retention: RetentionPeriod): Promise<PurgeOutcome> {
    const result = await (await this.request()).batch<{ previous_hours: number | null }>(enableDatabaseTrackingSql(retention));
    const previous = result.recordset?.[0]?.previous_hours ?? null;
    const said = retentionReconciled(retentionHours(retention), previous);
    return { purgedRows: 0, ...(said !== null && { retention: said }) };
  }

  checksums(definition: TableDefinition): SourceChecksums {
    return sqlServerChecksums({ request: () => this.request(), pinnedSnapshot: () => this.pinnedSnapshot(), withConnections: (count, work) => this.gate.withLease(count, work) }, definition);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await (await pool?.catch(() => undefined))?.close();
  }

  private connected(): Promise<ConnectionPool> {
    this.pool ??= connectSqlServer(this.config).then(
      (pool) => gateMssqlPool(pool, this.gate),
      (error: unknown) => {
        this.pool = undefined;
        throw error;
      },
    );
    return this.pool;
  }

  private async request(): Promise<Request> {
    return (await this.connected()).request();
  }

  private async snapshotTransaction(): Promise<Transaction> {
    const state = (await (await this.request()).query<{ state: number }>(SNAPSHOT_ISOLATION_STATE_SQL)).recordset[0]?.state;
    if (state !== SNAPSHOT_ON) {
      if (state === 0) await (await this.request()).batch(ALLOW_SNAPSHOT_ISOLATION_SQL);
      throw new SnapshotIsolationPendingError();
    }
    const transaction = (await this.connected()).transaction();
    await transaction.begin(mssqlDriver().ISOLATION_LEVEL.SNAPSHOT);
    return transaction;
  }

  /** A SNAPSHOT transaction and its version, read by its first statement: a seed's and a validation's. */
  private async pinnedSnapshot(): Promise<{ transaction: Transaction; currentVersion: bigint | null }> {
    const transaction = await this.snapshotTransaction();
    try {
      return { transaction, currentVersion: await this.currentVersion(transaction) };
    } catch (error) {
      await transaction.rollback().catch(() => undefined);
      throw error;
    }
  }

  /** The first statement of a read: the snapshot's version (see CURRENT_VERSION_SQL). */
  private async currentVersion(transaction: Transaction): Promise<bigint | null> {
    const row = (await transaction.request().query<{ current_version: string | null }>(CURRENT_VERSION_SQL)).recordset[0];
    return versionOrNull(row?.current_version);
  }

  private async ctMinValidVersion(request: Request, table: TableRef): Promise<bigint | null> {
    request.input('table', mssqlDriver().NVarChar, qualifiedName(table));
    const row = (await request.query<{ min_valid_version: string | null }>(MIN_VALID_VERSION_SQL)).recordset[0];
    return versionOrNull(row?.min_valid_version);
  }

  /** Why the table's minimum valid version is NULL: tracking is not in place (a reseed enables it), or the login lacks VIEW CHANGE TRACKING. */
  private async untrackedOrDenied(request: Request, table: TableRef): Promise<EngineError> {
    request.input('table', mssqlDriver().NVarChar, qualifiedName(table));
    const row = (await request.query<{ may_view_changes: number | null; user_name: string | null }>(VIEW_CHANGE_TRACKING_PERMISSION_SQL)).recordset[0];
    return row?.may_view_changes === 0 ? new ChangeTrackingPermissionError(table, row.user_name) : new TableNotTrackedError(table);
  }

  private async catalogRows(request: Request, table: TableRef | null): Promise<CatalogRow[]> {
    request.input('table', mssqlDriver().NVarChar, table === null ? null : qualifiedName(table));
    return (await request.query<CatalogRow>(DISCOVER_COLUMNS_SQL)).recordset;
  }

  /** Fails with StaleDefinitionError when the definition does not name the table's columns, with their types, as they are now. */
  private async assertDefinitionCurrent(transaction: Transaction, definition: TableDefinition, options: ReadOptions): Promise<void> {
    const [actual] = definitionsOf(await this.catalogRows(transaction.request(), definition.table));
    if (!actual) throw new StaleDefinitionError(definition.table, `${tableKey(definition.table)} does not exist`);
    const problem = columnMismatch(
      definition.columns.map((column) => column.name),
      actual.columns.map((column) => column.name),
      options.columnsProjected === true,
    );
    if (problem !== null) throw new StaleDefinitionError(definition.table, problem);
    const typed = (column: { name: string; sourceType: string }) => ({ name: column.name, type: column.sourceType });
    const typeProblem = columnTypeMismatch(definition.columns.map(typed), actual.columns.map(typed));
    if (typeProblem !== null) throw new StaleDefinitionError(definition.table, typeProblem);
  }
}

function versionOrNull(text: string | number | null | undefined): bigint | null {
  return text === null || text === undefined ? null : parseVersion(String(text), 'a version SQL Server returned');
}
