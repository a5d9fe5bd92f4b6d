import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import {
  PipelineSubjects,
  tableKey,
  type BatchExtracted,
  type BatchGroupExtracted,
  type BatchStaged,
  type BatchStagingApplied,
  type ReplicationConfig,
  type StagedFiles,
} from '@svc/contracts';
import type { ApplyOutcome, StagingConnector, TableEnsured } from '@svc/engines';
import type { WorkerConfig } from '@svc/config';
import { JsonLogger, replicationLog } from '@svc/logging';
import { CancelledWork, PipelinePublisher, RowChunksGoneError, WorkAbortedError, purgeRows, readRowChunks, type OutageWait, type WorkContext } from '@svc/messaging';
import { NATS_CONNECTION } from '@svc/messaging-nest';
import { WORKER_CONFIG, WORKER_SHUTDOWN } from '@svc/pipeline-nest';
import {
  EngineRegistry,
  HOUSEKEEPING_INTERVAL_MS,
  IntervalGate,
  RuntimeConfigClient,
  batchFolderName,
  batchLogCutoff,
  reportBatchFailure,
  reportFencedOut,
  runBatchStep,
  EnsuredTables,
  definitionShape,
  SeedPartOrder,
  GROUP_REQUESTS_AT_ONCE,
  eachAtMost,
  groupMessageId,
  groupsOf,
  newestConfigVersion,
  workMessageId,
  type FailureReport,
} from '@svc/pipeline-runtime';
import { BatchFileWriter, RewritingFileWriter, batchKeyPrefix, deleteExpiredFiles, replicationPrefix, tapChunks } from '@svc/storage';

/**
 * Applies a batch to the staging database and, from the same pass over its rows, writes it to the bucket
 * as gzip CSV parts with a manifest; then hands it to the loaders. A stale batch (of a unit of work older
 * than one already applied to the table: cancelled work) is acknowledged and dropped, its files never written.
 */
@Injectable()
export class StageService {
  private readonly housekeeping = new IntervalGate(HOUSEKEEPING_INTERVAL_MS);
  private readonly partOrder: SeedPartOrder;
  private readonly ensuredTables = new EnsuredTables();
  /** Purges of row chunks wait out a NATS outage in place, until the worker shuts down. */
  private readonly outageWait: Partial<OutageWait>;

  constructor(
    private readonly engines: EngineRegistry,
    private readonly configs: RuntimeConfigClient,
    private readonly publisher: PipelinePublisher,
    private readonly logger: JsonLogger,
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
    @Inject(WORKER_CONFIG) private readonly settings: WorkerConfig,
    @Inject(WORKER_SHUTDOWN) shutdown: AbortController,
    private readonly cancelled: CancelledWork,
  ) {
    this.partOrder = new SeedPartOrder(settings.concurrency, { shutdown: shutdown.signal });
    this.outageWait = { shutdown: shutdown.signal };
  }

  /**
   * Staging and the warehouse apply the batch at once: the files are handed to the loaders (BatchStaged, awaitsStaging)
   * as soon as the last row is in them, while staging still merges and commits; staging's commit is reported apart
   * (BatchStagingApplied), and the registry completes the batch when the loader has reported too. Files handed on are
   * never deleted here: a loader may be reading them. A failed delivery deletes what it wrote only when no delivery
   * before it can have handed the same files on (its first); otherwise they stay for the bucket's retention.
   *
   * `context`: the worker's offer to hold the message outside its slot while it waits for the batch before it, and
   * which delivery of the message this is.
   */
  async stage(event: BatchExtracted, context?: Pick<WorkContext, 'lendSlot' | 'deliveryCount'>): Promise<void> {
    try {
      await this.stageOnce(event, context);
    } catch (error) {
      if (!(error instanceof RowChunksGoneError)) throw error;
      // Delivering the batch again cannot bring its rows back or put them right (and, while it is retried, its work holds
      // its table, and after a registry restart every other replication's turn): its work fails at once, and the
      // registry reads the table's changes again. Nothing of it was committed: the rows ran out inside its transaction.
      replicationLog(this.logger, await this.configs.configOf(event.batch.replicationId, event.batch.configVersion)).warn(
        'the rows of a batch cannot be read from the rows stream: its work is read again',
        { workId: event.workId, batchId: event.batch.batchId, reason: error.message },
      );
      await reportBatchFailure(this.publisher, event, 'stage', {
        message: "the batch's rows were lost from the rows stream or are not the ones announced (a NATS restart, their retention): its changes are read again",
        retryable: true,
        scope: 'table',
      });
    }
  }

