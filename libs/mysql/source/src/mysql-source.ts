import { randomInt } from 'node:crypto';
import { hasPrimaryKey, retentionHours, tableKey, type RetentionPeriod, type TableDefinition, type TableRef } from '@svc/contracts';
import {
  ChangesPurgedError,
  PrimaryKeyRequiredError,
  SourceIncarnationChangedError,
  SourceVersionsRewoundError,
  StaleDefinitionError,
  columnMismatch,
  columnTypeMismatch,
  incarnationMoved,
  ConnectionGate,
  poolGateOptions,
  type ConnectionGateOptions,
  type ChangeProbeOptions,
  type ChangeRead,
  type ChangedTables,
  type DialPolicy,
  type PoolSizing,
  type PurgeOutcome,
  type ReadOptions,
  type SeedChunkPlan,
  type SnapshotRead,
  type SourceConnector,
  type TableWatermark,
} from '@svc/engines';
import { SESSION_TIME_ZONE, SYSTEM_DATABASES, captureSettings, qualifiedName, quoteName, mysqlConnectionOptions, reconcileRetention, serverFlavor, settingProblems, type ServerFlavor } from '@svc/mysql/common';
import type { Connection as CoreConnection, ConnectionOptions, RowDataPacket } from 'mysql2';
import { createPool, type Pool, type PoolConnection } from 'mysql2/promise';
import { comparePositions, positionOf, versionOf, type BinlogPosition } from './binlog/binlog-position';
import { UnreadableEventError } from './binlog/binlog-events';
import { scanChanges, targetKey, type ScanTarget, type TableRead, type TableReadResult, type TableScan } from './binlog/change-scan';
import { keyDecodingOf } from './binlog/row-image';
import { ProbeMemo } from './binlog/probe-memo';
import { SharedLogReader } from './binlog/shared-reader';
import { baseTableNames, catalogRows, describeTables, schemaStamp, type DescribedTable } from './catalog';
import { keyChunks, keyRangeCondition, seedBoundsSql } from './key-sql';
import { csvStream, queryRows, rowFields, selectList, planOf } from './row-reads';
import { logEnd, serverFacts, type ServerFacts } from './server-facts';
import { CaptureSettingError, TableRewrittenError, UnreadableLogError } from './source-errors';
import { csvRecord } from './csv-record';

export interface MysqlSourceOptions {
  /** Source.EncryptDataInTransit */
  encrypt: boolean;
  connectTimeoutMs?: number;
  dial?: DialPolicy;
  maxConnections?: number;
  pool?: Partial<PoolSizing>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_CONNECTIONS = 4;
/** Keys fetched per statement of a change read. */
const KEYS_PER_FETCH = 500;
/** A long read's client may pause (back-pressure from the bus) this long before the server drops it. */
const READ_SESSION_SQL = `SET SESSION time_zone = '${SESSION_TIME_ZONE}', SESSION net_write_timeout = 3600, SESSION net_read_timeout = 3600`;

/** A key column of a type the binary-log reader cannot read back exactly: the table is seeded but not followed. */
export class KeyTypeError extends CaptureSettingError {
  constructor(table: TableRef, columns: readonly string[]) {
    super(`${tableKey(table)} has primary-key columns of a type whose changes this service cannot follow from the binary log (${columns.join(', ')}): use a key of integers, decimals, strings, binary strings, dates or times`);
    this.name = 'KeyTypeError';
  }
}

/**
 * A MySQL or MariaDB source (docs/ENGINES.md, "MySQL and MariaDB"): seeds in consistent snapshots whose binary-log
 * position is known, changes found in the binary log as keys and read from the table as its current rows (a key whose
 * row is gone is a delete), every value rendered as text by the server.
 */
export function createMysqlSource(connectionString: string, options: MysqlSourceOptions): SourceConnector {
  const connection = mysqlConnectionOptions(connectionString, {
    encrypt: options.encrypt,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.dial && { dial: options.dial }),
  });
  const { max, gate } = poolGateOptions('Source', options, DEFAULT_MAX_CONNECTIONS);
  return new MysqlSource(connection, max, { ...gate, size: max });
}

class MysqlSource implements SourceConnector {
  private readonly pool: Pool;
  private readonly gate: ConnectionGate;
  /** Change reads of this source's tables that arrive together share one read of the binary log. */
  private readonly reader = new SharedLogReader((until, reads) => this.scanLog(until, reads));
  /** Where the change probe already read the log for each idle table: the next probe reads only what came after. */
  private readonly probeMemo = new ProbeMemo();
  private flavor: ServerFlavor | undefined;
  /** The database the connection string names; null: every user database of the server, each a schema. */
  private readonly database: string | null;

