import { Inject, Injectable } from '@nestjs/common';
import { PipelineSubjects, tableKey, type BatchGroupStaged, type BatchLoaded, type BatchStaged, type ReplicationConfig } from '@svc/contracts';
import type { WorkerConfig } from '@svc/config';
import type { ApplyOutcome, TableEnsured, WarehouseConnector, WarehouseTableOptions } from '@svc/engines';
import { JsonLogger, replicationLog } from '@svc/logging';
import { CancelledWork, PipelinePublisher, WorkAbortedError, type WorkContext } from '@svc/messaging';
import { WORKER_CONFIG, WORKER_SHUTDOWN } from '@svc/pipeline-nest';
import {
  EngineRegistry,
  HOUSEKEEPING_INTERVAL_MS,
  IntervalGate,
  RuntimeConfigClient,
  batchLogCutoff,
  reportBatchFailure,
  reportFencedOut,
  runBatchStep,
  EnsuredTables,
  definitionShape,
  SeedPartOrder,
  GROUP_REQUESTS_AT_ONCE,
  eachAtMost,
  newestConfigVersion,
  workMessageId,
  type FailureReport,
  type SchemaNotes,
} from '@svc/pipeline-runtime';
import { S3StagedFileReader } from '@svc/storage';

/**
 * Loads a staged file set into the warehouse and merges it; then tells the registry, which moves the watermark.
 * A stale batch (of a unit of work older than one already loaded into the table: cancelled work) is
 * acknowledged and dropped, never reported loaded.
 */
