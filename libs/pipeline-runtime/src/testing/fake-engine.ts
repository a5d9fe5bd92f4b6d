import { tableKey, warehouseTableName, type BatchDescriptor, type SeedBatch, type RetentionPeriod, type StagedFiles, type TableDefinition, type TableRef } from '@svc/contracts';
import { DEFAULT_SCHEMAS, ENGINE_NAMES } from '@svc/engine-list';
import { SourceIncarnationChangedError, inLockOrder, incarnationMoved, refuseUngroupable } from '@svc/engines';
import type {
  ApplyOutcome,
  ChangeRead,
  ChangedTables,
  ChangeProbeOptions,
  CsvChunks,
  GroupedFiles,
  GroupedRows,
  PipelineEngine,
  ReadOptions,
  SnapshotRead,
  SourceConnector,
  StagedFileReader,
  StagingConnector,
  TableWatermark,
  WarehouseChecksums,
  WarehouseConnector,
  WarehouseTableOptions,
} from '@svc/engines';
import type { EngineTable } from '../engine-table';

/** CSV lines as the chunks a connector streams. */
async function* chunksOf(lines: readonly string[]): CsvChunks {
  for (const line of lines) yield Buffer.from(`${line}\n`);
}

async function textOf(rows: CsvChunks): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of rows) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** A group's member indices in the lock order (table name), after refusing a group as the engines' protocols do. */
function groupOrder(members: readonly { batch: BatchDescriptor }[]): number[] {
  refuseUngroupable(members.map((member) => member.batch));
  return inLockOrder(
    members.map((_, index) => index),
    (index) => {
      const { schema, name } = members[index]?.batch.definition.table ?? { schema: '', name: '' };
      return [schema, name];
    },
  );
}

/** A field of the pipeline's CSV: null for an unquoted empty field (NULL), '' for `""`. */
type Field = string | null;

/** The pipeline's CSV (the row interchange format, docs/ROW-FORMAT.md) as rows of fields; newlines inside quotes belong to the field. */
function csvFields(text: string): Field[][] {
  const rows: Field[][] = [];
  let row: Field[] = [];
  let field = '';
  let quoted = false;
  let inQuotes = false;
  let started = false;
  const endField = () => {
    row.push(quoted || field !== '' ? field : null);
    field = '';
    quoted = false;
    started = false;
  };
  for (let at = 0; at < text.length; at += 1) {
    const character = text.charAt(at);
    if (inQuotes) {
      if (character === '"' && text.charAt(at + 1) === '"') {
        field += '"';
        at += 1;
      } else if (character === '"') inQuotes = false;
      else field += character;
    } else if (character === '"' && !started) {
      quoted = true;
      inQuotes = true;
      started = true;
    } else if (character === ',') endField();
    else if (character === '\n') {
      endField();
      rows.push(row);
      row = [];
    } else {
      field += character;
      started = true;
    }
  }
  // As a database's COPY refuses it.
  if (inQuotes) throw new Error('unterminated quoted field in the CSV');
  if (started || row.length > 0) {
    endField();
    rows.push(row);
  }
  return rows;
}

/** A table's rows by key (the primary key's fields; a keyless row gets a key of its own), each row by column name. */
class RowTable {
  private readonly byKey = new Map<string, Map<string, Field>>();
  private keyless = 0;

  clear(): void {
    this.byKey.clear();
  }

  keyOf(definition: TableDefinition, row: ReadonlyMap<string, Field>): string {
    if (definition.primaryKey.length === 0) return `keyless:${(this.keyless += 1)}`;
    return JSON.stringify(definition.primaryKey.map((name) => row.get(name) ?? null));
  }

  get(key: string): Map<string, Field> | undefined {
    return this.byKey.get(key);
  }

  put(key: string, row: Map<string, Field>): void {
    this.byKey.set(key, row);
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }

  entries(): [string, Map<string, Field>][] {
    return [...this.byKey.entries()];
  }