  constructor(
    private readonly options: ConnectionOptions,
    maxConnections: number,
    gate: ConnectionGateOptions,
  ) {
    this.gate = new ConnectionGate(gate);
    this.database = options.database === undefined || options.database === '' ? null : options.database;
    this.pool = createPool({ ...options, connectionLimit: maxConnections, waitForConnections: true, queueLimit: 0, maxIdle: 1, idleTimeout: 60_000 });
    // mysql2 hands the pool's new callback connection to this listener, whatever its typings say.
    this.pool.on('connection', (connection) => {
      (connection as unknown as CoreConnection).query(READ_SESSION_SQL, () => undefined);
    });
  }

  async discoverTables(): Promise<TableDefinition[]> {
    return (await this.describe(null)).map((described) => described.definition);
  }

  async describeTable(table: TableRef): Promise<TableDefinition | null> {
    if (!this.reads(table)) return null;
    return (await this.describe(table))[0]?.definition ?? null;
  }

  async enableTracking(definition: TableDefinition): Promise<void> {
    if (!hasPrimaryKey(definition)) throw new PrimaryKeyRequiredError(definition.table);
    await this.withConnection(async (connection) => {
      const problems = settingProblems(await captureSettings(connection));
      if (problems.length > 0) throw new CaptureSettingError(problems.join('; '));
    });
    const described = await this.describedOrStale(definition.table);
    const unreadable = definition.primaryKey.filter((name) => described.plans.get(name)?.key == null);
    if (unreadable.length > 0) throw new KeyTypeError(definition.table, unreadable);
  }

  /** The binary log is the server's: there is nothing of this table's to remove. */
  async disableTracking(): Promise<void> {}

  async readSnapshot(definition: TableDefinition, options: ReadOptions = {}): Promise<SnapshotRead> {
    const { connection, giveBack } = await this.lease();
    try {
      const { position, facts } = await this.consistentSnapshot(connection);
      const described = await this.assertDefinitionCurrent(connection, definition, options);
      const range = options.keyRange === undefined ? null : keyRangeCondition(definition, described.plans, options.keyRange);
      const sql = `SELECT ${selectList(definition, described.plans)} FROM ${qualifiedName(definition.table)}${range === null ? '' : ` WHERE ${range.condition}`}`;
      const records = (async function* () {
        for await (const raw of queryRows(connection, sql, range?.values ?? [])) yield csvRecord(rowFields(definition, described.plans, raw));
      })();
      return { startVersion: versionOf(position), sourceIncarnation: facts.incarnation, ...csvStream(connection, records, giveBack) };
    } catch (error) {
      giveBack(false);
      throw error;
    }
  }

  /**
   * The capture horizon (a consistent snapshot's position, as a seed's), then key bounds cutting the table into chunks of
   * about `chunkBytes` by its size on disk: every n-th key in key order, read in one pass of the primary key.
   */
  async planSeedChunks(definition: TableDefinition, chunkBytes: number): Promise<SeedChunkPlan> {
    if (!hasPrimaryKey(definition)) throw new PrimaryKeyRequiredError(definition.table);
    const { connection, giveBack } = await this.lease();
    try {
      const { position, facts } = await this.consistentSnapshot(connection);
      const described = await this.assertDefinitionCurrent(connection, definition, { columnsProjected: true });
      const whole: SeedChunkPlan = { startVersion: versionOf(position), sourceIncarnation: facts.incarnation, bounds: [] };
      if (definition.primaryKey.some((name) => described.plans.get(name)?.key == null)) return whole;
      const [sizes] = await connection.query<RowDataPacket[]>(
        'SELECT DATA_LENGTH AS bytes, TABLE_ROWS AS `rows` FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [definition.table.schema, definition.table.name],
      );
      const bytes = Number(sizes[0]?.['bytes'] ?? 0);
      const rows = Number(sizes[0]?.['rows'] ?? 0);
      const chunks = Math.min(4096, Math.ceil(bytes / Math.max(chunkBytes, 1)));
      if (chunks <= 1 || rows <= chunks) return whole;
      const bounds: string[][] = [];
      for await (const raw of queryRows(connection, seedBoundsSql(definition, described.plans, Math.ceil(rows / chunks)))) {
        bounds.push(raw.map((value) => value ?? ''));
      }
      return { ...whole, bounds };
    } finally {
      await connection.query('ROLLBACK').catch(() => undefined);
      giveBack(true);
    }
  }

