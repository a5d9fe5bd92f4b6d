import { tableKey, type BatchDescriptor, type RetentionPeriod, type StagedFiles, type TableDefinition, type TableRef } from '@svc/contracts';
import { ENGINE_NAMES } from '@svc/engine-list';
import type {
  ApplyOutcome,
  ChangeRead,
  CsvChunks,
  PipelineEngine,
  SnapshotRead,
  SourceConnector,
  StagedFileReader,
  StagingConnector,
  WarehouseConnector,
  WarehouseTableOptions,
} from '@svc/engines';
import type { EngineTable } from '../engine-table';

/** CSV lines as the chunks a connector streams. */
async function* chunksOf(lines: readonly string[]): CsvChunks {
  for (const line of lines) yield Buffer.from(`${line}\n`);
}

async function linesOf(rows: CsvChunks): Promise<string[]> {
  let text = '';
  for await (const chunk of rows) text += chunk.toString('utf8');
  return text.split('\n').filter((line) => line !== '');
}

/** Fails the next call of `operation` with `error`, once. */
class Faults {
  private readonly pending = new Map<string, unknown>();

  failNext(operation: string, error: unknown): void {
    this.pending.set(operation, error);
  }

  check(operation: string): void {
    if (!this.pending.has(operation)) return;
    const error = this.pending.get(operation);
    this.pending.delete(operation);
    throw error;
  }
}

/** An in-memory source: tables with CSV rows, change tracking as a set, versions as a counter. */
export class FakeSource implements SourceConnector {
  readonly faults = new Faults();
  readonly tables = new Map<string, { definition: TableDefinition; rows: string[] }>();
  readonly tracked = new Set<string>();
  version = 1;
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
    return { rows: chunksOf(rows), finished: Promise.resolve({ rowCount: rows.length }), startVersion: String(this.version) };
  }

  async readChanges(_definition: TableDefinition, fromVersion: string): Promise<ChangeRead> {
    return { rows: chunksOf([]), finished: Promise.resolve({ rowCount: 0 }), toVersion: fromVersion };
  }

  async minValidVersion(): Promise<string | null> {
    return null;
  }

  async purgeChanges(_table: TableRef, _retention: RetentionPeriod): Promise<{ purgedRows: number }> {
    return { purgedRows: 0 };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Batch log and epoch fences kept the way the real connectors keep them: per batch id, per table. */
class AppliedBatches {
  readonly batchIds = new Set<string>();
  readonly fences = new Map<string, number>();

  isStale(batch: BatchDescriptor): boolean {
    return (this.fences.get(tableKey(batch.definition.table)) ?? 0) > batch.epoch;
  }

  /** Raises the fence and records the batch; false when it is stale or was recorded before. */
  record(batch: BatchDescriptor): 'stale' | 'before' | 'new' {
    if (this.isStale(batch)) return 'stale';
    this.fences.set(tableKey(batch.definition.table), batch.epoch);
    if (this.batchIds.has(batch.batchId)) return 'before';
    this.batchIds.add(batch.batchId);
    return 'new';
  }
}

/** An in-memory staging database: tables as column lists, applied batches with their rows. */
export class FakeStaging implements StagingConnector {
  readonly faults = new Faults();
  readonly tables = new Map<string, string[]>();
  readonly applied = new AppliedBatches();
  readonly rowsOf = new Map<string, string[]>();

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

  async applyBatch(batch: BatchDescriptor, rows: CsvChunks): Promise<ApplyOutcome> {
    this.faults.check('applyBatch');
    const recorded = this.applied.record(batch);
    if (recorded === 'stale') return { applied: false, rowCount: 0, stale: true };
    const lines = await linesOf(rows);
    if (recorded === 'before') return { applied: false, rowCount: 0 };
    this.rowsOf.set(batch.batchId, lines);
    return { applied: true, rowCount: lines.length };
  }

  async hasApplied(batchId: string): Promise<boolean> {
    return this.applied.batchIds.has(batchId);
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    return this.applied.isStale(batch);
  }

  async forgetAppliedBatches(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}

/** An in-memory warehouse: tables by target name, loaded batches with the parts they read. */
export class FakeWarehouse implements WarehouseConnector {
  readonly faults = new Faults();
  readonly tables = new Map<string, string[]>();
  readonly loaded = new AppliedBatches();
  readonly partsOf = new Map<string, string[]>();

  targetTableName(table: TableRef): string {
    return table.schema === 'public' ? table.name : `${table.schema}_${table.name}`;
  }

  async ensureTable(definition: TableDefinition, options: WarehouseTableOptions): Promise<{ created: boolean; addedColumns: string[] }> {
    const key = `${options.schema}.${this.targetTableName(definition.table)}`;
    const present = this.tables.get(key);
    const wanted = definition.columns.map((column) => column.name);
    this.tables.set(key, [...new Set([...(present ?? []), ...wanted])]);
    if (present === undefined) return { created: true, addedColumns: [] };
    return { created: false, addedColumns: wanted.filter((name) => !present.includes(name)) };
  }

  async loadBatch(batch: BatchDescriptor, files: StagedFiles, reader: StagedFileReader): Promise<ApplyOutcome> {
    this.faults.check('loadBatch');
    const recorded = this.loaded.record(batch);
    if (recorded === 'stale') return { applied: false, rowCount: 0, stale: true };
    if (recorded === 'before') return { applied: false, rowCount: 0 };
    let rowCount = 0;
    for (const key of files.partKeys) rowCount += (await linesOf(await reader.readPart(key))).length;
    this.partsOf.set(batch.batchId, files.partKeys);
    return { applied: true, rowCount };
  }

  async hasTable(table: TableRef, options: WarehouseTableOptions): Promise<boolean> {
    return this.tables.has(`${options.schema}.${this.targetTableName(table)}`);
  }

  async hasLoaded(batchId: string): Promise<boolean> {
    return this.loaded.batchIds.has(batchId);
  }

  async isStale(batch: BatchDescriptor): Promise<boolean> {
    return this.loaded.isStale(batch);
  }

  async forgetLoadedBatches(): Promise<number> {
    return 0;
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