@Injectable()
export class LoadService {
  private readonly housekeeping = new IntervalGate(HOUSEKEEPING_INTERVAL_MS);
  private readonly partOrder: SeedPartOrder;
  private readonly ensuredTables = new EnsuredTables();

  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly publisher: PipelinePublisher,
    private readonly logger: JsonLogger,
    @Inject(WORKER_CONFIG) private readonly settings: WorkerConfig,
    @Inject(WORKER_SHUTDOWN) shutdown: AbortController,
    private readonly cancelled: CancelledWork,
  ) {
    this.partOrder = new SeedPartOrder(settings.concurrency, { shutdown: shutdown.signal });
  }

  /** `context`: the worker's offer to hold the message outside its slot while it waits for the batch before it. */
  async load(event: BatchStaged, context?: Pick<WorkContext, 'lendSlot'>): Promise<void> {
    const { batch } = event;
    const config = await this.configs.configOf(batch.replicationId, batch.configVersion);
    const warehouse = this.engines.warehouse(config);
    const options = tableOptionsOf(config);
    const ensuredKey = ensuredKeyOf(config, options, event);
    await runBatchStep(
      batch,
      this.partOrder,
      {
        hasDone: (batchId) => warehouse.hasLoaded(batchId, options),
        isStale: () => warehouse.isStale(batch, options),
        tableExists: () => warehouse.hasTable(batch.definition.table, options),
        ensureTable: () =>
          this.ensuredTables.ensure(
            ensuredKey,
            () => warehouse.ensureTable(batch.definition, options),
            () => warehouse.hasTable(batch.definition.table, options),
          ),
        apply: async () => {
          try {
            return await warehouse.loadBatch(batch, event.files, new S3StagedFileReader(this.engines.bucket(config, this.settings.s3), event.files.bucket), options);
          } catch (error) {
            this.ensuredTables.failed(ensuredKey);
            throw error;
          }
        },
      },
      {
        stale: () => this.dropStale(event, config),
        tableLost: () => this.reseedLostTable(event, config),
        done: async (outcome, addedColumns, noticed) => {
          await this.reportLoaded(event, outcome, addedColumns, noticed);
          if (this.housekeeping.due(batch.replicationId)) await this.forgetOldBatches(config, options);
        },
      },
      context,
    );
  }

  /**
   * The change batches of a group of small tables (docs/PIPELINE.md, "Many small tables in one unit"), loaded in one
   * warehouse transaction; each member is reported loaded as it would be alone. A member whose table had to be created
   * was lost and is reseeded. Returned, to be loaded alone (runWorkOrGroup): the members whose table check failed, and
   * every member when the group's transaction failed (it rolled back whole).
   */
  async loadGroup(message: BatchGroupStaged): Promise<BatchStaged[]> {
    const live = message.group.filter((member) => !this.cancelled.has(member.workId));
    const [first] = live;
    if (first === undefined) return [];
    const config = await this.configs.configOf(first.batch.replicationId, newestConfigVersion(live));
    const warehouse = this.engines.warehouse(config);
    const options = tableOptionsOf(config);
    const alone: BatchStaged[] = [];
    const together: { event: BatchStaged; key: string; ensured: TableEnsured }[] = [];
    for (const event of live) {
      const key = ensuredKeyOf(config, options, event);
      try {
        // Trusted without a look when ensured before, as in the stager's group.
        const ensured = await this.ensuredTables.ensure(key, () => warehouse.ensureTable(event.batch.definition, options));
        // As runBatchStep decides alone: created for a change batch means lost, unless an ScdType change kept the old one aside.
        if (ensured.created && !('keptAs' in ensured && ensured.keptAs !== undefined)) await this.reseedLostTable(event, config);
        else together.push({ event, key, ensured });
      } catch {
        this.ensuredTables.failed(key);
        alone.push(event);
      }
    }
    if (together.length > 0 && !(await this.loadTogether(together, warehouse, config, options))) alone.push(...together.map((member) => member.event));
    return alone;
  }

  /** The group's one warehouse transaction and its reports; false when it rolled back (its members then go alone). */
  private async loadTogether(
    members: { event: BatchStaged; key: string; ensured: TableEnsured }[],
    warehouse: WarehouseConnector,
    config: ReplicationConfig,
    options: WarehouseTableOptions,
  ): Promise<boolean> {
    let outcomes: ApplyOutcome[];
    try {
      const reader = new S3StagedFileReader(this.engines.bucket(config, this.settings.s3), members[0]?.event.files.bucket ?? config.warehouse.bucketName);
      outcomes = await warehouse.loadChangeGroup(
        members.map(({ event }) => ({ batch: event.batch, files: event.files })),
        reader,
        options,
      );
    } catch (error) {
      if (error instanceof WorkAbortedError) throw error;
      for (const member of members) this.ensuredTables.failed(member.key);
      replicationLog(this.logger, config).warn('a group of change batches could not be loaded together: each goes on alone', {
        tables: members.length,
        reason: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
    const reports = members.map((member, index) => ({ ...member, outcome: outcomes[index] ?? { applied: false, rowCount: 0 } }));
    for (const { event } of reports.filter((report) => report.outcome.stale === true)) await this.dropStale(event, config);
    // Eight at a time: a group's hundred reports one after the other kept its last members in flight (their next change
    // waiting) for as long as the round trips took.
    await eachAtMost(
      reports.filter((report) => report.outcome.stale !== true),
      GROUP_REQUESTS_AT_ONCE,
      ({ event, ensured, outcome }) => this.reportLoaded(event, outcome, ensured.addedColumns, { schemaChanges: ensured.schemaChanges ?? [], suspectedRenames: ensured.suspectedRenames ?? [] }),
    );
    const replicationId = members[0]?.event.batch.replicationId;
    if (replicationId !== undefined && this.housekeeping.due(replicationId)) await this.forgetOldBatches(config, options);
    return true;
  }

  /** Tells the registry the batch is in the warehouse, with the columns it added and those filled by a default. */
  private async reportLoaded(event: BatchStaged, outcome: ApplyOutcome, addedColumns: string[], noticed: SchemaNotes): Promise<void> {
    const { batch } = event;
    const body = batch.body;
    const added = [...new Set([...event.addedColumns, ...addedColumns])];
    const changes = [...(event.schemaChanges ?? []), ...noticed.schemaChanges];
    const renames = [...(event.suspectedRenames ?? []), ...noticed.suspectedRenames];
    const filled = new Set(batch.definition.columns.filter((column) => column.hasDefault).map((column) => column.name));
    const filledColumns = added.filter((name) => filled.has(name));
    await this.publisher.publish(
      PipelineSubjects.batchLoaded,
      {
        workId: event.workId,
        batchId: batch.batchId,
        replicationId: batch.replicationId,
        table: batch.definition.table,
        ...reportedKind(body),
        version: body.kind === 'seed' ? body.startVersion : body.toVersion,
        ...(body.sourceIncarnation !== undefined && { sourceIncarnation: body.sourceIncarnation }),
        epoch: batch.epoch,
        ...(event.awaitsStaging === true && { awaitsStaging: true }),
        rowCount: outcome.applied ? outcome.rowCount : event.rowCount,
        addedColumns: added,
        ...(changes.length > 0 && { schemaChanges: changes }),
        ...(renames.length > 0 && { suspectedRenames: renames }),
        ...(filledColumns.length > 0 && { filledColumns }),
        extractedAt: event.extractedAt,
        loadedAt: new Date().toISOString(),
      },
      workMessageId(event.workId, batch.batchId, batch.epoch),
    );
  }

  /** Forgets batches loaded into the schema more than a week ago; a failure is logged, and the next hour tries again. */
  private async forgetOldBatches(config: ReplicationConfig, options: WarehouseTableOptions): Promise<void> {
    const log = replicationLog(this.logger, config);
    try {
      const forgotten = await this.engines.warehouse(config).forgetLoadedBatches(batchLogCutoff(), options);
      if (forgotten > 0) log.info('forgot batches loaded into the warehouse more than a week ago', { schema: options.schema, batches: forgotten });
    } catch (error) {
      log.warn('forgetting old loaded batches failed; retried in an hour', { schema: options.schema, reason: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * The warehouse table had to be created for a batch that adds to it: its database (or schema, or the
   * table) was dropped and created again, and the rows loaded before are gone. The table is seeded again.
   */
  private async reseedLostTable(event: BatchStaged, config: ReplicationConfig): Promise<void> {
    const table = tableKey(event.batch.definition.table);
    const message = `the warehouse table of ${table} was missing (its database or schema was recreated, or it was dropped): the table is reseeded`;
    replicationLog(this.logger, config).warn('warehouse table missing: reseeding', { workId: event.workId, table });
    await reportBatchFailure(this.publisher, event, 'load', { message, retryable: true, scope: 'table', reseed: true });
  }

  /**
   * Newer work of the table was loaded: the batch must not count as loaded (the watermark would move). The registry is
   * told: it ignores work it released, and finds out a control database older than the warehouse's fences.
   */
  private async dropStale(event: BatchStaged, config: ReplicationConfig): Promise<void> {
    const { batch } = event;
    replicationLog(this.logger, config).debug('dropped a stale batch: newer work on its table has been loaded', {
      workId: event.workId,
      batchId: batch.batchId,
      epoch: batch.epoch,
    });
    await reportFencedOut(this.publisher, event, 'load');
  }

  async fail(event: BatchStaged, failure: FailureReport): Promise<void> {
    await reportBatchFailure(this.publisher, event, 'load', failure);
  }
}

function tableOptionsOf(config: ReplicationConfig): WarehouseTableOptions {
  return { schema: config.warehouse.databaseSchema, scdType: config.warehouse.scdType, addUpdateTimestamp: config.addUpdateTimestamp };
}

/** A table's key in EnsuredTables: the warehouse, the login, the options and the table's definition. */
function ensuredKeyOf(config: ReplicationConfig, options: WarehouseTableOptions, event: BatchStaged): string {
  const { url, databaseName, username } = config.warehouse;
  return EnsuredTables.keyOf('warehouse', url, databaseName, username, config.rebuildIndexes, options, definitionShape(event.batch.definition));
}

/**
 * What a loaded batch is to the registry: a seed part (a chunk of a chunked seed names its seed), a change batch, or a
 * batch of a chunked seed's close, which is the seed's to the registry (its last batch completes the seed).
 */
function reportedKind(body: BatchStaged['batch']['body']): Pick<BatchLoaded, 'kind' | 'part' | 'final' | 'fromVersion' | 'seedChunkOf'> {
  if (body.kind === 'seed') return { kind: 'seed', part: body.part, final: body.final, ...(body.chunked === true && { seedChunkOf: body.seedId }) };
  if (body.closesSeed !== undefined) return { kind: 'seed', final: body.final !== false, fromVersion: body.fromVersion };
  return { kind: 'changes', fromVersion: body.fromVersion, ...(body.final === false && { final: false }) };
}