  async readChanges(definition: TableDefinition, fromVersion: string, limit: number, options: ReadOptions = {}): Promise<ChangeRead> {
    const { table } = definition;
    if (!hasPrimaryKey(definition)) throw new PrimaryKeyRequiredError(table);
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`the change record limit must be a positive integer, not ${limit}`);
    const { facts, described } = await this.withConnection(async (connection) => ({
      facts: await serverFacts(connection),
      described: await this.assertDefinitionCurrent(connection, definition, options),
    }));
    if (incarnationMoved(options.incarnation, facts.incarnation)) throw new SourceIncarnationChangedError(table, options.incarnation ?? '', facts.incarnation);
    const from = this.checkedPosition(table, fromVersion, facts);
    const found = await this.reader.read({ target: this.scanTarget(definition, described), from, limit }, facts.end);
    if (found.rewritten) throw new TableRewrittenError(table, found.rewritten.statement, found.rewritten.at);
    const { connection, giveBack } = await this.lease();
    try {
      await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      const records = changeRecords(connection, definition, described, found);
      return { toVersion: versionOf(found.end), limited: found.limited, sourceIncarnation: facts.incarnation, ...csvStream(connection, records, giveBack) };
    } catch (error) {
      giveBack(false);
      throw error;
    }
  }

  /**
   * One read of the log for every table at once, each from its watermark or from where its last quiet probe ended
   * (ProbeMemo). A table whose watermark is in an older file than the log's end is called changed, so that its (maybe
   * empty) cycle moves it to the current file before the server expires the file it is in.
   */
  async changedTables(watermarks: readonly TableWatermark[], options: ChangeProbeOptions): Promise<ChangedTables> {
    // The columns' catalog only when stamps are asked for (every SCHEMA_STAMP_INTERVAL_SECONDS); names otherwise.
    const { facts, described, names } = await this.withConnection(async (connection) => {
      const described = options.schemaStamps ? await this.describeWith(connection, null) : null;
      return {
        facts: await serverFacts(connection),
        described,
        names: described?.map((table) => table.definition.table) ?? (await baseTableNames(connection, this.database)),
      };
    });
    const present = new Set(names.map(targetKey));
    const changed: TableRef[] = [];
    const unknown: TableRef[] = [];
    const readable: { watermark: TableWatermark; from: BinlogPosition }[] = [];
    for (const watermark of watermarks) {
      const from = this.positionIfReadable(watermark.version, facts);
      if (!present.has(targetKey(watermark.table)) || from === null || incarnationMoved(watermark.incarnation, facts.incarnation)) unknown.push(watermark.table);
      else if (from.file !== facts.end.file) changed.push(watermark.table);
      else readable.push({ watermark, from });
    }
    if (readable.length > 0) {
      const keyOf = (entry: (typeof readable)[number]) => targetKey(entry.watermark.table);
      const reads: TableRead[] = readable.map((entry) => ({
        target: { ...entry.watermark.table, keyColumns: [] },
        from: this.probeMemo.startOf(keyOf(entry), entry.watermark.version, facts.incarnation, entry.from, facts.end),
        limit: 1,
      }));
      const found = await this.scanLog(facts.end, reads);
      readable.forEach((entry, index) => {
        const scan = found[index];
        const moved = scan === undefined || scan.rewritten !== null || scan.columnsAdded || scan.records > 0;
        if (moved) changed.push(entry.watermark.table);
        this.probeMemo.record(keyOf(entry), entry.watermark.version, facts.incarnation, moved ? 'changed' : { end: scan.end });
      });
    }
    const byName = new Map(described?.map((table) => [targetKey(table.definition.table), table]));
    const schemaStamps = watermarks.flatMap((watermark) => {
      const table = byName.get(targetKey(watermark.table));
      return table === undefined ? [] : [{ table: watermark.table, stamp: schemaStamp(table) }];
    });
    return { changed, unknown, schemaStamps };
  }

  async minValidVersion(): Promise<string | null> {
    const facts = await this.withConnection((connection) => serverFacts(connection));
    const first = facts.logs[0];
    return first === undefined ? null : versionOf({ file: first, position: 4 });
  }

  /** The server expires its own log: what is left is to keep it at least as long as the replication's retention. */
  async purgeChanges(_table: TableRef, retention: RetentionPeriod): Promise<PurgeOutcome> {
    return this.withConnection(async (connection) => {
      const check = await reconcileRetention(connection, await captureSettings(connection), retentionHours(retention) * 3600, retention);
      const said = check.note || check.problems.join('; ');
      return { purgedRows: 0, ...(said !== '' && { retention: said }) };
    });
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  /** One read of the log for all these tables' reads (a fresh server id each: the server drops a dump whose id another one has). */
  private async scanLog(until: BinlogPosition, reads: readonly TableRead[]): Promise<TableReadResult[]> {
    try {
      return await scanChanges(this.options, { until, reads, serverId: randomInt(1 << 30, 2 ** 32 - 1) });
    } catch (error) {
      if (error instanceof UnreadableEventError) throw new UnreadableLogError(error.message);
      throw error;
    }
  }

  private scanTarget(definition: TableDefinition, described: DescribedTable): ScanTarget {
    return {
      ...definition.table,
      keyColumns: definition.primaryKey.map((name) => {
        const decoding = keyDecodingOf(planOf(described.plans, name));
        const ordinal = described.ordinals.get(name);
        if (decoding === null || ordinal === undefined) throw new KeyTypeError(definition.table, [name]);
        return { ordinal, decoding };
      }),
    };
  }

  /** The watermark's position, or why its changes cannot be read: purged from the log, or past its end (another server's log). */
  private checkedPosition(table: TableRef, version: string, facts: ServerFacts): BinlogPosition {
    const position = positionOf(version, facts.end.file.replace(/\.\d+$/, ''));
    const first = facts.logs[0];
    if (comparePositions(position, facts.end) > 0) throw new SourceVersionsRewoundError(table, version, versionOf(facts.end));
    if (first === undefined || !facts.logs.includes(position.file)) throw new ChangesPurgedError(table, version, first === undefined ? versionOf(facts.end) : versionOf({ file: first, position: 4 }));
    return position;
  }

  private positionIfReadable(version: string, facts: ServerFacts): BinlogPosition | null {
    try {
      return this.checkedPosition({ schema: '', name: '' }, version, facts);
    } catch {
      return null;
    }
  }

  /**
   * Starts a consistent snapshot on the connection and says where in the log it stands. MariaDB reports it exactly
   * (binlog_snapshot_file/position, read inside the snapshot). MySQL has no such status: a global read lock, held only
   * across starting the snapshot and reading the log's end, makes the two one moment.
   */
  private async consistentSnapshot(connection: PoolConnection): Promise<{ position: BinlogPosition; facts: ServerFacts }> {
    const facts = await serverFacts(connection);
    await connection.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    if (facts.flavor === 'mariadb') {
      await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      const [rows] = await connection.query<RowDataPacket[]>("SHOW STATUS WHERE Variable_name IN ('binlog_snapshot_file', 'binlog_snapshot_position')");
      const value = (name: string): unknown => rows.find((row) => String(row['Variable_name']).toLowerCase() === name)?.['Value'];
      return { position: { file: String(value('binlog_snapshot_file')), position: Number(value('binlog_snapshot_position')) }, facts };
    }
    await connection.query('FLUSH TABLES WITH READ LOCK');
    try {
      await connection.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      const position = await logEnd(connection, 'mysql');
      if (position === null) throw new CaptureSettingError('the server writes no binary log');
      return { position, facts };
    } finally {
      await connection.query('UNLOCK TABLES');
    }
  }

  /**
   * A connection of the pool through the source's gate (docs/ENGINES.md, "Connections: one gate per pool"): taken in line
   * up to the pool's wait (PoolBusyError after it, retried; mysql2's own pool would queue for ever), refused to work that
   * already holds one. `giveBack(true)` returns it to the pool, `giveBack(false)` destroys it (a read cut short).
   */
  private async lease(): Promise<{ connection: PoolConnection; giveBack: (whole: boolean) => void }> {
    const checkout = await this.gate.checkout();
    let connection: PoolConnection;
    try {
      connection = await this.pool.getConnection();
    } catch (error) {
      checkout.release();
      throw error;
    }
    return {
      connection,
      giveBack: (whole) => {
        if (whole) connection.release();
        else connection.destroy();
        checkout.release();
      },
    };
  }

  private async withConnection<T>(work: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const { connection, giveBack } = await this.lease();
    try {
      return await work(connection);
    } finally {
      giveBack(true);
    }
  }

  /** Whether the table is in a database this source reads. */
  private reads(table: TableRef): boolean {
    return this.database === null ? !SYSTEM_DATABASES.includes(table.schema) : table.schema === this.database;
  }

  private async describe(table: TableRef | null): Promise<DescribedTable[]> {
    return this.withConnection((connection) => this.describeWith(connection, table));
  }

  private async describeWith(connection: PoolConnection, table: TableRef | null): Promise<DescribedTable[]> {
    this.flavor ??= await serverFlavor(connection);
    return describeTables(await catalogRows(connection, this.flavor, this.database, table));
  }

  private async describedOrStale(table: TableRef): Promise<DescribedTable> {
    const [described] = await this.describe(table);
    if (described === undefined) throw new StaleDefinitionError(table, `${tableKey(table)} does not exist`);
    return described;
  }

  /** The table as it is now, or StaleDefinitionError when the definition does not name its columns with their types. */
  private async assertDefinitionCurrent(connection: PoolConnection, definition: TableDefinition, options: ReadOptions): Promise<DescribedTable> {
    const [actual] = await this.describeWith(connection, definition.table);
    if (actual === undefined) throw new StaleDefinitionError(definition.table, `${tableKey(definition.table)} does not exist`);
    const problem = columnMismatch(
      definition.columns.map((column) => column.name),
      actual.definition.columns.map((column) => column.name),
      options.columnsProjected === true,
    );
    if (problem !== null) throw new StaleDefinitionError(definition.table, problem);
    const typed = (column: { name: string; sourceType: string }) => ({ name: column.name, type: column.sourceType });
    const typeProblem = columnTypeMismatch(definition.columns.map(typed), actual.definition.columns.map(typed));
    if (typeProblem !== null) throw new StaleDefinitionError(definition.table, typeProblem);
    const unknownTypes = actual.unknownTypes.filter((column) => definition.columns.some((defined) => column.startsWith(`${defined.name} (`)));
    if (unknownTypes.length > 0) throw new CaptureSettingError(`${tableKey(definition.table)} has columns of types this service cannot read: ${unknownTypes.join(', ')}`);
    return actual;
  }
}