  private async stageOnce(event: BatchExtracted, context?: Pick<WorkContext, 'lendSlot' | 'deliveryCount'>): Promise<void> {
    const { batch } = event;
    const config = await this.configs.configOf(batch.replicationId, batch.configVersion);
    const staging = this.engines.staging(config);
    let writer: BatchFileWriter | RewritingFileWriter | undefined;
    let ensured: TableEnsured | undefined;
    const ensuredKey = EnsuredTables.keyOf('staging', config.staging.connectionString, definitionShape(batch.definition));
    /** Set before the files are handed on, not after: staging may fail while the hand-off is under way, and a loader may have them then. */
    let handedOn = false;
    const handOn = async (files: BatchFileWriter | RewritingFileWriter): Promise<void> => {
      handedOn = true;
      await this.publishStaged(event, await files.finish(), ensured, true);
    };
    await runBatchStep(
      batch,
      this.partOrder,
      {
        hasDone: (batchId) => staging.hasApplied(batchId),
        isStale: () => staging.isStale(batch),
        tableExists: async () => (await staging.existingColumns(batch.definition.table)) !== null,
        ensureTable: async () =>
          (ensured = await this.ensuredTables.ensure(
            ensuredKey,
            () => staging.ensureTable(batch.definition),
            async () => (await staging.existingColumns(batch.definition.table)) !== null,
          )),
        apply: async () => {
          const files = this.fileWriterOf(event, config);
          try {
            const outcome = await staging.applyBatch(batch, tapChunks(this.rowsOf(event, config), files, () => handOn(files)));
            // A stale outcome read none of the rows, so nothing was written; the writer is not aborted either:
            // abort deletes the batch's keys (its manifest), which the newer batch may own.
            writer = files;
            return outcome;
          } catch (error) {
            this.ensuredTables.failed(ensuredKey);
            const handedOnBefore = (context?.deliveryCount ?? 1) > 1;
            if (!handedOn && !handedOnBefore) await files.abort().catch(() => undefined);
            throw error;
          }
        },
      },
      {
        stale: () => this.dropStale(event, config),
        tableLost: () => this.reseedLostTable(event, config),
        done: async (outcome) => {
          if (writer === undefined) throw new Error('the batch was applied without a file writer');
          if (handedOn) {
            const report: BatchStagingApplied = {
              workId: event.workId,
              batchId: batch.batchId,
              replicationId: batch.replicationId,
              table: batch.definition.table,
              epoch: batch.epoch,
              appliedAt: new Date().toISOString(),
            };
            await this.publisher.publish(PipelineSubjects.batchStagingApplied, report, workMessageId(event.workId, batch.batchId, batch.epoch));
          } else {
            await this.publishStaged(event, await writer.finish(), ensured, false);
          }
          await purgeRows(this.connection, event.rowsSubject, this.outageWait);
          if (!outcome.applied) replicationLog(this.logger, config).debug('batch was already in staging', { batchId: batch.batchId });
          else if (batch.body.kind === 'seed' && batch.body.chunked === true) {
            // Whatever IsLogErrorsOnly says: which instance applied which chunk is how an operator sees a seed spread out.
            this.logger.info('seed chunk staged', { batchId: batch.batchId, chunk: batch.body.part, rows: outcome.rowCount });
          }
          if (this.housekeeping.due(batch.replicationId)) await this.keepHouse(batch.replicationId, config);
        },
      },
      context,
    );
  }

  /**
   * The change batches of a group of small tables (docs/PIPELINE.md, "Many small tables in one unit"), applied to staging
   * in one transaction and handed to the loaders in one message. A member whose table had to be created was lost (its
   * database recreated) and is reseeded. Returned, to be staged alone (runWorkOrGroup): the members whose table check
   * failed, and every member when the group's transaction failed (it rolled back whole).
   */
  async stageGroup(message: BatchGroupExtracted, context?: Pick<WorkContext, 'deliveryCount'>): Promise<BatchExtracted[]> {
    const live = message.group.filter((member) => !this.cancelled.has(member.workId));
    const [first] = live;
    if (first === undefined) return [];
    const config = await this.configs.configOf(first.batch.replicationId, newestConfigVersion(live));
    const staging = this.engines.staging(config);
    const alone: BatchExtracted[] = [];
    const together: GroupMember[] = [];
    for (const event of live) {
      const key = EnsuredTables.keyOf('staging', config.staging.connectionString, definitionShape(event.batch.definition));
      try {
        // Trusted without a look when ensured before: the group's transaction fails on a table gone, and each member
        // then goes alone, its table ensured again (and, lost, reseeded).
        const ensured = await this.ensuredTables.ensure(key, () => staging.ensureTable(event.batch.definition));
        // Created for a change batch: the table was lost (its database recreated), as runBatchStep finds it alone.
        if (ensured.created) await this.reseedLostTable(event, config);
        else together.push({ event, key, ensured, files: this.fileWriterOf(event, config) });
      } catch {
        this.ensuredTables.failed(key);
        alone.push(event);
      }
    }
    if (together.length > 0 && !(await this.applyTogether(message.workId, together, staging, config, context?.deliveryCount ?? 1))) alone.push(...together.map((member) => member.event));
    return alone;
  }