  /** Every row's fields in `columns` order (NULL for a column the row predates). */
  fields(columns: readonly string[]): Field[][] {
    return [...this.byKey.values()].map((row) => columns.map((name) => row.get(name) ?? null));
  }
}

/** Rows of a batch by column name, after the operation when they are change rows. */
function namedRows(definition: TableDefinition, text: string, withOperation: boolean): { operation: string | null; row: Map<string, Field> }[] {
  return csvFields(text).map((fields) => {
    const values = withOperation ? fields.slice(1) : fields;
    return { operation: withOperation ? (fields[0] ?? null) : null, row: new Map(definition.columns.map((column, index) => [column.name, values[index] ?? null])) };
  });
}

/** Fails the next call of `operation` with `error`, once; called again, the call after that too. */
class Faults {
  private readonly pending = new Map<string, unknown[]>();

  failNext(operation: string, error: unknown): void {
    this.pending.set(operation, [...(this.pending.get(operation) ?? []), error]);
  }

  check(operation: string): void {
    const queued = this.pending.get(operation);
    if (queued === undefined || queued.length === 0) return;
    const [error] = queued.splice(0, 1);
    throw error;
  }
}

/** An in-memory source: tables with CSV rows, change tracking as a set, versions as a counter. */
export class FakeSource implements SourceConnector {
  readonly faults = new Faults();
  readonly tables = new Map<string, { definition: TableDefinition; rows: string[] }>();
  readonly tracked = new Set<string>();
  version = 1;
  /** The database's incarnation (a restore gives it another): a change read from a watermark of another one reseeds. */
  incarnation: string | null = 'fake database, first life';
  closed = false;

  addTable(definition: TableDefinition, rows: string[] = []): void {
    this.tables.set(tableKey(definition.table), { definition, rows });
  }

  async discoverTables(): Promise<TableDefinition[]> {
    this.faults.check('discoverTables');
    return [...this.tables.values()].map((table) => table.definition);
  }

  async describeTable(table: TableRef): Promise<TableDefinition | null> {
    return this.tables.get(tableKey(table))?.definition ?? null;
  }

  async enableTracking(definition: TableDefinition): Promise<void> {
    this.tracked.add(tableKey(definition.table));
  }

  async disableTracking(table: TableRef): Promise<void> {
    this.faults.check('disableTracking');
    this.tracked.delete(tableKey(table));
  }

  async readSnapshot(definition: TableDefinition): Promise<SnapshotRead> {
    const rows = this.tables.get(tableKey(definition.table))?.rows ?? [];
    return { rows: chunksOf(rows), finished: Promise.resolve({ rowCount: rows.length }), startVersion: String(this.version), sourceIncarnation: this.incarnation };
  }

  async readChanges(definition: TableDefinition, fromVersion: string, _limit: number, options: ReadOptions = {}): Promise<ChangeRead> {
    if (incarnationMoved(options.incarnation, this.incarnation)) throw new SourceIncarnationChangedError(definition.table, options.incarnation ?? '', this.incarnation ?? '');
    return { rows: chunksOf([]), finished: Promise.resolve({ rowCount: 0 }), toVersion: fromVersion, limited: false, sourceIncarnation: this.incarnation };
  }

  async minValidVersion(): Promise<string | null> {
    return null;
  }

  /** Its change reads find nothing, so no tracked table ever has changes; an untracked one cannot be judged. */
  async changedTables(watermarks: readonly TableWatermark[], options: ChangeProbeOptions): Promise<ChangedTables> {
    this.faults.check('changedTables');
    const tracked = watermarks.filter((watermark) => this.tracked.has(tableKey(watermark.table)));
    return {
      changed: [],
      unknown: watermarks.filter((watermark) => !this.tracked.has(tableKey(watermark.table))).map((watermark) => watermark.table),
      schemaStamps: (options.schemaStamps ? tracked : []).map((watermark) => ({ table: watermark.table, stamp: JSON.stringify(this.tables.get(tableKey(watermark.table))?.definition.columns ?? []) })),
    };
  }