/**
 * The change records of the keys a scan found: their current rows, read in chunks of keys (`I` for a key first seen
 * inserted, `U` otherwise), then a `D` carrying the key for every key whose row is gone. Keys are matched by the row
 * format's text of the key, so a case-insensitive collation that finds `ABC` for `abc` still deletes `abc`.
 */
async function* changeRecords(connection: PoolConnection, definition: TableDefinition, described: DescribedTable, scan: TableScan): AsyncGenerator<string> {
  if (scan.keys.size === 0) return;
  const keyPlans = definition.primaryKey.map((name) => planOf(described.plans, name));
  const interchange = (raw: readonly (string | null)[]) => JSON.stringify(raw.map((value, index) => (value === null ? null : (keyPlans[index]?.text(value) ?? null))));
  const wanted = new Map([...scan.keys.values()].map((changed) => [interchange(changed.key), changed]));
  const seen = new Set<string>();
  const keyCount = definition.primaryKey.length;
  const keySelect = definition.primaryKey.map((name) => planOf(described.plans, name).select(quoteName(name))).join(', ');
  for (const chunk of keyChunks(definition, described.plans, [...scan.keys.values()].map((changed) => changed.key), KEYS_PER_FETCH)) {
    const sql = `SELECT ${keySelect}, ${selectList(definition, described.plans)} FROM ${qualifiedName(definition.table)} WHERE ${chunk.condition}`;
    for await (const raw of queryRows(connection, sql, chunk.values)) {
      const key = interchange(raw.slice(0, keyCount));
      const changed = wanted.get(key);
      if (changed === undefined || seen.has(key)) continue;
      seen.add(key);
      yield csvRecord([changed.first === 'insert' ? 'I' : 'U', ...rowFields(definition, described.plans, raw.slice(keyCount))]);
    }
  }
  const keyIndexes = definition.primaryKey.map((name) => definition.columns.findIndex((column) => column.name === name));
  for (const key of wanted.keys()) {
    if (seen.has(key)) continue;
    const fields: (string | null)[] = definition.columns.map(() => null);
    const texts = JSON.parse(key) as (string | null)[];
    keyIndexes.forEach((columnIndex, index) => {
      fields[columnIndex] = texts[index] ?? null;
    });
    yield csvRecord(['D', ...fields]);
  }
}