  /** The group's one staging transaction and its hand-off; false when it rolled back (its members then go alone). */
  private async applyTogether(groupId: string, members: GroupMember[], staging: StagingConnector, config: ReplicationConfig, deliveryCount: number): Promise<boolean> {
    let outcomes: ApplyOutcome[];
    try {
      outcomes = await staging.applyChangeGroup(members.map(({ event, files }) => ({ batch: event.batch, rows: tapChunks(this.rowsOf(event, config), files) })));
    } catch (error) {
      if (error instanceof WorkAbortedError) throw error;
      for (const member of members) this.ensuredTables.failed(member.key);
      // A delivery before this one may have handed the same files on: then they stay for the bucket's retention.
      if (deliveryCount <= 1) await Promise.all(members.map((member) => member.files.abort().catch(() => undefined)));
      replicationLog(this.logger, config).warn('a group of change batches could not be applied together: each goes on alone', {
        tables: members.length,
        reason: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
    const applied = members.filter((_, index) => outcomes[index]?.stale !== true);
    for (const member of members.filter((_, index) => outcomes[index]?.stale === true)) await this.dropStale(member.event, config);
    const staged = await eachAtMost(applied, GROUP_REQUESTS_AT_ONCE, async (member) => this.stagedOf(member.event, await member.files.finish(), member.ensured, false));
    for (const group of groupsOf(staged)) await this.publishStagedGroup(groupId, group);
    await eachAtMost(applied, GROUP_REQUESTS_AT_ONCE, ({ event }) => purgeRows(this.connection, event.rowsSubject, this.outageWait));
    const replicationId = members[0]?.event.batch.replicationId;
    if (replicationId !== undefined && this.housekeeping.due(replicationId)) await this.keepHouse(replicationId, config);
    return true;
  }

  /**
   * The group's staged batches, under the group's own id: never a member's work id, which the loaders' filter of cancelled
   * work would take for the whole message (a member cancelled would drop the others with it).
   */
  private async publishStagedGroup(groupId: string, group: BatchStaged[]): Promise<void> {
    const [only] = group;
    if (only === undefined) return;
    if (group.length === 1) await this.publisher.publish(PipelineSubjects.batchStaged, only, workMessageId(only.workId, only.batch.batchId, only.batch.epoch));
    else await this.publisher.publish(PipelineSubjects.batchStaged, { workId: groupId, group }, groupMessageId('staged', group));
  }

  /** Where a batch's files go, written as the warehouse reads them (Redshift: its own NULL marker, binary as hex). */
  private fileWriterOf(event: BatchExtracted, config: ReplicationConfig): BatchFileWriter | RewritingFileWriter {
    const { batch } = event;
    const client = this.engines.bucket(config, this.settings.s3);
    const prefix = batchKeyPrefix(config.warehouse.bucketFolderName, batch.replicationId, batch.definition.table, filesFolderOf(event));
    const plain = new BatchFileWriter(client, config.warehouse.bucketName, prefix);
    const rewriter = this.engines.stagedFileRows(config, batch);
    return rewriter === null ? plain : new RewritingFileWriter(plain, rewriter);
  }

  /** Hands the batch's files to the loaders, with what staging's table check found (its columns added, widened, renamed). */
  private async publishStaged(event: BatchExtracted, files: StagedFiles, ensured: TableEnsured | undefined, awaitsStaging: boolean): Promise<void> {
    const staged = this.stagedOf(event, files, ensured, awaitsStaging);
    await this.publisher.publish(PipelineSubjects.batchStaged, staged, workMessageId(event.workId, event.batch.batchId, event.batch.epoch));
  }

  private stagedOf(event: BatchExtracted, files: StagedFiles, ensured: TableEnsured | undefined, awaitsStaging: boolean): BatchStaged {
    const { addedColumns, schemaChanges, suspectedRenames } = schemaNotesOf(ensured);
    return {
      workId: event.workId,
      batch: event.batch,
      files,
      rowCount: event.rowCount,
      ...(awaitsStaging && { awaitsStaging: true }),
      addedColumns,
      ...(schemaChanges.length > 0 && { schemaChanges }),
      ...(suspectedRenames.length > 0 && { suspectedRenames }),
      extractedAt: event.extractedAt,
    };
  }

  /** The batch's rows from the rows stream, as the extractor published them. */
  private rowsOf(event: BatchExtracted, config: ReplicationConfig): AsyncGenerator<Buffer> {
    return readRowChunks(this.connection, event.rowsSubject, event.chunkCount, {
      onConsumerBehind: (chunkIndex) =>
        replicationLog(this.logger, config).warn('row chunks read from the rows stream leader: the reader\'s consumer was on a copy of the stream that is behind', {
          batchId: event.batch.batchId,
          chunkIndex,
        }),
    });
  }

  /**
   * The staging table had to be created for a batch that adds to it: its database (or schema, or the table)
   * was dropped and created again, and the rows applied before are gone. The table is seeded again.
   */
  private async reseedLostTable(event: BatchExtracted, config: ReplicationConfig): Promise<void> {
    const table = tableKey(event.batch.definition.table);
    const message = `the staging table ${table} was missing (its database or schema was recreated, or it was dropped): the table is reseeded`;
    replicationLog(this.logger, config).warn('staging table missing: reseeding', { workId: event.workId, table });
    await reportBatchFailure(this.publisher, event, 'stage', { message, retryable: true, scope: 'table', reseed: true });
    await purgeRows(this.connection, event.rowsSubject, this.outageWait);
  }

  /**
   * Not forwarded: newer work of the table was applied. The registry is told (it ignores work it released, and finds
   * out a control database older than staging's fences). Its rows go from the rows stream: they are under its own
   * publication's subject (rowsSubjectOf), which no other batch reads.
   */
  private async dropStale(event: BatchExtracted, config: ReplicationConfig): Promise<void> {
    const { batch } = event;
    replicationLog(this.logger, config).debug('dropped a stale batch: newer work on its table has been applied', {
      workId: event.workId,
      batchId: batch.batchId,
      epoch: batch.epoch,
    });
    await reportFencedOut(this.publisher, event, 'stage');
    await purgeRows(this.connection, event.rowsSubject, this.outageWait);
  }

  /**
   * Deletes batch files older than Warehouse.RetentionDays and forgets batches staging applied more than
   * a week ago. A failure is logged, not thrown: the batch itself is done, and the next hour tries again.
   */
  private async keepHouse(replicationId: string, config: ReplicationConfig): Promise<void> {
    const log = replicationLog(this.logger, config);
    try {
      const { warehouse } = config;
      const client = this.engines.bucket(config, this.settings.s3);
      const deleted = await deleteExpiredFiles(client, warehouse.bucketName, replicationPrefix(warehouse.bucketFolderName, replicationId), warehouse.retentionDays);
      if (deleted > 0) log.info('deleted expired batch files', { replicationId, objects: deleted });
      const forgotten = await this.engines.staging(config).forgetAppliedBatches(batchLogCutoff());
      if (forgotten > 0) log.info('forgot batches applied in staging more than a week ago', { replicationId, batches: forgotten });
    } catch (error) {
      log.warn('housekeeping failed; retried in an hour', { replicationId, reason: error instanceof Error ? error.message : String(error) });
    }
  }

  async fail(event: BatchExtracted, failure: FailureReport): Promise<void> {
    await reportBatchFailure(this.publisher, event, 'stage', failure);
  }
}

/** A member of a group going through staging's one transaction, with its table's check and its files. */
interface GroupMember {
  event: BatchExtracted;
  /** Its table's key in EnsuredTables. */
  key: string;
  ensured: TableEnsured;
  files: BatchFileWriter | RewritingFileWriter;
}

/**
 * The folder of a batch's files. A chunk of a chunked seed read again (a worker died mid-chunk) is the same batch read
 * at another time, under the seed's same epoch: its files go to a folder of that read's own (its rows subject names
 * the read), so that a loader still reading the earlier read's parts never meets the later read's.
 */
function filesFolderOf(event: BatchExtracted): string {
  const folder = batchFolderName(event.batch.batchId);
  const { body } = event.batch;
  return body.kind === 'seed' && body.chunked === true ? `${folder}-${event.rowsSubject.slice(-12)}` : folder;
}

/** What staging's table check found, for the loaders and the SchemaChange alert (nothing when it did not run). */
function schemaNotesOf(ensured: TableEnsured | undefined): { addedColumns: string[]; schemaChanges: string[]; suspectedRenames: string[] } {
  return { addedColumns: ensured?.addedColumns ?? [], schemaChanges: ensured?.schemaChanges ?? [], suspectedRenames: ensured?.suspectedRenames ?? [] };
}