  async purgeChanges(_table: TableRef, _retention: RetentionPeriod): Promise<{ purgedRows: number }> {
    return { purgedRows: 0 };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A fence's key: each replication keeps its own per table (docs/PIPELINE.md, "Staging tables shared by replications"). */
const fenceKey = (replicationId: string, table: TableRef) => JSON.stringify([replicationId, tableKey(table)]);

/** Batch log and epoch fences kept the way the real connectors keep them: per batch id, per replication and table. */
class AppliedBatches {
  readonly batchIds = new Set<string>();
  private readonly fences = new Map<string, number>();
  /** When each batch was recorded. */
  private readonly recordedAt = new Map<string, number>();

  isStale(batch: BatchDescriptor): boolean {
    return (this.fences.get(fenceKey(batch.replicationId, batch.definition.table)) ?? 0) > batch.epoch;
  }

  /** The replication's fence of the table raised to `epoch`, as a batch of that epoch applied would leave it. */
  raiseFence(replicationId: string, table: TableRef, epoch: number): void {
    this.fences.set(fenceKey(replicationId, table), epoch);
  }

  /** True when another replication has a fence on the table: it writes the table too. */
  sharedWith(batch: BatchDescriptor): boolean {
    const table = tableKey(batch.definition.table);
    return [...this.fences.keys()].some((key) => {
      const [replicationId, fenced] = JSON.parse(key) as [string, string];
      return fenced === table && replicationId !== batch.replicationId;
    });
  }

  /** Raises the fence and records the batch; false when it is stale or was recorded before. */
  record(batch: BatchDescriptor): 'stale' | 'before' | 'new' {
    if (this.isStale(batch)) return 'stale';
    this.raiseFence(batch.replicationId, batch.definition.table, batch.epoch);
    if (this.batchIds.has(batch.batchId)) return 'before';
    this.batchIds.add(batch.batchId);
    this.recordedAt.set(batch.batchId, Date.now());
    return 'new';
  }

  /** Forgets the batches recorded before `before`; how many. */
  forget(before: Date): number {
    const forgotten = [...this.batchIds].filter((batchId) => (this.recordedAt.get(batchId) ?? 0) < before.getTime());
    for (const batchId of forgotten) this.batchIds.delete(batchId);
    return forgotten.length;
  }

  /** What record would answer, changing nothing. */
  peek(batch: BatchDescriptor): 'stale' | 'before' | 'new' {
    if (this.isStale(batch)) return 'stale';
    return this.batchIds.has(batch.batchId) ? 'before' : 'new';
  }

  /** Forgets the replication's fences (of `table`, or of every table); how many. */
  forgetFences(replicationId: string, table?: TableRef): number {
    return forgetKeys(this.fences, replicationId, table);
  }

  clear(): void {
    this.batchIds.clear();
    this.fences.clear();
  }
}

/** Deletes a map's entries keyed by fenceKey of the replication (and table, when given); how many. */
function forgetKeys(map: Map<string, unknown>, replicationId: string, table?: TableRef): number {
  const gone = [...map.keys()].filter((key) => {
    const [replication, fenced] = JSON.parse(key) as [string, string];
    return replication === replicationId && (table === undefined || fenced === tableKey(table));
  });
  for (const key of gone) map.delete(key);
  return gone.length;
}

/**
 * The seed each table is at: part 0 starts one; a later part of another seed (or of one that never started) belongs
 * to an abandoned seed and changes nothing, not even the batch log, as the real connectors roll it back.
 */
class SeedRecords {
  private readonly current = new Map<string, string>();

  /** False for a part that must change nothing. */
  accepts(key: string, seed: SeedBatch): boolean {
    return seed.part === 0 || seed.chunked === true || this.current.get(key) === seed.seedId;
  }

  /** Part 0 starts a seed; so does a chunked seed's first chunk to arrive. */
  starts(key: string, seed: SeedBatch): boolean {
    return seed.chunked === true ? this.current.get(key) !== seed.seedId : seed.part === 0;
  }

  start(key: string, seedId: string): void {
    this.current.set(key, seedId);
  }

  forget(replicationId: string, table?: TableRef): number {
    return forgetKeys(this.current, replicationId, table);
  }

  clear(): void {
    this.current.clear();
  }
}

/**
 * The staging table lock as the staging protocol takes it: a chunk of a seed of a table no other replication writes
 * shares it with the other chunks; every other batch holds it alone.
 */
class TableLocks {
  private readonly holders = new Map<string, { shared: number; exclusive: boolean; waiting: (() => void)[] }>();

  async hold<T>(table: string, shared: boolean, work: () => Promise<T>): Promise<T> {
    const lock = this.holders.get(table) ?? { shared: 0, exclusive: false, waiting: [] };
    this.holders.set(table, lock);
    while (lock.exclusive || (!shared && lock.shared > 0)) await new Promise<void>((resolve) => lock.waiting.push(resolve));
    if (shared) lock.shared += 1;
    else lock.exclusive = true;
    try {
      return await work();
    } finally {
      if (shared) lock.shared -= 1;
      else lock.exclusive = false;
      for (const wake of lock.waiting.splice(0)) wake();
    }
  }
}

/** An in-memory staging database: tables as column lists, applied batches with their rows. */
export class FakeStaging implements StagingConnector {
  readonly faults = new Faults();
  readonly tables = new Map<string, string[]>();
  readonly applied = new AppliedBatches();
  readonly rowsOf = new Map<string, string[]>();
  readonly seeds = new SeedRecords();
  /** Each table's rows, as the batches applied left them. */
  readonly data = new Map<string, RowTable>();

  /** The staging table's rows in its columns' order: [] for a table that does not exist. */
  tableRows(table: TableRef): Field[][] {
    return this.data.get(tableKey(table))?.fields(this.tables.get(tableKey(table)) ?? []) ?? [];
  }

  /** The database dropped and created again: tables, rows, batch log, fences and seed records gone. */
  recreate(): void {
    for (const map of [this.tables, this.rowsOf, this.data]) map.clear();
    this.applied.clear();
    this.seeds.clear();
  }

  async ensureTable(definition: TableDefinition): Promise<{ created: boolean; addedColumns: string[] }> {
    const key = tableKey(definition.table);
    const present = this.tables.get(key);
    const wanted = definition.columns.map((column) => column.name);
    this.tables.set(key, [...new Set([...(present ?? []), ...wanted])]);
    if (present === undefined) return { created: true, addedColumns: [] };
    return { created: false, addedColumns: wanted.filter((name) => !present.includes(name)) };
  }

  async existingColumns(table: TableRef): Promise<string[] | null> {
    return this.tables.get(tableKey(table)) ?? null;
  }

  private readonly locks = new TableLocks();

  async applyBatch(batch: BatchDescriptor, rows: CsvChunks): Promise<ApplyOutcome> {
    this.faults.check('applyBatch');
    const shared = batch.body.kind === 'seed' && batch.body.chunked === true && !this.applied.sharedWith(batch);
    return this.locks.hold(tableKey(batch.definition.table), shared, () => this.applyHeld(batch, rows));
  }

  /** As the protocol does: every member's rows are read (and parsed) before any is applied, so a failure applies none. */
  async applyChangeGroup(members: readonly GroupedRows[]): Promise<ApplyOutcome[]> {
    const order = groupOrder(members);
    this.faults.check('applyBatch');
    const outcomes: ApplyOutcome[] = members.map(() => ({ applied: false, rowCount: 0 }));
    const ready: { index: number; text: string; rows: ReturnType<typeof namedRows> }[] = [];
    for (const index of order) {
      const { batch, rows } = members[index];
      if (this.applied.peek(batch) === 'stale') {
        outcomes[index] = { applied: false, rowCount: 0, stale: true };
        continue;
      }
      if (!this.tables.has(tableKey(batch.definition.table))) throw new Error(`relation ${tableKey(batch.definition.table)} does not exist`);
      const text = await textOf(rows);
      ready.push({ index, text, rows: namedRows(batch.definition, text, true) });
    }
    for (const { index, text, rows } of ready) {
      const { batch } = members[index];
      if (this.applied.record(batch) === 'before') continue;
      const key = tableKey(batch.definition.table);
      const table = this.data.get(key) ?? new RowTable();
      this.data.set(key, table);
      for (const { operation, row } of rows) {
        const rowKey = table.keyOf(batch.definition, row);
        if (operation === 'D') table.delete(rowKey);
        else table.put(rowKey, row);
      }
      this.rowsOf.set(batch.batchId, text.split('\n').filter((line) => line !== ''));
      outcomes[index] = { applied: true, rowCount: rows.length };
    }
    return outcomes;
  }

  private async applyHeld(batch: BatchDescriptor, rows: CsvChunks): Promise<ApplyOutcome> {
    const key = tableKey(batch.definition.table);
    if (this.applied.peek(batch) === 'stale') return { applied: false, rowCount: 0, stale: true };
    const text = await textOf(rows);
    // Each replication keeps its own seed record of a table.
    const seedKey = fenceKey(batch.replicationId, batch.definition.table);
    if (batch.body.kind === 'seed' && this.applied.peek(batch) === 'new' && !this.seeds.accepts(seedKey, batch.body)) return { applied: false, rowCount: 0 };
    if (this.applied.record(batch) === 'before') return { applied: false, rowCount: 0 };
    const table = this.data.get(key) ?? new RowTable();
    this.data.set(key, table);
    const withOperation = batch.body.kind === 'changes';
    if (batch.body.kind === 'seed' && this.seeds.starts(seedKey, batch.body)) {
      this.seeds.start(seedKey, batch.body.seedId);
      // A keyed table another replication writes is never emptied: the seed merges by key.
      if (batch.definition.primaryKey.length === 0 || !this.applied.sharedWith(batch)) table.clear();
    }
    const batchRows = namedRows(batch.definition, text, withOperation);
    for (const { operation, row } of batchRows) {
      const rowKey = table.keyOf(batch.definition, row);
      if (operation === 'D') table.delete(rowKey);
      else table.put(rowKey, row);
    }
    this.rowsOf.set(batch.batchId, text.split('\n').filter((line) => line !== ''));
    return { applied: true, rowCount: batchRows.length };
  }

  async hasApplied(batchId: string): Promise<boolean> {
    return this.applied.batchIds.has(batchId);
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    return this.applied.isStale(batch);
  }

  async forgetAppliedBatches(appliedBefore: Date): Promise<number> {
    return this.applied.forget(appliedBefore);
  }

  async forgetReplication(replicationId: string, tables?: readonly TableRef[]): Promise<number> {
    let forgotten = 0;
    for (const table of tables ?? [undefined]) forgotten += this.applied.forgetFences(replicationId, table) + this.seeds.forget(replicationId, table);
    return forgotten;
  }

  async close(): Promise<void> {}
}

/** One row of a warehouse table: Type1 keeps only current ones; Type2 closes a version instead of changing it. */
interface WarehouseVersion {
  key: string;
  row: Map<string, Field>;
  current: boolean;
  deleted: boolean;
}

const sameValues = (definition: TableDefinition, a: ReadonlyMap<string, Field>, b: ReadonlyMap<string, Field>) =>
  definition.columns.every((column) => (a.get(column.name) ?? null) === (b.get(column.name) ?? null));

/**
 * An in-memory warehouse: tables by target name, loaded batches with the parts they read, and each table's rows as
 * docs/PIPELINE.md ("Warehouse") and libs/postgres/warehouse/README.md describe the merge: seed parts collect in a
 * shadow merged at the final part; Type1 upserts and deletes by key; Type2 closes the current version of a changed
 * or deleted key (a delete marked deleted) and adds no version for an unchanged row.
 */
export class FakeWarehouse implements WarehouseConnector {
  readonly faults = new Faults();
  readonly tables = new Map<string, string[]>();
  readonly loaded = new AppliedBatches();
  readonly partsOf = new Map<string, string[]>();
  readonly seeds = new SeedRecords();
  readonly versions = new Map<string, WarehouseVersion[]>();
  private readonly shadows = new Map<string, RowTable>();

  targetTableName(table: TableRef): string {
    return warehouseTableName(table, DEFAULT_SCHEMAS);
  }

  /** The table's rows in its columns' order; Type2 history: every version followed by its is_current and is_deleted as 'true'/'false'. */
  tableRows(table: TableRef, options: WarehouseTableOptions, history = false): Field[][] {
    const key = this.keyOf(table, options);
    const columns = this.tables.get(key) ?? [];
    return (this.versions.get(key) ?? [])
      .filter((version) => history || version.current)
      .map((version) => [...columns.map((name) => version.row.get(name) ?? null), ...(history ? [String(version.current), String(version.deleted)] : [])]);
  }

  /** The database dropped and created again: tables, rows, batch log, fences and seed records gone. */
  recreate(): void {
    for (const map of [this.tables, this.partsOf, this.versions, this.shadows]) map.clear();
    this.loaded.clear();
    this.seeds.clear();
  }

  private keyOf(table: TableRef, options: WarehouseTableOptions): string {
    return `${options.schema}.${this.targetTableName(table)}`;
  }

  async ensureTable(definition: TableDefinition, options: WarehouseTableOptions): Promise<{ created: boolean; addedColumns: string[] }> {
    const key = this.keyOf(definition.table, options);
    const present = this.tables.get(key);
    const wanted = definition.columns.map((column) => column.name);
    this.tables.set(key, [...new Set([...(present ?? []), ...wanted])]);
    if (present === undefined) return { created: true, addedColumns: [] };
    return { created: false, addedColumns: wanted.filter((name) => !present.includes(name)) };
  }

  async loadBatch(batch: BatchDescriptor, files: StagedFiles, reader: StagedFileReader, options: WarehouseTableOptions): Promise<ApplyOutcome> {
    this.faults.check('loadBatch');
    const key = this.keyOf(batch.definition.table, options);
    const seed = batch.body.kind === 'seed' ? batch.body : null;
    if (seed !== null && this.loaded.peek(batch) === 'new' && !this.seeds.accepts(key, seed)) return { applied: false, rowCount: 0 };
    const recorded = this.loaded.record(batch);
    if (recorded === 'stale') return { applied: false, rowCount: 0, stale: true };
    if (recorded === 'before') return { applied: false, rowCount: 0 };
    let text = '';
    for (const part of files.partKeys) text += await textOf(await reader.readPart(part));
    const rows = namedRows(batch.definition, text, seed === null);
    this.partsOf.set(batch.batchId, files.partKeys);
    if (seed === null) this.applyChanges(key, batch.definition, rows, options.scdType);
    else {
      if (seed.part === 0) {
        this.seeds.start(key, seed.seedId);
        this.shadows.set(key, new RowTable());
      }
      const shadow = this.shadows.get(key) ?? new RowTable();
      this.shadows.set(key, shadow);
      for (const { row } of rows) shadow.put(shadow.keyOf(batch.definition, row), row);
      if (seed.final) {
        this.mergeSeed(key, batch.definition, shadow, options.scdType);
        this.shadows.delete(key);
      }
    }
    return { applied: true, rowCount: rows.length };
  }

  /** As the protocol does: every member's files are read (and parsed) before any is loaded, so a failure loads none. */
  async loadChangeGroup(members: readonly GroupedFiles[], reader: StagedFileReader, options: WarehouseTableOptions): Promise<ApplyOutcome[]> {
    const order = groupOrder(members);
    this.faults.check('loadBatch');
    const outcomes: ApplyOutcome[] = members.map(() => ({ applied: false, rowCount: 0 }));
    const ready: { index: number; rows: ReturnType<typeof namedRows> }[] = [];
    for (const index of order) {
      const { batch, files } = members[index];
      if (this.loaded.peek(batch) === 'stale') {
        outcomes[index] = { applied: false, rowCount: 0, stale: true };
        continue;
      }
      if (!this.tables.has(this.keyOf(batch.definition.table, options))) throw new Error(`relation ${this.targetTableName(batch.definition.table)} does not exist`);
      let text = '';
      for (const part of files.partKeys) text += await textOf(await reader.readPart(part));
      ready.push({ index, rows: namedRows(batch.definition, text, true) });
    }
    for (const { index, rows } of ready) {
      const { batch, files } = members[index];
      if (this.loaded.record(batch) === 'before') continue;
      this.partsOf.set(batch.batchId, files.partKeys);
      this.applyChanges(this.keyOf(batch.definition.table, options), batch.definition, rows, options.scdType);
      outcomes[index] = { applied: true, rowCount: rows.length };
    }
    return outcomes;
  }

  private applyChanges(key: string, definition: TableDefinition, rows: ReturnType<typeof namedRows>, scdType: WarehouseTableOptions['scdType']): void {
    const versions = this.versions.get(key) ?? [];
    const keys = new RowTable();
    for (const { operation, row } of rows) {
      const rowKey = keys.keyOf(definition, row);
      const current = versions.find((version) => version.current && version.key === rowKey);
      if (operation !== 'D' && scdType === 'Type2' && current !== undefined && sameValues(definition, current.row, row)) continue;
      if (current !== undefined) {
        if (scdType === 'Type1') versions.splice(versions.indexOf(current), 1);
        else Object.assign(current, { current: false, deleted: operation === 'D' });
      }
      if (operation !== 'D') versions.push({ key: rowKey, row, current: true, deleted: false });
    }
    this.versions.set(key, versions);
  }

  private mergeSeed(key: string, definition: TableDefinition, shadow: RowTable, scdType: WarehouseTableOptions['scdType']): void {
    const seeded = new Map(shadow.entries());
    if (scdType === 'Type1') {
      this.versions.set(key, [...seeded].map(([rowKey, row]) => ({ key: rowKey, row, current: true, deleted: false })));
      return;
    }
    const versions = this.versions.get(key) ?? [];
    for (const version of versions.filter((candidate) => candidate.current)) {
      const row = seeded.get(version.key);
      if (row !== undefined && sameValues(definition, version.row, row)) seeded.delete(version.key);
      else Object.assign(version, { current: false, deleted: row === undefined });
    }
    for (const [rowKey, row] of seeded) versions.push({ key: rowKey, row, current: true, deleted: false });
    this.versions.set(key, versions);
  }

  async hasTable(table: TableRef, options: WarehouseTableOptions): Promise<boolean> {
    return this.tables.has(this.keyOf(table, options));
  }

  async hasLoaded(batchId: string): Promise<boolean> {
    return this.loaded.batchIds.has(batchId);
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    return this.loaded.isStale(batch);
  }

  async forgetLoadedBatches(loadedBefore: Date): Promise<number> {
    return this.loaded.forget(loadedBefore);
  }

  /** The in-memory warehouse keeps no canonical texts: validation runs against real engines only. */
  checksums(): WarehouseChecksums {
    throw new Error('the fake warehouse does not validate: validation is tested against PostgreSQL and the Redshift dialect');
  }

  async close(): Promise<void> {}
}

/**
 * One fake engine in every role, for unit tests of the extractor, stager and loader services: its engine
 * table answers every engine name with the same in-memory connectors, which a test fills and inspects.
 */
export class FakeEngine {
  readonly source = new FakeSource();
  readonly staging = new FakeStaging();
  readonly warehouse = new FakeWarehouse();

  /** The error kinds a test wants its driver errors read as (default: none, so every error is left to the neutral rules). */
  errorKind: PipelineEngine['errorKind'] = () => undefined;

  table(): EngineTable {
    const engine: PipelineEngine = {
      displayName: 'Fake',
      errorKind: (error) => this.errorKind(error),
      openSource: () => this.source,
      openStaging: () => this.staging,
      openWarehouse: () => this.warehouse,
    };
    return Object.fromEntries(ENGINE_NAMES.map((name) => [name, engine])) as EngineTable;
  }
}
